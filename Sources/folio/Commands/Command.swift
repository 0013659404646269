import Foundation
import FolioStorage

/// One `folio` subcommand: its declared arguments and what it does.
protocol FolioSubcommand {
    static var spec: CommandSpec { get }
    /// Runs with parsed arguments; returns the exit code. Throws ``UsageError`` or ``CommandFailure``.
    static func run(_ arguments: ParsedArguments, console: Console) throws -> Int32
}

/// The top-level command: dispatches to subcommands and renders errors.
enum FolioCommand {
    /// Folio's release, the one place it is written.
    static let version = "0.1.0"

    /// What `folio --version` prints: the release, then the store format versions this build reads.
    static var versionText: String {
        func versions(upTo newest: Int64) -> String { newest == 1 ? "1" : "1 to \(newest)" }
        return """
            \(version)
            store format (manifest.json, journal, history): reads version \(versions(upTo: Store.formatVersion)), writes \(Store.formatVersion)
            snapshot files: reads version \(versions(upTo: Store.snapshotFormatVersion)), writes \(Store.snapshotFormatVersion)
            """
    }

    // Sendable: an immutable list of metatypes, which are never changed.
    nonisolated(unsafe) static let subcommands: [any FolioSubcommand.Type] = [
        DemoCommand.self, InfoCommand.self, SchemaCommand.self, LogCommand.self, CatCommand.self, ShowCommand.self, BlameCommand.self,
        DiffCommand.self, ServeCommand.self,
        VerifyCommand.self, CompactCommand.self, RepairCommand.self, ExportCommand.self, ImportCommand.self, TextconvCommand.self,
        GitSetupCommand.self, SyncCommand.self, MergeDriverCommand.self, ConflictsCommand.self, CompletionsCommand.self, HelpCommand.self,
    ]

    static func subcommand(named name: String) -> (any FolioSubcommand.Type)? {
        subcommands.first { $0.spec.name == name }
    }

    static var overview: String {
        var text = """
            OVERVIEW: Look inside, check, repair and query Folio stores from their files alone, and tour Folio with a demo.

            A Folio store is a directory of JSON-lines files. These commands need no model types: they read the
            schema the store records in its manifest. Only 'compact', 'repair', 'import' and 'sync' change a store.

            USAGE: folio <subcommand> [arguments] [options]

            OPTIONS:
              -h, --help     Show help information.
              --version      Show the version and the store format versions it reads.

            SUBCOMMANDS:

            """
        let width = subcommands.map { $0.spec.name.count }.max() ?? 0
        for command in subcommands {
            text += "  \(command.spec.name.padding(toLength: width + 2, withPad: " ", startingAt: 0))\(command.spec.abstract)\n"
        }
        text += "\n  See 'folio help <subcommand>' for detailed help.\n"
        return text
    }

    /// Runs the command line and returns the exit code.
    static func main(_ arguments: [String], console: Console) -> Int32 {
        let code = run(arguments, console: console)
        console.flush()
        return code
    }

    static func run(_ arguments: [String], console: Console) -> Int32 {
        guard let first = arguments.first else {
            console.print(overview)
            return ExitCode.success
        }
        if first == "-h" || first == "--help" {
            console.print(overview)
            return ExitCode.success
        }
        if first == "--version" {
            console.print(versionText)
            return ExitCode.success
        }
        guard let command = subcommand(named: first) else {
            let suggestion = EditDistance.closest(to: first, in: subcommands.map { $0.spec.name })
            let error = UsageError(
                first.hasPrefix("-") ? "Unknown option '\(first)'." : "Unknown subcommand '\(first)'.",
                help: suggestion.map { "Did you mean '\($0)'?" } ?? "See 'folio --help' for the subcommands.")
            render(error, console: console)
            return ExitCode.usage
        }
        do {
            let (parsed, outcome) = try ArgumentParser.parse(Array(arguments.dropFirst()), spec: command.spec)
            if outcome == .help {
                console.print(command.spec.helpText)
                return ExitCode.success
            }
            return try command.run(parsed, console: console)
        } catch let error as UsageError {
            render(error, console: console)
            return ExitCode.usage
        } catch let error as CommandFailure {
            console.error("\(console.errorStyled("Error:", .red)) \(error.message)")
            if let help = error.help { console.error("Help: \(help)") }
            return ExitCode.failure
        } catch let error as StorageError {
            console.error("\(console.errorStyled("Error:", .red)) \(error)")
            console.error("Help: Run 'folio verify' on the store for details.")
            return ExitCode.failure
        } catch {
            console.error("\(console.errorStyled("Error:", .red)) \(error)")
            return ExitCode.failure
        }
    }

    static func render(_ error: UsageError, console: Console) {
        console.error("\(console.errorStyled("Error:", .red)) \(error.message)")
        if let help = error.help { console.error("Help: \(help)") }
        if let name = error.command, let command = subcommand(named: name) {
            console.error("Usage: \(command.spec.usage)")
            console.error("  See 'folio help \(name)' for more details.")
        } else {
            console.error("Usage: folio <subcommand> [arguments] [options]")
            console.error("  See 'folio --help' for the subcommands.")
        }
    }
}

/// `folio help [COMMAND]`.
enum HelpCommand: FolioSubcommand {
    static let spec = CommandSpec(
        name: "help", abstract: "Show help for folio or one of its subcommands.",
        arguments: [.init(name: "SUBCOMMAND", help: "The subcommand to explain.", isOptional: true)],
        examples: ["folio help cat"])

    static func run(_ arguments: ParsedArguments, console: Console) throws -> Int32 {
        guard let name = arguments.positional(0) else {
            console.print(FolioCommand.overview)
            return ExitCode.success
        }
        guard let command = FolioCommand.subcommand(named: name) else {
            let suggestion = EditDistance.closest(to: name, in: FolioCommand.subcommands.map { $0.spec.name })
            throw UsageError("Unknown subcommand '\(name)'.", help: suggestion.map { "Did you mean '\($0)'?" } ?? "See 'folio --help'.")
        }
        console.print(command.spec.helpText)
        return ExitCode.success
    }
}
