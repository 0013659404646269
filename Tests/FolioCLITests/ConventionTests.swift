import Foundation
import Testing

@Suite("Help, errors and exit codes")
struct ConventionTests {
    @Test func helpGoesToStandardOutputWithExitZero() throws {
        for arguments in [["--help"], ["-h"], ["help"], []] {
            let run = try folio(arguments: arguments)
            #expect(run.status == 0, "\(arguments): \(run)")
            #expect(run.stdout.contains("SUBCOMMANDS:"))
            #expect(run.stdout.contains("verify"))
            #expect(run.stderr.isEmpty)
        }
        let cat = try folio("help", "cat")
        #expect(cat.status == 0)
        #expect(cat.stdout.contains("USAGE: folio cat STORE ENTITY [options]"))
        #expect(cat.stdout.contains("--where, -w <FILTER>"))
        #expect(try folio("cat", "--help").stdout == cat.stdout)
        #expect(try folio("log", "x", "-h").stdout.contains("--since <DATE>"))
        #expect(try folio("--version").stdout.hasPrefix("0."))
    }

    @Test func anUnknownSubcommandIsAUsageErrorWithASuggestion() throws {
        let run = try folio("cta", "Store")
        #expect(run.status == 64)
        #expect(run.stdout.isEmpty)
        #expect(run.stderr.contains("Error: Unknown subcommand 'cta'."))
        #expect(run.stderr.contains("Help: Did you mean 'cat'?"))
        let help = try folio("help", "nothing")
        #expect(help.status == 64)
    }

    @Test func usageMistakesExit64AndNameTheCommand() throws {
        let store = DemoStore.path
        let cases: [([String], String)] = [
            (["cat", store, "Trip", "--wher", "x"], "Did you mean '--where'?"),
            (["cat", store], "Missing expected argument 'ENTITY'."),
            (["cat", store, "Trip", "--limit", "lots"], "The value 'lots' is invalid for '--limit <N>'."),
            (["cat", store, "Trip", "--where", "price <"], "Invalid filter 'price <': expected a value after '<'"),
            (["cat", store, "Trp"], "Did you mean 'Trip'?"),
            (["cat", store, "Trip", "--where", "prise < 3"], "Did you mean 'price'?"),
            (["log", store, "--since", "last tuesday"], "The value 'last tuesday' is invalid for '--since <DATE>'."),
            (["export", store, "--format", "xml"], "Use one of: jsonl, json, csv."),
            (["export", store, "--format", "csv"], "CSV holds one entity"),
            (["show", store, "abc"], "is invalid for 'ID'"),
            (["info", store, "extra"], "Unexpected argument 'extra'."),
        ]
        for (arguments, expected) in cases {
            let run = try folio(arguments: arguments)
            #expect(run.status == 64, "\(arguments): \(run)")
            #expect(run.stderr.contains("Error: "), "\(arguments)")
            #expect(run.stderr.contains(expected), "\(arguments): \(run.stderr)")
            #expect(run.stderr.contains("Usage: folio \(arguments[0])"), "\(arguments)")
            #expect(run.stdout.isEmpty, "\(arguments)")
        }
    }

    @Test func storeProblemsExit1WithAHelpLineAndNoStackTrace() throws {
        let scratch = ScratchDirectory()
        defer { scratch.remove() }
        let missing = try folio("info", scratch.appending("nope").path)
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("Error: No store at"))
        #expect(missing.stderr.contains("Help: "))
        let notAStore = try folio("cat", scratch.path, "Trip")
        #expect(notAStore.status == 1)
        #expect(notAStore.stderr.contains("is not a Folio store"))
        for run in [missing, notAStore] {
            #expect(!run.stderr.contains("Fatal error"))
            #expect(!run.stderr.contains("Stack dump"))
            #expect(!run.stderr.contains("0x0"))
        }
    }

    @Test func noColourWhenNotATerminal() throws {
        let run = try folio("log", DemoStore.path, "--stat", "-p")
        #expect(run.status == 0)
        #expect(!run.stdout.contains("\u{1B}["))
    }

    /// Runs folio under `script`, which gives it a terminal for standard output and standard error.
    static func viaTerminal(_ arguments: String, _ environment: [String: String]) throws -> String {
        let executable = try #require(folioExecutable())
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        process.arguments = ["-qec", "\(executable.path) \(arguments)", "/dev/null"]
        var env = ProcessInfo.processInfo.environment
        env["NO_COLOR"] = nil
        env["TERM"] = "xterm"
        for (key, value) in environment { env[key] = value }
        process.environment = env
        let out = Pipe()
        process.standardOutput = out
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    /// On a terminal: colour, and never with NO_COLOR.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script")))
    func colourOnlyOnATerminalAndNeverWithNoColor() throws {
        let coloured = try Self.viaTerminal("info \(DemoStore.path)", [:])
        #expect(coloured.contains("\u{1B}[1m"))
        let plain = try Self.viaTerminal("info \(DemoStore.path)", ["NO_COLOR": "1"])
        #expect(plain.contains("Trip"))
        #expect(!plain.contains("\u{1B}["))
        let table = try Self.viaTerminal("cat \(DemoStore.path) Cookbook", ["NO_COLOR": "1"])
        #expect(table.contains("ID  title"), "a table on a terminal")
    }

    /// Progress with a count and a rate appears on a terminal only, and never with NO_COLOR.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script")))
    func progressOnlyOnATerminal() throws {
        let scratch = ScratchDirectory()
        defer { scratch.remove() }
        let arguments = "export \(DemoStore.path) -o \(scratch.appending("all.jsonl").path)"
        let shown = try Self.viaTerminal(arguments, ["FOLIO_PROGRESS_AFTER": "0"])
        #expect(shown.contains("Exporting: "), "\(shown)")
        #expect(shown.contains("/5007 ("))
        #expect(shown.contains("/s)"))
        let quiet = try Self.viaTerminal(arguments, ["FOLIO_PROGRESS_AFTER": "0", "NO_COLOR": "1"])
        #expect(!quiet.contains("Exporting: "))
        let piped = try folio(arguments: arguments.split(separator: " ").map(String.init), environment: ["FOLIO_PROGRESS_AFTER": "0"])
        #expect(!piped.stderr.contains("Exporting: "))
    }
}
