/// Shell completion scripts for `folio`, written from the subcommands' ``CommandSpec``s so that they
/// name exactly the subcommands and options the parser accepts.
enum CompletionScript {
    enum Shell: String, CaseIterable {
        case bash, zsh, fish
    }

    /// The options every subcommand accepts besides its own.
    static let commonOptions: [CommandSpec.Option] = [.flag("--help", "-h", help: "Show help information.")]
    /// The options `folio` itself accepts before a subcommand.
    static let topLevelOptions: [CommandSpec.Option] =
        commonOptions + [.flag("--version", help: "Show the version and the store format versions it reads.")]

    static func text(for shell: Shell, commands: [CommandSpec]) -> String {
        switch shell {
        case .bash: return bash(commands)
        case .zsh: return zsh(commands)
        case .fish: return fish(commands)
        }
    }

    /// The values `command`'s positional arguments complete to: its choices, or the subcommands' names
    /// for `help`; nil when any path will do.
    static func choices(of command: CommandSpec, among commands: [CommandSpec]) -> [String]? {
        if command.name == HelpCommand.spec.name { return commands.map(\.name) }
        let choices = command.arguments.flatMap(\.choices)
        return choices.isEmpty ? nil : choices
    }

    // MARK: bash

    static func bash(_ commands: [CommandSpec]) -> String {
        let topLevel = (commands.map(\.name) + topLevelOptions.flatMap(\.names)).joined(separator: " ")
        var cases = ""
        for command in commands {
            let options = command.options + commonOptions
            let valued = options.filter { !$0.isFlag }.flatMap(\.names)
            cases += "        \(command.name))\n"
            cases += "            options=\"\(options.flatMap(\.names).joined(separator: " "))\"\n"
            cases += "            valued=\"\(valued.joined(separator: " "))\"\n"
            if let choices = choices(of: command, among: commands) {
                cases += "            words=\"\(choices.joined(separator: " "))\"\n"
            }
            cases += "            ;;\n"
        }
        return """
            # bash completion for folio, written by 'folio completions bash'.
            _folio() {
                local cur="${COMP_WORDS[COMP_CWORD]}" prev="${COMP_WORDS[COMP_CWORD-1]}"
                if [[ $COMP_CWORD -eq 1 ]]; then
                    COMPREPLY=($(compgen -W "\(topLevel)" -- "$cur"))
                    return
                fi
                local options="" valued="" words=""
                case "${COMP_WORDS[1]}" in
            \(cases)        *) return ;;
                esac
                if [[ -n "$valued" && " $valued " == *" $prev "* ]]; then
                    COMPREPLY=($(compgen -f -- "$cur"))
                elif [[ "$cur" == -* ]]; then
                    COMPREPLY=($(compgen -W "$options" -- "$cur"))
                elif [[ -n "$words" ]]; then
                    COMPREPLY=($(compgen -W "$words" -- "$cur"))
                else
                    COMPREPLY=($(compgen -f -- "$cur"))
                fi
            }
            complete -o filenames -o bashdefault -F _folio folio

            """
    }

    // MARK: zsh

    /// `text` inside single quotes for zsh.
    private static func zshQuoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    /// An option's `_arguments` spec: `--name[help]`, with the brackets of the help escaped.
    private static func zshOption(_ name: String, _ help: String) -> String {
        name + "[" + help.replacingOccurrences(of: "[", with: "\\[").replacingOccurrences(of: "]", with: "\\]") + "]"
    }

    static func zsh(_ commands: [CommandSpec]) -> String {
        var described = ""
        for command in commands {
            described += "        \(zshQuoted("\(command.name):\(command.abstract)"))\n"
        }
        var cases = ""
        for command in commands {
            var specs: [String] = []
            for option in command.options + commonOptions {
                for name in option.names {
                    let value = option.valueName.map { ":\($0):_files" } ?? ""
                    specs.append(zshQuoted((option.repeatable ? "*" : "") + zshOption(name, option.help) + value))
                }
            }
            let choices = choices(of: command, among: commands)
            for argument in command.arguments {
                let action = choices.map { "(\($0.joined(separator: " ")))" } ?? "_files"
                let position = argument.isVariadic ? "*:" : argument.isOptional ? "::" : ":"
                specs.append(zshQuoted("\(position)\(argument.name):\(action)"))
            }
            cases += "        \(command.name))\n            _arguments -s \\\n"
            cases += specs.map { "                \($0)" }.joined(separator: " \\\n") + "\n            ;;\n"
        }
        let topLevel = topLevelOptions.flatMap { option in option.names.map { zshQuoted(zshOption($0, option.help)) } }
        return """
            #compdef folio
            # zsh completion for folio, written by 'folio completions zsh'.
            _folio() {
                local -a subcommands
                subcommands=(
            \(described)    )
                if (( CURRENT == 2 )); then
                    _describe -t subcommands 'folio subcommand' subcommands
                    _arguments \(topLevel.joined(separator: " "))
                    return
                fi
                local command=${words[2]}
                shift words
                (( CURRENT-- ))
                case $command in
            \(cases)    esac
            }
            if [[ ${zsh_eval_context[-1]} == loadautofunc ]]; then
                _folio "$@"
            else
                compdef _folio folio
            fi

            """
    }

    // MARK: fish

    /// `text` inside single quotes for fish.
    private static func fishQuoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'") + "'"
    }

    /// fish's spelling of an option name: `-l long`, `-s x`, or `-o old` for a long name with one dash.
    private static func fishName(_ name: String) -> String {
        if name.hasPrefix("--") { return "-l \(name.dropFirst(2))" }
        return name.count == 2 ? "-s \(name.dropFirst())" : "-o \(name.dropFirst())"
    }

    static func fish(_ commands: [CommandSpec]) -> String {
        var lines = [
            "# fish completion for folio, written by 'folio completions fish'.",
            "complete -c folio -f",
        ]
        for command in commands {
            lines.append("complete -c folio -n __fish_use_subcommand -a \(command.name) -d \(fishQuoted(command.abstract))")
        }
        for option in topLevelOptions {
            lines.append(
                "complete -c folio -n __fish_use_subcommand \(option.names.map(fishName).joined(separator: " ")) -d \(fishQuoted(option.help))")
        }
        for command in commands {
            let condition = "-n '__fish_seen_subcommand_from \(command.name)'"
            for option in command.options + commonOptions {
                let value = option.isFlag ? "" : " -r -F"
                lines.append(
                    "complete -c folio \(condition) \(option.names.map(fishName).joined(separator: " "))\(value) -d \(fishQuoted(option.help))")
            }
            if let choices = choices(of: command, among: commands) {
                lines.append("complete -c folio \(condition) -a \(fishQuoted(choices.joined(separator: " ")))")
            } else if !command.arguments.isEmpty {
                lines.append("complete -c folio \(condition) -F")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
