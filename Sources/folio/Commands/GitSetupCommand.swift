import Foundation

/// `folio git-setup [STORE...]`: prepares the git repository a store is kept in, so that git merges and
/// diffs the store's files with `folio` and leaves its machine-local files alone.
///
/// It writes one block per store into `.gitattributes` and `.gitignore` at the work tree's top (found
/// again by its comment line, and replaced, on a later run) and registers the `folio` merge and diff
/// drivers in the repository's own configuration, which git does not clone: every clone runs it once.
/// A second run changes nothing. `--check` changes nothing either, and exits with 1 when something is
/// missing or different.
enum GitSetupCommand: FolioSubcommand {
    static let spec = CommandSpec(
        name: "git-setup", abstract: "Set up a git repository for its stores: attributes, ignore rules, merge and diff drivers.",
        discussion: """
            Run inside a git work tree. For each store (every store in the work tree when none is given), writes
            a block into .gitattributes at the top (journal, history, manifest and snapshots merged and diffed
            by folio, no line-ending conversion, blobs binary) and one into .gitignore (the lock, caches,
            temporary files and what repair leaves), each starting with a '# folio git-setup: STORE' comment
            line so that a later run replaces it. Lines of the settings docs/git.md gave before are removed;
            other lines are kept as they are. Then registers, with 'git config --local', the merge driver
            (folio merge-driver) and the diff driver (folio textconv, cached), naming this folio by its
            absolute path. Git does not clone .git/config: every clone, and every CI system that merges
            stores, must run 'folio git-setup' once. A second run changes nothing. With --check, changes
            nothing and exits with 1 when anything is missing or different, 0 when all is set up.
            """,
        arguments: [
            .init(name: "STORE", help: "A store directory in the work tree (default: every store in it).", isOptional: true, isVariadic: true)
        ],
        options: [.flag("--check", help: "Change nothing: list what is missing or different, exit 1 if anything is.")],
        examples: ["folio git-setup", "folio git-setup Trips.folio data/Notes.folio", "folio git-setup --check"])

    /// One `git config --local` setting the drivers need.
    struct Setting: Equatable {
        var key: String
        var value: String
        /// A boolean: `yes`, `on` and `1` count as `true`.
        var isBoolean = false

        /// Whether the values git holds for the key are this setting.
        func isMet(by values: [String]) -> Bool {
            guard values.count == 1, let current = values.first else { return false }
            if isBoolean, value == "true" { return ["true", "yes", "on", "1"].contains(current.lowercased()) }
            return current == value
        }
    }

    /// The settings for the `folio` at `executable`, an absolute path.
    ///
    /// Git runs both commands through the shell, so the path is quoted for sh when it needs it; in the
    /// merge driver, where git replaces `%O`, `%A`, `%B` and `%P`, a `%` of the path is written `%%`.
    static func settings(executable: String) -> [Setting] {
        let folio = GitPattern.shellQuoted(executable)
        return [
            Setting(key: "merge.folio.name", value: "Folio store merge"),
            Setting(key: "merge.folio.driver", value: "\(folio.replacingOccurrences(of: "%", with: "%%")) merge-driver %O %A %B %P"),
            Setting(key: "diff.folio.textconv", value: "\(folio) textconv --"),
            Setting(key: "diff.folio.cachetextconv", value: "true", isBoolean: true),
        ]
    }

    /// What each clone must know, printed after every run that sets up.
    static let cloneAdvice = """
        Git does not copy .git/config into a clone, so the drivers registered there exist in this clone only:
        every new clone must run 'folio git-setup' once, and so must a CI system that merges, rebases or diffs
        branches holding a store ('folio git-setup --check' exits with 1 where it is missing). Without the
        drivers, git merges the store files line by line as text and diffs show raw JSON lines. The drivers
        name this folio by its path: run 'folio git-setup' again after moving it. Commit .gitattributes and
        .gitignore, which travel with the repository.
        """

    static func run(_ arguments: ParsedArguments, console: Console) throws -> Int32 {
        do {
            return try setUp(arguments.positionals, check: arguments.flag("--check"), console: console)
        } catch {
            throw error.failure
        }
    }

    /// Sets up (or with `check`, checks) the stores named by `paths`, or every store in the work tree.
    static func setUp(_ paths: [String], check: Bool, console: Console) throws(GitSetupError) -> Int32 {
        let repository = try GitRepository.find()
        let top = FilePaths.real(repository.top) ?? repository.top
        // Every store, even when some are named: the previous settings are removed only once all have a block.
        var everyStore: [GitSetupStore] = []
        for path in StoreDiscovery.stores(under: top) {
            guard let relative = relativePath(of: path, top: top) else { continue }
            do {
                everyStore.append(try GitSetupStore(relativePath: relative))
            } catch {
                // A store whose path the files cannot spell fails a run meant for it, not one naming other stores.
                if paths.isEmpty { throw error }
            }
        }
        var stores: [GitSetupStore] = []
        for path in paths {
            let store = try store(named: path, top: top)
            if !stores.contains(store) { stores.append(store) }
        }
        if paths.isEmpty { stores = everyStore }
        guard !stores.isEmpty else { throw .noStores(top) }
        let known = everyStore + stores.filter { !everyStore.contains($0) }
        guard let executable = FilePaths.runningExecutable() else { throw .executableUnknown }

        var updates: [PatternFileUpdate] = []
        for kind in [PatternFileKind.attributes, .ignore] {
            let original = try read(top + "/" + kind.fileName)
            updates.append(PatternFileUpdate.make(kind, original: original, stores: stores, everyStore: known))
        }
        var configuration: [(setting: Setting, current: [String])] = []
        for setting in settings(executable: executable) {
            configuration.append((setting, try repository.localValues(setting.key)))
        }
        let labels = stores.map(\.label).joined(separator: ", ")
        let storeCount = stores.count == 1 ? "1 store" : "\(stores.count) stores"

        for note in updates.flatMap(\.notes) { console.warning(note) }
        var missing = 0
        for update in updates {
            if !check, update.changesFile { try write(update.updated, to: top + "/" + update.kind.fileName) }
            for change in update.changes {
                console.print("\(update.kind.fileName): \(check ? change.needed : change.done)")
                missing += 1
            }
        }
        for (setting, current) in configuration where !setting.isMet(by: current) {
            if check {
                console.print("\(setting.key): \(current.isEmpty ? "not set" : describe(current)); should be \"\(setting.value)\"")
            } else {
                try repository.setLocal(setting.key, setting.value)
                console.print(
                    current.isEmpty ? "\(setting.key): set to \"\(setting.value)\"" : "\(setting.key): \(describe(current)) → \"\(setting.value)\"")
            }
            missing += 1
        }

        // What git makes of the files: checked where they are (or now are) as folio writes them.
        let filesChecked = updates.map { check && $0.changesFile ? [] : stores }
        let problems = try effectiveProblems(repository, stores: stores, attributes: filesChecked[0], ignore: filesChecked[1])
        if check {
            for problem in problems { console.print(problem) }
            if missing + problems.count == 0 {
                console.print("Everything is set up for \(storeCount) (\(labels)).")
                return ExitCode.success
            }
            var summary: [String] = []
            if missing > 0 { summary.append("\(missing) missing or different (run 'folio git-setup' to set \(missing == 1 ? "it" : "them") up)") }
            if !problems.isEmpty { summary.append("\(problems.count) overridden or ignored elsewhere (change the rules named above)") }
            console.print("Not set up for \(labels): \(summary.joined(separator: "; ")).")
            return ExitCode.failure
        }
        for problem in problems { console.warning(problem) }
        if missing == 0 {
            console.print("Everything was already set up for \(storeCount) (\(labels)): nothing changed.")
        } else {
            console.print("Set up \(storeCount) for git: \(labels).")
        }
        if !problems.isEmpty {
            console.print(
                "Git does not see \(problems.count == 1 ? "one of the settings" : "\(problems.count) of the settings") as written: see the warnings.")
        }
        console.print()
        console.print(cloneAdvice)
        return problems.isEmpty ? ExitCode.success : ExitCode.failure
    }

    /// The store a STORE argument names, relative to `top`.
    static func store(named path: String, top: String) throws(GitSetupError) -> GitSetupStore {
        guard let real = FilePaths.real(path) else { throw .noSuchDirectory(path) }
        guard StoreDiscovery.kind(of: real) == .directory else { throw .notAStore(path) }
        guard let relative = relativePath(of: real, top: top) else { throw .outsideWorkTree(path, top: top) }
        guard StoreDiscovery.isStore(real, strict: false) else { throw .notAStore(path) }
        return try GitSetupStore(relativePath: relative)
    }

    /// `path` relative to `top` (both absolute, symbolic links resolved): empty for the top, nil outside it.
    static func relativePath(of path: String, top: String) -> String? {
        if path == top { return "" }
        let base = top.hasSuffix("/") ? top : top + "/"
        guard path.hasPrefix(base) else { return nil }
        return String(path.dropFirst(base.count))
    }

    /// The values of a key as the report shows them: `"a"`, or `"a", "b"` for a key given twice.
    static func describe(_ values: [String]) -> String {
        values.map { "\"\($0)\"" }.joined(separator: ", ")
    }

    /// What git reports, through `git check-attr` and `git check-ignore`, that differs from what the
    /// blocks say: attributes that a `.gitattributes` nearer to the files (or `.git/info/attributes`)
    /// overrides, store files that an ignore rule would keep out of commits, and local files that are
    /// not ignored. `attributes` and `ignore` are the stores whose block in that file to check.
    static func effectiveProblems(
        _ repository: GitRepository, stores: [GitSetupStore], attributes: [GitSetupStore],
        ignore: [GitSetupStore]
    ) throws(GitSetupError) -> [String] {
        var problems: [String] = []
        let names = ["merge", "diff", "text"]
        let drivers = attributes.flatMap(\.driverFiles)
        let blobs = attributes.map(\.blobFile)
        if !attributes.isEmpty {
            let seen = try repository.attributes(names, of: (drivers + blobs).map(\.path))
            for (sample, wanted) in drivers.map({ ($0, ["merge": "folio", "diff": "folio", "text": "unset"]) })
                + blobs.map({ ($0, ["merge": "unset", "diff": "unset", "text": "unset"]) })
            {
                let actual = seen[sample.path] ?? [:]
                guard names.contains(where: { actual[$0] != wanted[$0] }) else { continue }
                problems.append(
                    "\(sample.name): git gives \(spelled(actual, names)), not \(spelled(wanted, names)): "
                        + "a .gitattributes nearer to the store, or .git/info/attributes, overrides the block in .gitattributes")
            }
        }
        let kept = stores.flatMap { $0.driverFiles + [$0.blobFile] }
        let local = ignore.flatMap(\.localFiles)
        let rules = try repository.ignoreRules(of: (kept + local).map(\.path))
        // One line per rule: a `*.jsonl` rule ignores the journal, the history and the snapshots at once.
        for (rule, samples) in grouped(kept.compactMap { sample in rules[sample.path].flatMap { $0.ignored ? ($0.rule, sample) : nil } }) {
            let files = samples.map(\.name).joined(separator: ", ")
            problems.append(
                "\(files) \(samples.count == 1 ? "is" : "are") ignored (\(rule)), so 'git add' leaves "
                    + "\(samples.count == 1 ? "it" : "them") out: narrow or remove that rule")
        }
        let included = local.filter { rules[$0.path]?.ignored != true }.map { (rules[$0.path]?.rule ?? "", $0) }
        for (rule, samples) in grouped(included) {
            let files = samples.map(\.name).joined(separator: ", ")
            let because = rule.isEmpty ? "" : " (\(rule) re-includes \(samples.count == 1 ? "it" : "them"))"
            problems.append("\(files) \(samples.count == 1 ? "is" : "are") not ignored\(because), so 'git add' would commit this machine's files")
        }
        return problems
    }

    /// The samples of each rule, rules in the order they first come.
    static func grouped(_ pairs: [(String, GitSetupStore.Sample)]) -> [(String, [GitSetupStore.Sample])] {
        var groups: [(String, [GitSetupStore.Sample])] = []
        for (rule, sample) in pairs {
            if let index = groups.firstIndex(where: { $0.0 == rule }) { groups[index].1.append(sample) } else { groups.append((rule, [sample])) }
        }
        return groups
    }

    /// Attributes in the spelling of `.gitattributes`: `merge=folio`, `-text`, `text`, or `text unspecified`.
    static func spelled(_ attributes: [String: String], _ names: [String]) -> String {
        names.map { name in
            switch attributes[name] ?? "unspecified" {
            case "set": return name
            case "unset": return "-" + name
            case "unspecified": return "\(name) unspecified"
            case let value: return "\(name)=\(value)"
            }
        }.joined(separator: " ")
    }

    // MARK: Files

    /// The bytes of the file at `path`, or nil when there is none.
    static func read(_ path: String) throws(GitSetupError) -> [UInt8]? {
        guard let kind = StoreDiscovery.kind(of: path) else { return nil }
        guard kind != .directory, let data = FileManager.default.contents(atPath: path) else {
            throw .file(path, kind == .directory ? "it is a directory" : "it cannot be read")
        }
        return [UInt8](data)
    }

    /// Replaces the file at `path` (the file a symbolic link there leads to) with `bytes`, by renaming a
    /// complete copy over it, keeping its permissions (a new file gets the umask's).
    static func write(_ bytes: [UInt8], to path: String) throws(GitSetupError) {
        let target = FilePaths.real(path) ?? path
        let permissions = (try? FileManager.default.attributesOfItem(atPath: target))?[.posixPermissions]
        do {
            try Data(bytes).write(to: URL(fileURLWithPath: target), options: .atomic)
            if let permissions { try FileManager.default.setAttributes([.posixPermissions: permissions], ofItemAtPath: target) }
        } catch {
            throw .file(path, "\(error)")
        }
    }
}
