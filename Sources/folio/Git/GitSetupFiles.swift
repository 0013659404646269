import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Spelling paths in `.gitattributes` and `.gitignore` patterns, and in the commands git runs through the shell.
enum GitPattern {
    /// `path` as a pattern that matches it and nothing else: the characters wildmatch treats specially
    /// (`\`, `*`, `?`, `[`) and a leading `!` or `#` (a negation, a comment) escaped with a backslash.
    static func escaped(_ path: String) -> String {
        var result = ""
        for character in path {
            if "\\*?[".contains(character) || (result.isEmpty && (character == "!" || character == "#")) { result.append("\\") }
            result.append(character)
        }
        return result
    }

    /// Whether a `.gitattributes` pattern must be written in double quotes: it holds a space (which
    /// ends the pattern) or a double quote (which starts a quoted one).
    static func needsQuotes(_ pattern: String) -> Bool {
        pattern.contains(" ") || pattern.contains("\"")
    }

    /// A `.gitattributes` pattern: as it is, or, when it holds a space or a double quote, in double quotes
    /// with C-style escapes (`\\`, `\"`), which git reads as one pattern.
    static func attributes(_ pattern: String) -> String {
        guard needsQuotes(pattern) else { return pattern }
        return "\"" + cEscaped(pattern) + "\""
    }

    static func cEscaped(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
    }

    /// `text` as one word for sh: as it is when it holds only characters the shell leaves alone, else in
    /// single quotes (a `'` inside written `'\''`).
    static func shellQuoted(_ text: String) -> String {
        let plain =
            !text.isEmpty
            && text.unicodeScalars.allSatisfy { scalar in
                scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || "/._-+,:@%=".unicodeScalars.contains(scalar))
            }
        return plain ? text : "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}

/// One store `folio git-setup` sets up: where it is in the work tree, and the lines it gets.
struct GitSetupStore: Equatable, Sendable {
    /// The store's path from the work tree's top, components joined by `/`; empty for the top itself.
    let relativePath: String

    /// - Throws: ``GitSetupError/unsupportedPath(_:)`` for a path with a control character, which
    ///   `.gitignore` cannot spell.
    init(relativePath: String) throws(GitSetupError) {
        if relativePath.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            throw .unsupportedPath(relativePath)
        }
        self.relativePath = relativePath
    }

    /// The name in the block's comment line and in messages: the relative path, `.` for the top.
    var label: String { relativePath.isEmpty ? "." : relativePath }

    /// The label a block's comment line names back as a store (`.` is the top).
    init(label: String) throws(GitSetupError) {
        try self.init(relativePath: label == "." ? "" : label)
    }

    /// `path` inside the store, relative to the top: `Trips.folio/journal.jsonl`.
    func path(_ name: String) -> String { relativePath.isEmpty ? name : "\(relativePath)/\(name)" }

    /// What the patterns of the store's files start with: `Trips.folio/`, or `/` (anchored at the top)
    /// for a store at the top.
    var patternPrefix: String { relativePath.isEmpty ? "/" : GitPattern.escaped(relativePath) + "/" }

    /// The `.gitattributes` lines after the block's comment: merge and diff with the folio drivers and no
    /// line-ending conversion for the files a merge must understand; blobs are binary.
    var attributeLines: [String] {
        let prefix = patternPrefix
        let folio = ["journal.jsonl", "history.jsonl", "manifest.json", "snapshots/*.jsonl"].map {
            "\(GitPattern.attributes(prefix + $0)) merge=folio diff=folio -text"
        }
        return folio + ["\(GitPattern.attributes(prefix + "blobs/**")) binary"]
    }

    /// The `.gitignore` lines after the block's comment: the files a store keeps for one machine (the
    /// lock, caches) and the ones recovery and `folio repair` leave (temporary files, torn tails,
    /// damaged lines, backups; the backups end in `Z`, the end of their time, so that no snapshot of an
    /// entity whose name holds `.backup-` is ignored).
    var ignoreLines: [String] {
        let prefix = patternPrefix
        var lines = ["lock", "**/*.tmp-*", "cache/", "journal.jsonl.corrupt-tail", "**/*.damaged", "**/*.backup-*Z"].map { prefix + $0 }
        // `folio repair` backs the whole store up beside it; a store at the top has its backup outside.
        if !relativePath.isEmpty {
            let escaped = GitPattern.escaped(relativePath)
            lines.append((relativePath.contains("/") ? "" : "/") + escaped + ".backup-*/")
        }
        return lines
    }

    /// A file of one kind, as git is asked about it: a path of that kind (`snapshots/Entity.jsonl`
    /// stands for every snapshot), and the name messages give it (`Trips.folio/snapshots/*.jsonl`).
    struct Sample: Equatable, Sendable {
        var path: String
        var name: String
    }

    /// The files git must merge and diff with the folio drivers, for `git check-attr`.
    var driverFiles: [Sample] {
        [
            ("journal.jsonl", "journal.jsonl"), ("history.jsonl", "history.jsonl"), ("manifest.json", "manifest.json"),
            ("snapshots/Entity.jsonl", "snapshots/*.jsonl"),
        ].map { Sample(path: path($0.0), name: path($0.1)) }
    }

    /// The blobs, which git must treat as binary.
    var blobFile: Sample { Sample(path: path("blobs/ab/ab" + String(repeating: "0", count: 62)), name: path("blobs/")) }

    /// The files the `.gitignore` block must ignore, for `git check-ignore`.
    var localFiles: [Sample] {
        let stamp = "2026-01-01T00-00-00.000Z"
        var samples = [
            ("lock", "lock"), ("journal.jsonl.tmp-1-x", "*.tmp-*"), ("cache/Entity.cache", "cache/"),
            ("journal.jsonl.corrupt-tail", "journal.jsonl.corrupt-tail"), ("snapshots/Entity.jsonl.damaged", "*.damaged"),
            ("journal.jsonl.backup-\(stamp)", "*.backup-<time>"),
        ].map { Sample(path: path($0.0), name: path($0.1)) }
        if !relativePath.isEmpty {
            samples.append(Sample(path: "\(relativePath).backup-\(stamp)/journal.jsonl", name: "\(relativePath).backup-<time>/"))
        }
        return samples
    }
}

/// One of the two files `folio git-setup` keeps a block in per store.
enum PatternFileKind: Sendable {
    case attributes, ignore

    /// The file's name at the work tree's top.
    var fileName: String {
        switch self {
        case .attributes: return ".gitattributes"
        case .ignore: return ".gitignore"
        }
    }

    func lines(for store: GitSetupStore) -> [String] {
        switch self {
        case .attributes: return store.attributeLines
        case .ignore: return store.ignoreLines
        }
    }

    /// Whether `line`, just after a store's comment line (or another line of its block), belongs to the
    /// block: one of the lines it is written with, or (for a store below the top) a pattern for the
    /// store's own files. A user's line for any other path ends the block and is kept.
    func isMember(_ line: String, of store: GitSetupStore) -> Bool {
        if lines(for: store).contains(line) { return true }
        guard !store.relativePath.isEmpty else { return false }
        let prefix = store.patternPrefix
        if self == .attributes, GitPattern.needsQuotes(prefix) { return line.hasPrefix("\"" + GitPattern.cEscaped(prefix)) }
        return line.hasPrefix(prefix)
    }
}

/// The comment line that starts each store's block, so that a later run finds and replaces the block.
enum GitSetupMarker {
    static let start = "# folio git-setup: "
    static let end = " (managed by 'folio git-setup'; edit with care)"

    static func line(for store: GitSetupStore) -> String { start + store.label + end }

    /// The label a comment line names, or nil for another line.
    static func label(of line: String) -> String? {
        guard line.hasPrefix(start), line.hasSuffix(end), line.count > start.count + end.count else { return nil }
        return String(line.dropFirst(start.count).dropLast(end.count))
    }
}

/// A `.gitattributes` line that the settings `docs/git.md` prescribed before `folio git-setup` (a union
/// or binary merge, or only the diff driver): recognised exactly, so that it can be removed. It would
/// otherwise set a store's files too, and before the block for one store but after the block for another.
struct PreviousSettingsLine: Equatable {
    /// The store the line names by its path, or nil when it matches every store's files.
    var store: String?

    /// The comment lines that introduced those settings.
    static let comments: Set<String> = [
        "# Journals and history only ever grow at the end: a union merge keeps both branches' new lines,",
        "# and `folio repair` renumbers them (see below). No CRLF conversion on any store file.",
        "# Snapshots and the manifest are rewritten as a whole by compaction: never mix two versions line by line.",
    ]

    private static let union: Set<String> = ["merge=union", "-text", "diff=folio"]
    private static let binaryMerge: Set<String> = ["merge=binary", "-text", "diff=folio"]
    /// Each file pattern, the attributes it was given, and whether it matched at any depth by itself.
    private static let patterns: [(suffix: String, attributes: Set<String>, anywhere: Bool)] = [
        ("journal.jsonl", union, true), ("history.jsonl", union, true),
        ("**/snapshots/*.jsonl", binaryMerge, true), ("snapshots/*.jsonl", binaryMerge, false),
        ("manifest.json", binaryMerge, true), ("**/blobs/**", ["binary"], true), ("blobs/**", ["binary"], false),
        ("*.jsonl", ["diff=folio"], true),
    ]

    /// The line as one of the previous settings, given the stores' relative paths; nil for any other line.
    ///
    /// A pattern alone (`journal.jsonl`) matches every store; narrowed with a store's path
    /// (`Trips.folio/journal.jsonl`, as the previous docs suggested) it matches that store.
    static func parse(_ line: String, stores: [String]) -> PreviousSettingsLine? {
        let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        guard let pattern = words.first else { return nil }
        let attributes = Set(words.dropFirst())
        for known in patterns where known.attributes == attributes && words.count == attributes.count + 1 {
            if known.anywhere, pattern == known.suffix || pattern == "**/" + known.suffix { return PreviousSettingsLine(store: nil) }
            for store in stores where !store.isEmpty && pattern == GitPattern.escaped(store) + "/" + known.suffix {
                return PreviousSettingsLine(store: store)
            }
        }
        return nil
    }
}

/// The new contents of `.gitattributes` or `.gitignore`, and what changes in them.
struct PatternFileUpdate {
    /// One change, in the words of a run that makes it and of `--check`, which reports it.
    struct Change: Equatable {
        var done: String
        var needed: String
    }

    var kind: PatternFileKind
    /// The file's bytes now; nil when it does not exist.
    var original: [UInt8]?
    /// The bytes to write; the original when nothing changes.
    var updated: [UInt8]
    var changes: [Change]
    /// Things to know that change nothing: old settings kept, blocks of stores that are gone.
    var notes: [String]
    /// The labels of the stores whose block is already as it should be.
    var upToDate: Set<String>

    var changesFile: Bool { !changes.isEmpty }

    /// Computes the update that gives each of `stores` its block.
    ///
    /// The file's own lines are kept byte for byte and in order. Blocks come after all of them, since the
    /// last line that matches a path wins in both files: a block found elsewhere is moved to the end. A
    /// second block for the same store is dropped. In `.gitattributes`, the previous docs' lines
    /// (``PreviousSettingsLine``) are removed when every store they match (of `everyStore`, the stores
    /// in the work tree and the ones given) has a block afterwards, and kept, with a note, otherwise.
    static func make(_ kind: PatternFileKind, original: [UInt8]?, stores: [GitSetupStore], everyStore: [GitSetupStore]) -> PatternFileUpdate {
        var lines = (original ?? []).split(separator: 0x0A, omittingEmptySubsequences: false).map { Array($0) }
        if lines.last?.isEmpty == true { lines.removeLast() }
        func text(_ line: [UInt8]) -> String {
            var text = String(decoding: line, as: UTF8.self)
            if text.hasSuffix("\r") { text.removeLast() }
            return text
        }
        func isBlank(_ line: [UInt8]) -> Bool { text(line).allSatisfy { $0 == " " || $0 == "\t" } }

        var changes: [Change] = []
        var notes: [String] = []
        var own: [(number: Int, line: [UInt8], previous: PreviousSettingsLine?)] = []
        var blocks: [(label: String, lines: [[UInt8]])] = []
        var linesAfterBlocks = false
        let everyPath = everyStore.map(\.relativePath)
        var index = 0
        while index < lines.count {
            let line = text(lines[index])
            if let label = GitSetupMarker.label(of: line) {
                let store = try? GitSetupStore(label: label)
                var end = index + 1
                while end < lines.count, let store, kind.isMember(text(lines[end]), of: store) { end += 1 }
                if blocks.contains(where: { $0.label == label }) {
                    changes.append(Change(done: "removed a second block for \(label)", needed: "has a second block for \(label), to remove"))
                } else {
                    blocks.append((label, Array(lines[index..<end])))
                }
                index = end
                // The blank line written after a block.
                if index < lines.count, isBlank(lines[index]) { index += 1 }
                continue
            }
            if !blocks.isEmpty, !isBlank(lines[index]) { linesAfterBlocks = true }
            let previous = kind == .attributes ? PreviousSettingsLine.parse(line, stores: everyPath) : nil
            own.append((index + 1, lines[index], previous))
            index += 1
        }

        // The previous docs' lines: removed when every store they match will have a block.
        let labels = Set(blocks.map(\.label)).union(stores.map(\.label))
        var keptPrevious = false
        var kept: [[UInt8]] = []
        for entry in own {
            guard let previous = entry.previous else {
                kept.append(entry.line)
                continue
            }
            let matched = previous.store.map { [$0] } ?? everyPath
            let without = everyStore.filter { matched.contains($0.relativePath) && !labels.contains($0.label) }.map(\.label)
            let quoted = "'\(text(entry.line))'"
            if without.isEmpty {
                changes.append(
                    Change(
                        done: "removed line \(entry.number) \(quoted), from the settings docs/git.md gave before 'folio git-setup'",
                        needed: "line \(entry.number) \(quoted) is from the settings docs/git.md gave before 'folio git-setup', to remove"))
            } else {
                keptPrevious = true
                kept.append(entry.line)
                notes.append(
                    "\(kind.fileName): kept line \(entry.number) \(quoted) of the previous settings: it also sets the files of "
                        + "\(without.joined(separator: ", ")), which \(without.count == 1 ? "has" : "have") no block; "
                        + "run 'folio git-setup' without STORE to set up every store")
            }
        }
        if !keptPrevious {
            let before = kept.count
            kept.removeAll { PreviousSettingsLine.comments.contains(text($0)) }
            if kept.count < before {
                changes.append(
                    Change(done: "removed the comments of the previous settings", needed: "has the comments of the previous settings, to remove"))
            }
        }
        while let last = kept.last, isBlank(last) { kept.removeLast() }
        if linesAfterBlocks {
            changes.append(
                Change(
                    done: "moved the folio git-setup blocks after the lines that followed them (the last matching line wins)",
                    needed: "has lines after the folio git-setup blocks, which would override them (the last matching line wins)"))
        }

        // The blocks: the ones found, in their order, then the new ones.
        var upToDate: Set<String> = []
        var rendered: [[[UInt8]]] = []
        for block in blocks {
            guard let store = stores.first(where: { $0.label == block.label }) else {
                rendered.append(block.lines)
                if (try? GitSetupStore(label: block.label)).map({ store in !everyStore.contains(store) }) ?? true {
                    notes.append(
                        "\(kind.fileName): kept the block for \(block.label), which is not a store in this work tree (delete it if the store is gone)"
                    )
                }
                continue
            }
            let wanted = ([GitSetupMarker.line(for: store)] + kind.lines(for: store)).map { Array($0.utf8) }
            if block.lines == wanted {
                upToDate.insert(store.label)
            } else {
                changes.append(
                    Change(
                        done: "replaced the block for \(store.label), which differed",
                        needed: "the block for \(store.label) differs from what 'folio git-setup' writes"))
            }
            rendered.append(wanted)
        }
        for store in stores where !blocks.contains(where: { $0.label == store.label }) {
            changes.append(
                Change(
                    done: "added the block for \(store.label)\(original == nil ? " (a new file)" : "")",
                    needed: original == nil ? "does not exist: the block for \(store.label) is missing" : "the block for \(store.label) is missing"))
            rendered.append(([GitSetupMarker.line(for: store)] + kind.lines(for: store)).map { Array($0.utf8) })
        }

        guard !changes.isEmpty else {
            return PatternFileUpdate(kind: kind, original: original, updated: original ?? [], changes: [], notes: notes, upToDate: upToDate)
        }
        var output: [[UInt8]] = kept
        for block in rendered {
            if !output.isEmpty { output.append([]) }
            output += block
        }
        var bytes: [UInt8] = []
        for line in output { bytes += line + [0x0A] }
        return PatternFileUpdate(kind: kind, original: original, updated: bytes, changes: changes, notes: notes, upToDate: upToDate)
    }
}

/// Finding the stores in a work tree, and telling whether a directory is one.
enum StoreDiscovery {
    /// Directory names never searched: git's own, and SwiftPM's build products.
    static let skippedNames: Set<String> = [".git", ".build"]

    /// Whether `directory` holds a store. Found by a search (`strict`), it must have a `journal.jsonl`
    /// or a `manifest.json` that says `folio-store`; named by the user, any of the store's files will do
    /// (`manifest.json`, `journal.jsonl`, `history.jsonl`, `snapshots/`), as for the other commands.
    static func isStore(_ directory: String, strict: Bool) -> Bool {
        if kind(of: directory + "/journal.jsonl") == .file { return true }
        let manifest = directory + "/manifest.json"
        if kind(of: manifest) == .file {
            if !strict { return true }
            guard let handle = FileHandle(forReadingAtPath: manifest) else { return false }
            defer { try? handle.close() }
            // The format member comes first after the checksum: the start of the file is enough.
            let start = (try? handle.read(upToCount: 1 << 16)) ?? Data()
            if String(decoding: start, as: UTF8.self).contains("folio-store") { return true }
        }
        return !strict && (kind(of: directory + "/history.jsonl") == .file || kind(of: directory + "/snapshots") == .directory)
    }

    /// Every store directory under `top` (absolute paths, in sorted order), `top` itself included.
    ///
    /// Skips ``skippedNames``, nested repositories and submodules (a directory with its own `.git`),
    /// `folio repair`'s backups (`NAME.backup-<time>`), and symbolic links; does not look inside a store.
    static func stores(under top: String) -> [String] {
        if isStore(top, strict: true) { return [top] }
        var found: [String] = []
        var pending = [top]
        while let directory = pending.popLast() {
            let names = ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).sorted()
            var subdirectories: [String] = []
            for name in names where !skippedNames.contains(name) && !isRepairBackup(name) {
                let path = directory == "/" ? "/" + name : directory + "/" + name
                guard kind(of: path) == .directory, kind(of: path + "/.git") == nil else { continue }
                if isStore(path, strict: true) {
                    found.append(path)
                } else {
                    subdirectories.append(path)
                }
            }
            pending += subdirectories.reversed()
        }
        return found.sorted()
    }

    /// `Trips.folio.backup-2026-11-29T16-35-01.023Z`: the copy `folio repair` writes beside a store.
    static func isRepairBackup(_ name: String) -> Bool {
        guard let range = name.range(of: ".backup-"), range.lowerBound > name.startIndex else { return false }
        return name[range.upperBound...].first?.isNumber == true
    }

    enum Kind {
        case file, directory, other
    }

    /// What is at `path`, without following a symbolic link; nil when nothing is.
    static func kind(of path: String) -> Kind? {
        var status = stat()
        guard lstat(path, &status) == 0 else { return nil }
        switch status.st_mode & S_IFMT {
        case S_IFREG: return .file
        case S_IFDIR: return .directory
        default: return .other
        }
    }
}
