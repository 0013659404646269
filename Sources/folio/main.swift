import Foundation

// The `folio` command. Everything lives in Commands/; this file only runs it.
let console = Console()
exit(FolioCommand.main(Array(CommandLine.arguments.dropFirst()), console: console))
