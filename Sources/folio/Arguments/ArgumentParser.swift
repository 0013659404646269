/// The arguments of one command after parsing.
struct ParsedArguments: Sendable {
    /// Positional arguments, in order.
    var positionals: [String] = []
    /// Option values by the option's canonical name (`--limit`), in the order given.
    var values: [String: [String]] = [:]
    /// Flags given, by canonical name.
    var flags: Set<String> = []

    /// The last value of an option, if given.
    func value(_ key: String) -> String? { values[key]?.last }

    /// Every value of a repeatable option.
    func all(_ key: String) -> [String] { values[key] ?? [] }

    /// Whether a flag was given.
    func flag(_ key: String) -> Bool { flags.contains(key) }

    /// The positional at `index`, if given.
    func positional(_ index: Int) -> String? { index < positionals.count ? positionals[index] : nil }

    /// An option's value as a non-negative integer.
    func integer(_ key: String, command: String) throws(UsageError) -> Int? {
        guard let text = value(key) else { return nil }
        guard let number = Int(text), number >= 0 else {
            throw UsageError("The value '\(text)' is invalid for '\(key) <N>'.", help: "Give a whole number, 0 or more.", command: command)
        }
        return number
    }
}

/// What the parser found instead of arguments to run with.
enum ParseOutcome: Sendable, Equatable {
    case run
    case help
}

/// A small argument parser: options and flags declared in a ``CommandSpec``, positionals in order.
enum ArgumentParser {
    /// Parses `arguments` (without the program and command names) for `spec`.
    ///
    /// - Returns: the parsed arguments, and `.help` when `-h`/`--help` was given (nothing else is checked then).
    /// - Throws: ``UsageError`` quoting the offending input, with a suggestion for a near miss.
    static func parse(_ arguments: [String], spec: CommandSpec) throws(UsageError) -> (ParsedArguments, ParseOutcome) {
        if arguments.prefix(while: { $0 != "--" }).contains(where: { $0 == "-h" || $0 == "--help" }) {
            return (ParsedArguments(), .help)
        }
        var parsed = ParsedArguments()
        var index = 0
        var optionsEnded = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if optionsEnded || argument == "-" || !argument.hasPrefix("-") || isNegativeNumber(argument) {
                parsed.positionals.append(argument)
                continue
            }
            if argument == "--" {
                optionsEnded = true
                continue
            }
            var name = argument
            var inlineValue: String? = nil
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                inlineValue = String(argument[argument.index(after: equals)...])
            }
            guard let option = spec.option(named: name) else {
                let candidates = spec.options.flatMap(\.names) + ["--help"]
                let suggestion = EditDistance.closest(to: name, in: candidates)
                throw UsageError(
                    "Unknown option '\(name)'.",
                    help: suggestion.map { "Did you mean '\($0)'?" } ?? "See 'folio help \(spec.name)' for the options.",
                    command: spec.name)
            }
            if option.isFlag {
                if inlineValue != nil {
                    throw UsageError("The flag '\(name)' does not take a value.", help: "Write '\(name)' alone.", command: spec.name)
                }
                parsed.flags.insert(option.key)
                continue
            }
            let value: String
            if let inlineValue {
                value = inlineValue
            } else if index < arguments.count, !looksLikeOption(arguments[index], spec: spec) {
                value = arguments[index]
                index += 1
            } else {
                throw UsageError(
                    "Missing value for '\(name) <\(option.valueName ?? "value")>'.",
                    help: "Write it as '\(name) <\(option.valueName ?? "value")>' or '\(option.key)=<\(option.valueName ?? "value")>'.",
                    command: spec.name)
            }
            if !option.repeatable, parsed.values[option.key] != nil {
                throw UsageError(
                    "The option '\(option.key)' was given more than once.", help: "Give it once.", command: spec.name)
            }
            parsed.values[option.key, default: []].append(value)
        }
        let required = spec.arguments.filter { !$0.isOptional }
        if parsed.positionals.count < required.count {
            let missing = required[parsed.positionals.count]
            throw UsageError("Missing expected argument '\(missing.name)'.", help: missing.help, command: spec.name)
        }
        if parsed.positionals.count > spec.arguments.count, spec.arguments.last?.isVariadic != true {
            let extra = parsed.positionals[spec.arguments.count]
            throw UsageError(
                "Unexpected argument '\(extra)'.",
                help: spec.arguments.isEmpty
                    ? "'folio \(spec.name)' takes no arguments." : "'folio \(spec.name)' takes \(spec.arguments.map(\.name).joined(separator: " ")).",
                command: spec.name)
        }
        return (parsed, .run)
    }

    private static func isNegativeNumber(_ text: String) -> Bool {
        text.count > 1 && text.hasPrefix("-") && Double(text.dropFirst()) != nil
    }

    /// Whether the argument after an option is another option rather than its value.
    private static func looksLikeOption(_ text: String, spec: CommandSpec) -> Bool {
        guard text.hasPrefix("-"), text != "-", !isNegativeNumber(text) else { return false }
        let name = text.split(separator: "=", maxSplits: 1).first.map(String.init) ?? text
        return spec.option(named: name) != nil || name == "--help" || name == "-h" || name == "--"
    }
}
