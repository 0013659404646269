/// `folio completions bash|zsh|fish`.
enum CompletionsCommand: FolioSubcommand {
    static let spec = CommandSpec(
        name: "completions", abstract: "Print a shell completion script for folio's subcommands and options.",
        discussion: """
            The script is written from the same tables the argument parser and the help work from, so it names
            every subcommand and option of this build. Store paths and option values complete as files.
            """,
        arguments: [.init(name: "SHELL", help: "The shell: bash, zsh or fish.", choices: CompletionScript.Shell.allCases.map(\.rawValue))],
        examples: [
            "folio completions bash > ~/.local/share/bash-completion/completions/folio",
            "folio completions zsh > \"${fpath[1]}/_folio\"",
            "folio completions fish > ~/.config/fish/completions/folio.fish",
        ])

    static func run(_ arguments: ParsedArguments, console: Console) throws -> Int32 {
        let name = arguments.positionals[0]
        guard let shell = CompletionScript.Shell(rawValue: name) else {
            throw UsageError("Unknown shell '\(name)'.", help: "Use one of: bash, zsh, fish.", command: spec.name)
        }
        console.write(CompletionScript.text(for: shell, commands: FolioCommand.subcommands.map { $0.spec }))
        return ExitCode.success
    }
}
