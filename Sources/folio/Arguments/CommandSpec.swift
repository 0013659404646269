/// The declaration of a command's arguments, from which the parser works and the help is written.
///
/// Modelled on swift-argument-parser's behaviour without depending on it: options take their value as
/// the next argument or after `=`, flags take none, `--` ends the options, and `-h`/`--help` anywhere
/// asks for help.
struct CommandSpec: Sendable {
    /// An option (`--where EXPR`) or a flag (`--json`).
    struct Option: Sendable {
        /// Every spelling, long first: `["--limit", "-n"]`.
        var names: [String]
        /// The value's placeholder (`N`), or nil for a flag.
        var valueName: String?
        /// One line of help.
        var help: String
        /// Whether the option may be given several times (values accumulate).
        var repeatable = false

        /// The canonical spelling: the first name.
        var key: String { names[0] }
        var isFlag: Bool { valueName == nil }

        static func flag(_ names: String..., help: String) -> Option {
            Option(names: names, valueName: nil, help: help)
        }

        static func option(_ names: String..., value: String, help: String, repeatable: Bool = false) -> Option {
            Option(names: names, valueName: value, help: help, repeatable: repeatable)
        }
    }

    /// A positional argument.
    struct Argument: Sendable {
        var name: String
        var help: String
        var isOptional = false
        /// The values it may take, for shell completion; empty when any value (a path) will do.
        var choices: [String] = []
        /// Whether it takes every remaining positional (`STORE...`); only the last argument may.
        var isVariadic = false

        /// `STORE`, or `STORE...` for a variadic argument.
        var usageName: String { isVariadic ? "\(name)..." : name }
    }

    var name: String
    var abstract: String
    var discussion: String = ""
    var arguments: [Argument] = []
    var options: [Option] = []
    var examples: [String] = []

    /// `folio cat STORE ENTITY [--where EXPR] …`
    var usage: String {
        var parts = ["folio", name]
        for argument in arguments { parts.append(argument.isOptional ? "[\(argument.usageName)]" : argument.usageName) }
        if !options.isEmpty { parts.append("[options]") }
        return parts.joined(separator: " ")
    }

    func option(named name: String) -> Option? {
        options.first { $0.names.contains(name) }
    }

    /// The full help text printed by `folio help NAME` and `folio NAME --help`.
    var helpText: String {
        var text = "OVERVIEW: \(abstract)\n"
        if !discussion.isEmpty { text += "\n\(discussion)\n" }
        text += "\nUSAGE: \(usage)\n"
        if !arguments.isEmpty {
            text += "\nARGUMENTS:\n"
            let width = arguments.map(\.name.count).max() ?? 0
            for argument in arguments {
                text += "  \(argument.name.padding(toLength: width + 2, withPad: " ", startingAt: 0))\(argument.help)\n"
            }
        }
        let allOptions = options + [.flag("--help", "-h", help: "Show help information.")]
        text += "\nOPTIONS:\n"
        let spellings = allOptions.map { option -> String in
            var spelling = option.names.joined(separator: ", ")
            if let value = option.valueName { spelling += " <\(value)>" }
            return spelling
        }
        let width = min(30, spellings.map(\.count).max() ?? 0)
        for (option, spelling) in zip(allOptions, spellings) {
            if spelling.count > width {
                text += "  \(spelling)\n  \(String(repeating: " ", count: width + 2))\(option.help)\n"
            } else {
                text += "  \(spelling.padding(toLength: width + 2, withPad: " ", startingAt: 0))\(option.help)\n"
            }
        }
        if !examples.isEmpty {
            text += "\nEXAMPLES:\n"
            for example in examples { text += "  \(example)\n" }
        }
        return text
    }
}
