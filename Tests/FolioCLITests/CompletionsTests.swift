import Foundation
import Testing

/// `folio completions` and `folio --version`: the scripts name what the help names, and parse.
@Suite("Shell completions and version")
struct CompletionsTests {
    /// The subcommands `folio --help` lists.
    static func subcommands() throws -> [String] {
        let help = try folio("--help").stdout
        let section = help.components(separatedBy: "SUBCOMMANDS:").last ?? ""
        return section.split(separator: "\n").compactMap { line in
            guard line.hasPrefix("  "), !line.hasPrefix("   "), !line.contains("See 'folio help") else { return nil }
            return line.split(separator: " ").first.map(String.init)
        }
    }

    /// Every option spelling `folio help COMMAND` lists (`--where`, `-w`, `--help`, `-h`…).
    static func options(of command: String) throws -> [String] {
        let help = try folio("help", command).stdout
        let section = (help.components(separatedBy: "OPTIONS:").last ?? "").components(separatedBy: "EXAMPLES:")[0]
        return section.split(separator: "\n").flatMap { line -> [String] in
            let trimmed = line.drop { $0 == " " }
            guard trimmed.hasPrefix("-") else { return [] }
            let spellings = trimmed.components(separatedBy: "  ")[0].components(separatedBy: " <")[0]
            return spellings.components(separatedBy: ", ")
        }
    }

    /// Whether `script` has `word` as a whole word (not only inside a longer one).
    static func names(_ script: String, _ word: String) -> Bool {
        let separators = CharacterSet(charactersIn: " \"'()\n|[=:*{},;")
        var rest = script[...]
        while let range = rest.range(of: word) {
            let before = range.lowerBound == script.startIndex ? nil : script[script.index(before: range.lowerBound)]
            let after = range.upperBound == script.endIndex ? nil : script[range.upperBound]
            let bounded = { (character: Character?) in character.map { $0.unicodeScalars.allSatisfy(separators.contains) } ?? true }
            if bounded(before) && bounded(after) { return true }
            rest = script[range.upperBound...]
        }
        return false
    }

    /// fish names options without their dashes: `-l where`, `-s w`.
    static func fishNames(_ script: String, _ option: String, of command: String) -> Bool {
        let spelling = option.hasPrefix("--") ? "-l \(option.dropFirst(2))" : "-s \(option.dropFirst())"
        return script.split(separator: "\n").contains { line in
            line.contains("__fish_seen_subcommand_from \(command)'") && names(String(line), String(spelling.split(separator: " ")[1]))
                && line.contains(spelling)
        }
    }

    @Test func everyScriptNamesEverySubcommandAndItsOptions() throws {
        let subcommands = try Self.subcommands()
        #expect(subcommands.count >= 12)
        #expect(subcommands.contains("completions") && subcommands.contains("cat"))
        for shell in ["bash", "zsh", "fish"] {
            let run = try folio("completions", shell)
            #expect(run.status == 0, "\(shell): \(run)")
            #expect(run.stderr.isEmpty)
            for command in subcommands {
                #expect(Self.names(run.stdout, command), "\(shell) script lacks \(command)")
                let options = try Self.options(of: command)
                #expect(options.contains("--help"))
                for option in options {
                    let named = shell == "fish" ? Self.fishNames(run.stdout, option, of: command) : Self.names(run.stdout, option)
                    #expect(named, "\(shell) script lacks \(command) \(option)")
                }
            }
            #expect(shell == "fish" ? run.stdout.contains("-l version") : Self.names(run.stdout, "--version"))
        }
        #expect(try folio("completions", "bash").stdout.contains("cat)\n            options=\"--where -w "))
    }

    @Test func theScriptsParseInTheirShells() throws {
        let scratch = ScratchDirectory()
        defer { scratch.remove() }
        for (shell, check) in [("bash", ["-n"]), ("zsh", ["-n"]), ("fish", ["--no-execute"])] {
            guard let executable = ["/usr/bin/\(shell)", "/bin/\(shell)"].first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
                #expect(shell != "bash", "bash is on every machine the tests run on")
                continue
            }
            let script = scratch.url.appendingPathComponent("folio.\(shell)")
            try Data(try folio("completions", shell).stdout.utf8).write(to: script)
            let result = try run(URL(fileURLWithPath: executable), arguments: check + [script.path])
            #expect(result.status == 0, "\(shell) rejects the script: \(result.stderr)")
        }
    }

    @Test func bashCompletesSubcommandsOptionsAndChoices() throws {
        let script = try folio("completions", "bash").stdout
        func complete(_ words: [String]) throws -> [String] {
            let line = words.map { "'\($0)'" }.joined(separator: " ")
            let program = script + "\nCOMP_WORDS=(\(line)); COMP_CWORD=\(words.count - 1); _folio; printf '%s\\n' \"${COMPREPLY[@]}\"\n"
            let result = try run(URL(fileURLWithPath: "/usr/bin/bash"), arguments: ["-c", program])
            #expect(result.status == 0, "\(result.stderr)")
            return result.stdout.split(separator: "\n").map(String.init)
        }
        #expect(try complete(["folio", "ver"]) == ["verify"])
        #expect(try complete(["folio", "--v"]) == ["--version"])
        #expect(try complete(["folio", "cat", "Store", "--wh"]) == ["--where"])
        #expect(try complete(["folio", "completions", "f"]) == ["fish"])
        #expect(try complete(["folio", "help", "comp"]) == ["compact", "completions"])
    }

    @Test func anUnknownShellIsAUsageError() throws {
        let run = try folio("completions", "tcsh")
        #expect(run.status == 64)
        #expect(run.stderr.contains("Unknown shell 'tcsh'."))
        #expect(run.stdout.isEmpty)
    }

    @Test func theVersionNamesTheReleaseAndTheFormatsItReads() throws {
        let run = try folio("--version")
        #expect(run.status == 0)
        let lines = run.stdout.split(separator: "\n")
        #expect(lines.count == 3)
        #expect(lines.first.map { $0.split(separator: ".").count == 3 && $0.allSatisfy { $0.isNumber || $0 == "." } } == true)
        #expect(run.stdout.contains("store format (manifest.json, journal, history): reads version 1, writes 1"))
        #expect(run.stdout.contains("snapshot files: reads version 1, writes 1"))
    }
}
