import Foundation
import FolioStorage
import Testing
@testable import folio

/// A git repository in a scratch directory, with git and folio run in it as a user would, but without
/// the user's or the system's git configuration.
struct GitSandbox {
    static let gitExecutable = URL(fileURLWithPath: "/usr/bin/git")
    static var gitExists: Bool { FileManager.default.isExecutableFile(atPath: gitExecutable.path) }

    let scratch: ScratchDirectory
    /// The work tree's top.
    let top: URL

    /// A new repository, `repo` in a new scratch directory.
    init(_ name: String = #function) throws {
        scratch = ScratchDirectory(name)
        // Symbolic links resolved, as git prints the top (the temporary directory may be one).
        top = URL(fileURLWithPath: FilePaths.real(scratch.path) ?? scratch.path).appendingPathComponent("repo")
        try FileManager.default.createDirectory(at: top, withIntermediateDirectories: true)
        try git("init", "-q", "-b", "main")
    }

    func remove() { scratch.remove() }

    /// No user or system configuration; a committer identity; nothing above the scratch directory is
    /// taken for a repository.
    var environment: [String: String] {
        [
            "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": "/dev/null", "HOME": scratch.path, "GIT_PAGER": "cat",
            "GIT_CEILING_DIRECTORIES": scratch.url.deletingLastPathComponent().path,
            "GIT_AUTHOR_NAME": "Test", "GIT_AUTHOR_EMAIL": "test@example.com", "GIT_COMMITTER_NAME": "Test",
            "GIT_COMMITTER_EMAIL": "test@example.com",
        ]
    }

    /// Runs git in the work tree (or `directory`); requires exit 0 unless told otherwise.
    @discardableResult
    func git(_ arguments: String..., in directory: URL? = nil, allowFailure: Bool = false) throws -> FolioRun {
        let result = try run(Self.gitExecutable, arguments: arguments, environment: environment, directory: directory ?? top)
        if !allowFailure { try #require(result.status == 0, "git \(arguments.joined(separator: " ")): \(result)") }
        return result
    }

    /// Runs `folio git-setup ARGUMENTS` in the work tree (or `directory`).
    func setup(_ arguments: String..., in directory: URL? = nil) throws -> FolioRun {
        try folio(arguments: ["git-setup"] + arguments, environment: environment, directory: directory ?? top)
    }

    /// Writes a small store (one Trip) at `path` below the top.
    @discardableResult
    func store(_ path: String) throws -> URL {
        let url = top.appendingPathComponent(path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try TripStores.write(to: url) { t in
            t.setSchema(TripStores.schema("1.0.0"))
            try t.insert(entity: "Trip", id: t.allocateID(), values: ["name": .string("Oslo"), "price": .double(80.0)])
        }
        return url
    }

    func file(_ name: String) -> URL { top.appendingPathComponent(name) }

    func text(_ name: String) throws -> String { try String(contentsOf: file(name), encoding: .utf8) }

    func bytes(_ name: String) throws -> Data { try Data(contentsOf: file(name)) }

    func write(_ name: String, _ text: String) throws { try Data(text.utf8).write(to: file(name)) }

    /// `attribute → value` for one path, from `git check-attr`.
    func attributes(_ path: String) throws -> [String: String] {
        let fields = try git("check-attr", "-z", "merge", "diff", "text", "--", path).stdout.split(separator: "\0").map(String.init)
        var result: [String: String] = [:]
        var index = 0
        while index + 2 < fields.count {
            result[fields[index + 1]] = fields[index + 2]
            index += 3
        }
        return result
    }

    /// The value of a local configuration key, or nil.
    func config(_ key: String) throws -> String? {
        let run = try git("config", "--local", "--get", key, allowFailure: true)
        return run.status == 0 ? String(run.stdout.dropLast()) : nil
    }
}

@Suite("folio git-setup", .enabled(if: GitSandbox.gitExists))
struct GitSetupCommandTests {
    static let folioDriverFiles = ["journal.jsonl", "history.jsonl", "manifest.json", "snapshots/Trip.jsonl"]

    @Test func writesTheBlocksAndRegistersTheDrivers() throws {
        let sandbox = try GitSandbox()
        defer { sandbox.remove() }
        try sandbox.store("Trips.folio")
        let run = try sandbox.setup()
        #expect(run.status == 0, "\(run)")
        #expect(run.stderr.isEmpty, "\(run)")
        #expect(
            try sandbox.text(".gitattributes") == """
                # folio git-setup: Trips.folio (managed by 'folio git-setup'; edit with care)
                Trips.folio/journal.jsonl merge=folio diff=folio -text
                Trips.folio/history.jsonl merge=folio diff=folio -text
                Trips.folio/manifest.json merge=folio diff=folio -text
                Trips.folio/snapshots/*.jsonl merge=folio diff=folio -text
                Trips.folio/blobs/** binary

                """)
        #expect(
            try sandbox.text(".gitignore") == """
                # folio git-setup: Trips.folio (managed by 'folio git-setup'; edit with care)
                Trips.folio/lock
                Trips.folio/**/*.tmp-*
                Trips.folio/cache/
                Trips.folio/journal.jsonl.corrupt-tail
                Trips.folio/**/*.damaged
                Trips.folio/**/*.backup-*Z
                /Trips.folio.backup-*/

                """)
        for name in Self.folioDriverFiles {
            #expect(try sandbox.attributes("Trips.folio/\(name)") == ["merge": "folio", "diff": "folio", "text": "unset"], "\(name)")
        }
        #expect(try sandbox.attributes("Trips.folio/blobs/ab/abcd") == ["merge": "unset", "diff": "unset", "text": "unset"])

        let executable = try #require(folioExecutable().flatMap { FilePaths.real($0.path) })
        #expect(try sandbox.config("merge.folio.name") == "Folio store merge")
        let driver = try #require(try sandbox.config("merge.folio.driver"))
        #expect(driver.hasSuffix("merge-driver %O %A %B %P"), "\(driver)")
        #expect(driver == "\(executable) merge-driver %O %A %B %P")
        #expect(try sandbox.config("diff.folio.textconv") == "\(executable) textconv --")
        #expect(try sandbox.config("diff.folio.cachetextconv") == "true")

        // One line per change, then what every clone must do.
        #expect(
            run.stdout.hasPrefix(
                """
                .gitattributes: added the block for Trips.folio (a new file)
                .gitignore: added the block for Trips.folio (a new file)
                merge.folio.name: set to "Folio store merge"
                merge.folio.driver: set to "\(driver)"

                """), "\(run)")
        #expect(run.stdout.contains("every new clone must run 'folio git-setup' once"), "\(run)")
        #expect(run.stdout.contains("CI system"), "\(run)")
        #expect(run.stdout.contains("Commit .gitattributes and\n.gitignore") || run.stdout.contains("Commit .gitattributes and .gitignore"), "\(run)")

        // The lock is left out of commits; the store's files are not.
        let status = try sandbox.git("status", "--porcelain", "-uall").stdout
        #expect(!status.contains("Trips.folio/lock"), "\(status)")
        #expect(status.contains("Trips.folio/journal.jsonl"), "\(status)")
        #expect(status.contains(".gitattributes") && status.contains(".gitignore"), "\(status)")
    }

    @Test func aSecondRunChangesNothingAndSaysSo() throws {
        let sandbox = try GitSandbox()
        defer { sandbox.remove() }
        try sandbox.store("Trips.folio")
        try sandbox.write(".gitattributes", "*.png binary\n")
        #expect(try sandbox.setup().status == 0)
        let attributes = try sandbox.bytes(".gitattributes"), ignore = try sandbox.bytes(".gitignore")
        let config = try sandbox.bytes(".git/config")
        let modified = try FileManager.default.attributesOfItem(atPath: sandbox.file(".gitattributes").path)[.modificationDate] as? Date

        let again = try sandbox.setup()
        #expect(again.status == 0, "\(again)")
        #expect(again.stdout.hasPrefix("Everything was already set up for 1 store (Trips.folio): nothing changed.\n"), "\(again)")
        #expect(!again.stdout.contains(".gitattributes:") && !again.stdout.contains("merge.folio"), "\(again)")
        #expect(again.stdout.contains("every new clone must run 'folio git-setup' once"), "\(again)")
        #expect(try sandbox.bytes(".gitattributes") == attributes)
        #expect(try sandbox.bytes(".gitignore") == ignore)
        #expect(try sandbox.bytes(".git/config") == config)
        #expect(
            try FileManager.default.attributesOfItem(atPath: sandbox.file(".gitattributes").path)[.modificationDate] as? Date == modified,
            "the file is not rewritten")
    }

    @Test func keepsTheUsersLinesAndRemovesThePreviousDocsSettings() throws {
        let sandbox = try GitSandbox()
        defer { sandbox.remove() }
        try sandbox.store("Trips.folio")
        // The user's lines (one with CRLF, one without a final newline) around the settings docs/git.md gave before.
        let previous = """
            # Journals and history only ever grow at the end: a union merge keeps both branches' new lines,
            # and `folio repair` renumbers them (see below). No CRLF conversion on any store file.
            journal.jsonl          merge=union  -text diff=folio
            history.jsonl          merge=union  -text diff=folio
            # Snapshots and the manifest are rewritten as a whole by compaction: never mix two versions line by line.
            **/snapshots/*.jsonl   merge=binary -text diff=folio
            manifest.json          merge=binary -text diff=folio
            **/blobs/**            binary
            """
        try sandbox.write(".gitattributes", "# my settings\n*.png binary\r\n\(previous)\n*.md  text   eol=lf")
        let run = try sandbox.setup()
        #expect(run.status == 0, "\(run)")
        #expect(
            run.stdout.contains(
                ".gitattributes: removed line 5 'journal.jsonl          merge=union  -text diff=folio', from the settings docs/git.md gave before 'folio git-setup'\n"
            ), "\(run)")
        #expect(run.stdout.contains(".gitattributes: removed line 10 '**/blobs/**            binary'"), "\(run)")
        #expect(run.stdout.contains(".gitattributes: removed the comments of the previous settings\n"), "\(run)")
        let text = try sandbox.text(".gitattributes")
        let kept = "# my settings\n*.png binary\r\n*.md  text   eol=lf\n"
        #expect(text.hasPrefix(kept + "\n# folio git-setup: Trips.folio "), "\(text)")
        #expect(!text.contains("merge=union") && !text.contains("merge=binary") && !text.contains("Journals and history"), "\(text)")
        #expect(try sandbox.attributes("Trips.folio/journal.jsonl") == ["merge": "folio", "diff": "folio", "text": "unset"])
        #expect(try sandbox.attributes("Trips.folio/snapshots/Trip.jsonl")["merge"] == "folio")
        #expect(try sandbox.attributes("picture.png") == ["merge": "unset", "diff": "unset", "text": "unset"], "the user's line still applies")

        // A line for the store's files right after the block belongs to the block: a run puts the block back.
        try sandbox.write(".gitattributes", text + "Trips.folio/journal.jsonl merge=union\n")
        let edited = try sandbox.setup("--check")
        #expect(edited.status == 1, "\(edited)")
        #expect(edited.stdout.hasPrefix(".gitattributes: the block for Trips.folio differs from what 'folio git-setup' writes\n"), "\(edited)")
        #expect(try sandbox.setup().stdout.hasPrefix(".gitattributes: replaced the block for Trips.folio, which differed\n"))
        #expect(try sandbox.text(".gitattributes") == text)

        // Any other line after the blocks stays the user's: the blocks move after it, since the last line wins.
        try sandbox.write(".gitattributes", text + "\n*.jsonl -diff\n")
        let check = try sandbox.setup("--check")
        #expect(check.status == 1, "\(check)")
        #expect(check.stdout.contains(".gitattributes: has lines after the folio git-setup blocks"), "\(check)")
        let moved = try sandbox.setup()
        #expect(moved.stdout.contains(".gitattributes: moved the folio git-setup blocks after the lines that followed them"), "\(moved)")
        #expect(try sandbox.text(".gitattributes").hasPrefix(kept + "\n*.jsonl -diff\n\n# folio git-setup: Trips.folio "))
        #expect(try sandbox.attributes("Trips.folio/journal.jsonl")["diff"] == "folio")
        #expect(try sandbox.setup("--check").status == 0)
    }

    @Test func thePreviousSettingsStayWhileAStoreTheyCoverHasNoBlock() throws {
        let sandbox = try GitSandbox()
        defer { sandbox.remove() }
        try sandbox.store("Trips.folio")
        try sandbox.store("Notes.folio")
        try sandbox.write(".gitattributes", "journal.jsonl          merge=union  -text diff=folio\n")
        let one = try sandbox.setup("Trips.folio")
        #expect(one.status == 0, "\(one)")
        #expect(
            one.stderr.contains(
                "kept line 1 'journal.jsonl          merge=union  -text diff=folio' of the previous settings: it also sets the files of Notes.folio"),
            "\(one)")
        #expect(try sandbox.attributes("Notes.folio/journal.jsonl")["merge"] == "union")
        #expect(try sandbox.attributes("Trips.folio/journal.jsonl")["merge"] == "folio")
        let all = try sandbox.setup()
        #expect(all.stdout.contains(".gitattributes: removed line 1 "), "\(all)")
        #expect(try sandbox.attributes("Notes.folio/journal.jsonl")["merge"] == "folio")
    }

    @Test func checkChangesNothingAndExits1UntilAllIsSetUp() throws {
        let sandbox = try GitSandbox()
        defer { sandbox.remove() }
        try sandbox.store("Trips.folio")
        let before = try sandbox.setup("--check")
        #expect(before.status == 1, "\(before)")
        #expect(before.stdout.contains(".gitattributes: does not exist: the block for Trips.folio is missing\n"), "\(before)")
        #expect(before.stdout.contains("merge.folio.driver: not set; should be \""), "\(before)")
        #expect(before.stdout.contains("Not set up for Trips.folio: 6 missing or different (run 'folio git-setup' to set them up)."), "\(before)")
        #expect(!FileManager.default.fileExists(atPath: sandbox.file(".gitattributes").path))
        #expect(!FileManager.default.fileExists(atPath: sandbox.file(".gitignore").path))
        #expect(try sandbox.config("merge.folio.driver") == nil)

        #expect(try sandbox.setup().status == 0)
        let after = try sandbox.setup("--check")
        #expect(after.status == 0, "\(after)")
        #expect(after.stdout == "Everything is set up for 1 store (Trips.folio).\n")

        // A value that differs is reported, then replaced old → new.
        let driver = try #require(try sandbox.config("merge.folio.driver"))
        try sandbox.git("config", "diff.folio.textconv", "folio textconv --")
        let changed = try sandbox.setup("--check")
        #expect(changed.status == 1)
        #expect(changed.stdout.hasPrefix("diff.folio.textconv: \"folio textconv --\"; should be \""), "\(changed)")
        let fixed = try sandbox.setup()
        #expect(
            fixed.stdout.hasPrefix(
                "diff.folio.textconv: \"folio textconv --\" → \"\(driver.dropLast(" merge-driver %O %A %B %P".count)) textconv --\"\n"), "\(fixed)")
        #expect(try sandbox.setup("--check").status == 0)

        // What git sees is checked too: a rule elsewhere that ignores the journal.
        try Data("*.jsonl\n".utf8).write(to: sandbox.file(".git/info/exclude"))
        let ignored = try sandbox.setup("--check")
        #expect(ignored.status == 1, "\(ignored)")
        #expect(
            ignored.stdout.contains(
                "Trips.folio/journal.jsonl, Trips.folio/history.jsonl, Trips.folio/snapshots/*.jsonl are ignored (.git/info/exclude:1: *.jsonl)"),
            "\(ignored)")
    }

    @Test func outsideAGitWorkTreeItFailsWithATypedError() throws {
        let scratch = ScratchDirectory()
        defer { scratch.remove() }
        let run = try folio(
            arguments: ["git-setup"], environment: ["GIT_CEILING_DIRECTORIES": scratch.url.deletingLastPathComponent().path],
            directory: scratch.url)
        #expect(run.status == 1, "\(run)")
        #expect(run.stdout.isEmpty)
        #expect(run.stderr.contains("is not inside a git work tree"), "\(run)")
        #expect(run.stderr.contains("Help: "), "\(run)")
        #expect(!FileManager.default.fileExists(atPath: scratch.appending(".gitattributes").path))
        let check = try folio(
            arguments: ["git-setup", "--check"], environment: ["GIT_CEILING_DIRECTORIES": scratch.url.deletingLastPathComponent().path],
            directory: scratch.url)
        #expect(check.status == 1 && check.stderr.contains("is not inside a git work tree"), "\(check)")
    }

    @Test func aStoreArgumentThatIsNoStoreIsAnErrorNamingIt() throws {
        let sandbox = try GitSandbox()
        defer { sandbox.remove() }
        try sandbox.store("Trips.folio")
        try FileManager.default.createDirectory(at: sandbox.file("notes"), withIntermediateDirectories: true)
        let outside = try TripStores.make(sandbox.scratch).a
        let cases: [(String, String)] = [
            ("notes", "'notes' is not a Folio store"),
            ("missing.folio", "No store at 'missing.folio'"),
            (outside.path, "The store '\(outside.path)' is outside the git work tree"),
        ]
        for (argument, message) in cases {
            let run = try sandbox.setup("Trips.folio", argument)
            #expect(run.status == 1, "\(argument): \(run)")
            #expect(run.stderr.contains(message), "\(argument): \(run)")
            #expect(!FileManager.default.fileExists(atPath: sandbox.file(".gitattributes").path), "nothing is written")
            #expect(try sandbox.config("merge.folio.driver") == nil)
        }
    }

    @Test func withoutArgumentsItFindsEveryStoreButNotInsideBuildGitOrABackup() throws {
        let sandbox = try GitSandbox()
        defer { sandbox.remove() }
        try sandbox.store("Trips.folio")
        try sandbox.store("data/archive/2025/Notes.folio")
        try sandbox.store(".build/debug/Fixture.folio")
        try FileManager.default.copyItem(at: sandbox.file("Trips.folio"), to: sandbox.file("Trips.folio.backup-2026-01-01T00-00-00.000Z"))
        let run = try sandbox.setup()
        #expect(run.status == 0, "\(run)")
        #expect(run.stdout.contains("Set up 2 stores for git: Trips.folio, data/archive/2025/Notes.folio."), "\(run)")
        #expect(try sandbox.attributes("data/archive/2025/Notes.folio/journal.jsonl")["merge"] == "folio")
        #expect(try sandbox.attributes("Trips.folio/journal.jsonl")["merge"] == "folio")
        let attributes = try sandbox.text(".gitattributes")
        #expect(!attributes.contains("Fixture") && !attributes.contains("backup"), "\(attributes)")
        #expect(try sandbox.text(".gitignore").contains("data/archive/2025/Notes.folio/lock\n"))
        // The backup is ignored; the second store's lock too.
        let status = try sandbox.git("status", "--porcelain", "-uall").stdout
        #expect(!status.contains("backup") && !status.contains("Trips.folio/lock") && !status.contains("Notes.folio/lock"), "\(status)")

        // From a subdirectory, with several STORE arguments relative to it.
        let sub = try sandbox.setup("2025/Notes.folio", "../../Trips.folio", "--check", in: sandbox.file("data/archive"))
        #expect(sub.status == 0, "\(sub)")
        #expect(sub.stdout == "Everything is set up for 2 stores (data/archive/2025/Notes.folio, Trips.folio).\n", "\(sub)")
        #expect(try folio("help", "git-setup").stdout.contains("USAGE: folio git-setup [STORE...] [options]"))
    }

    @Test func pathsWithSpacesAreQuotedTheWayGitReadsThem() throws {
        let sandbox = try GitSandbox()
        defer { sandbox.remove() }
        try sandbox.store("My Trips [2026].folio")
        let run = try sandbox.setup()
        #expect(run.status == 0, "\(run)")
        let text = try sandbox.text(".gitattributes")
        #expect(text.contains("\n\"My Trips \\\\[2026].folio/journal.jsonl\" merge=folio diff=folio -text\n"), "\(text)")
        #expect(try sandbox.text(".gitignore").contains("\nMy Trips \\[2026].folio/lock\n"))
        #expect(try sandbox.attributes("My Trips [2026].folio/journal.jsonl") == ["merge": "folio", "diff": "folio", "text": "unset"])
        #expect(try sandbox.attributes("My Trips 2.folio/journal.jsonl")["merge"] == "unspecified", "the brackets are not a character class")
        #expect(!(try sandbox.git("status", "--porcelain", "-uall").stdout.contains("lock")))
        #expect(try sandbox.setup("--check").status == 0)
    }

    /// The drivers as registered run through git and the shell, from a path that needs quoting (a space,
    /// a quote and a `%`, which the merge driver would otherwise expand): a stand-in for folio records
    /// its arguments.
    @Test func theRegisteredDriversRunFromAPathThatNeedsQuoting() throws {
        let sandbox = try GitSandbox()
        defer { sandbox.remove() }
        let directory = sandbox.scratch.appending("it's 100%O folio")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let standIn = directory.appendingPathComponent("folio")
        try Data(
            """
            #!/bin/sh
            case "$1" in
            merge-driver) printf 'merged %s\\n' "$5" > "$3" ;;
            textconv) echo "converted"; cat "$3" ;;
            esac

            """.utf8
        ).write(to: standIn)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: standIn.path)
        for setting in GitSetupCommand.settings(executable: standIn.path) {
            try sandbox.git("config", setting.key, setting.value)
        }
        #expect(try sandbox.config("diff.folio.textconv") == "'\(directory.path.replacingOccurrences(of: "'", with: "'\\''"))/folio' textconv --")
        #expect(try sandbox.config("merge.folio.driver")?.contains("100%%O folio") == true)

        try sandbox.write(".gitattributes", "*.jsonl merge=folio diff=folio -text\n")
        try sandbox.write("journal.jsonl", "base\n")
        try sandbox.git("add", "-A")
        try sandbox.git("commit", "-q", "-m", "base")
        try sandbox.git("checkout", "-q", "-b", "side")
        try sandbox.write("journal.jsonl", "side\n")
        try sandbox.git("commit", "-q", "-am", "side")
        try sandbox.git("checkout", "-q", "main")
        try sandbox.write("journal.jsonl", "main\n")
        #expect(try sandbox.git("diff").stdout.contains("+converted\n") == false, "both sides convert alike")
        #expect(try sandbox.git("diff").stdout.contains("+main\n"), "the textconv ran")
        try sandbox.git("commit", "-q", "-am", "main")
        try sandbox.git("merge", "-q", "side", "-m", "merge")
        #expect(try sandbox.text("journal.jsonl") == "merged journal.jsonl\n")
    }
}

/// The edits of `.gitattributes` and `.gitignore`, without git.
@Suite("folio git-setup's pattern files")
struct GitSetupPatternFileTests {
    static func update(_ text: String?, _ kind: PatternFileKind = .attributes, stores: [String], every: [String]? = nil) throws -> PatternFileUpdate {
        let stores = try stores.map { path throws -> GitSetupStore in try GitSetupStore(relativePath: path) }
        let every = try (every ?? stores.map(\.relativePath)).map { path throws -> GitSetupStore in try GitSetupStore(relativePath: path) }
        return PatternFileUpdate.make(kind, original: text.map { Array($0.utf8) }, stores: stores, everyStore: every)
    }

    static func text(_ update: PatternFileUpdate) -> String { String(decoding: update.updated, as: UTF8.self) }

    @Test func anUpdatedFileNeedsNoFurtherUpdate() throws {
        for kind in [PatternFileKind.attributes, .ignore] {
            for original in [
                nil, "", "*.png binary", "*.png binary\n\n\n",
                "a\n# folio git-setup: B.folio (managed by 'folio git-setup'; edit with care)\nB.folio/x\n\nb\n",
            ] {
                let first = try Self.update(original, kind, stores: ["A.folio", "data/B.folio", ""])
                #expect(!first.changes.isEmpty)
                let second = try Self.update(Self.text(first), kind, stores: ["A.folio", "data/B.folio", ""])
                #expect(second.changes.isEmpty, "\(kind) \(String(describing: original)): \(second.changes)")
                #expect(second.updated == first.updated)
                #expect(second.upToDate == ["A.folio", "data/B.folio", "."])
            }
        }
    }

    @Test func aSecondBlockForAStoreIsDroppedAndAChangedOneReplaced() throws {
        let marker = "# folio git-setup: A.folio (managed by 'folio git-setup'; edit with care)"
        let original = "\(marker)\nA.folio/journal.jsonl merge=union\n*.png binary\n\n\(marker)\nA.folio/lock\n"
        let update = try Self.update(original, stores: ["A.folio"])
        #expect(
            update.changes.map(\.done) == [
                "removed a second block for A.folio",
                "moved the folio git-setup blocks after the lines that followed them (the last matching line wins)",
                "replaced the block for A.folio, which differed",
            ])
        let store = try GitSetupStore(relativePath: "A.folio")
        #expect(Self.text(update) == "*.png binary\n\n" + ([marker] + store.attributeLines).joined(separator: "\n") + "\n")
    }

    @Test func theBlocksOfOtherStoresAreKept() throws {
        let other = "# folio git-setup: B.folio (managed by 'folio git-setup'; edit with care)\nB.folio/journal.jsonl merge=folio\n"
        let update = try Self.update(other, stores: ["A.folio"], every: ["A.folio", "B.folio"])
        #expect(Self.text(update).hasPrefix(other + "\n# folio git-setup: A.folio "))
        #expect(update.notes.isEmpty)
        let gone = try Self.update(other, stores: ["A.folio"])
        #expect(gone.notes == [".gitattributes: kept the block for B.folio, which is not a store in this work tree (delete it if the store is gone)"])
    }

    @Test func previousSettingsAreRecognisedExactly() throws {
        let stores = ["Trips.folio", "data/Notes.folio"]
        #expect(PreviousSettingsLine.parse("journal.jsonl merge=union -text diff=folio", stores: stores) == PreviousSettingsLine(store: nil))
        #expect(PreviousSettingsLine.parse("history.jsonl\tdiff=folio  -text merge=union", stores: stores) == PreviousSettingsLine(store: nil))
        #expect(PreviousSettingsLine.parse("*.jsonl diff=folio", stores: stores) == PreviousSettingsLine(store: nil))
        #expect(
            PreviousSettingsLine.parse("data/Notes.folio/snapshots/*.jsonl merge=binary -text diff=folio", stores: stores)
                == PreviousSettingsLine(store: "data/Notes.folio"))
        for line in [
            "journal.jsonl merge=union -text", "journal.jsonl merge=union -text diff=folio eol=lf",
            "other/journal.jsonl merge=union -text diff=folio",
            "*.jsonl diff=folio -text", "manifest.json merge=union -text diff=folio", "# journal.jsonl merge=union -text diff=folio",
        ] {
            #expect(PreviousSettingsLine.parse(line, stores: stores) == nil, "\(line)")
        }
    }

    @Test func patternsEscapeWhatGitWouldReadAsAGlobOrAComment() throws {
        #expect(GitPattern.escaped("Trips.folio") == "Trips.folio")
        #expect(GitPattern.escaped("a*b?[c]\\d") == "a\\*b\\?\\[c]\\\\d")
        #expect(GitPattern.escaped("#x/!y") == "\\#x/!y")
        #expect(GitPattern.escaped("!x") == "\\!x")
        #expect(GitPattern.attributes("My Trips.folio/journal.jsonl") == "\"My Trips.folio/journal.jsonl\"")
        #expect(GitPattern.attributes("say \"hi\"/x") == "\"say \\\"hi\\\"/x\"")
        #expect(GitPattern.shellQuoted("/usr/local/bin/folio") == "/usr/local/bin/folio")
        #expect(GitPattern.shellQuoted("/opt/my tools/it's/folio") == "'/opt/my tools/it'\\''s/folio'")
        #expect(throws: GitSetupError.unsupportedPath("a\nb")) { try GitSetupStore(relativePath: "a\nb") }
        let settings = GitSetupCommand.settings(executable: "/opt/100%/folio")
        #expect(settings.map(\.value) == ["Folio store merge", "/opt/100%%/folio merge-driver %O %A %B %P", "/opt/100%/folio textconv --", "true"])
    }
}
