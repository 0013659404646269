import Foundation
import FolioStorage

/// `folio textconv FILE`: a store file as one line per attribute, for git's `diff.<driver>.textconv`.
///
/// Git runs a textconv program on both sides of every diff it shows and stops the whole command when
/// one fails, so this command never fails on a file: a line it cannot read is printed as it is, a file
/// it cannot open prints nothing, and it exits 0.
enum TextconvCommand: FolioSubcommand {
    static let spec = CommandSpec(
        name: "textconv", abstract: "Print a store file with one attribute of one record per line, for git diff.",
        discussion: """
            A textconv driver for git: with 'git config diff.folio.textconv "folio textconv"' and
            '*.jsonl diff=folio' in .gitattributes, git diff and git log -p show the attributes that changed
            instead of whole JSON lines with their checksums. Reads manifest.json, journal.jsonl,
            history.jsonl and snapshots/ENTITY.jsonl (by name, else by what each line holds) without the rest
            of the store. Lines it cannot read (damaged, not JSON, not a Folio line) are printed as they are;
            it always exits with 0, as git stops the whole diff when a textconv fails.
            """,
        arguments: [.init(name: "FILE", help: "A store file, or git's temporary copy of one.")],
        examples: ["git config diff.folio.textconv \"folio textconv\"", "folio textconv Store/snapshots/Trip.jsonl"])

    static func run(_ arguments: ParsedArguments, console: Console) throws -> Int32 {
        let path = arguments.positionals[0]
        if let problem = StoreFileText.convert(path: path, emit: { console.write(bytes: $0) }) {
            // Standard error only: git shows it, and the diff goes on.
            console.warning("folio textconv: \(problem)")
        }
        return ExitCode.success
    }
}

/// The readable, line-oriented form of a store file that `folio textconv` prints.
enum StoreFileText {
    /// What a file is, from its name.
    enum Kind: Equatable {
        case manifest
        /// `journal.jsonl` or `history.jsonl`: one transaction per line.
        case transactions
        /// `snapshots/ENTITY.jsonl`.
        case snapshot
        /// Another name (git's temporary copy of a blob keeps only the file's last component): each line
        /// is recognised by its members.
        case unknown
    }

    static func kind(ofPath path: String) -> Kind {
        let url = URL(fileURLWithPath: path)
        let name = url.lastPathComponent
        if name == "manifest.json" { return .manifest }
        if name == "journal.jsonl" || name == "history.jsonl" { return .transactions }
        if name.hasSuffix(".jsonl"), url.deletingLastPathComponent().lastPathComponent == "snapshots" { return .snapshot }
        return .unknown
    }

    /// The entity a file name suggests (`Trip.jsonl` → `Trip`), for record lines before any header.
    static func entityHint(ofPath path: String) -> String? {
        let name = URL(fileURLWithPath: path).lastPathComponent
        guard name.hasSuffix(".jsonl") else { return nil }
        let entity = String(name.dropLast(".jsonl".count))
        return Store.isValidEntityName(entity) ? entity : nil
    }

    /// Converts the file at `path`, handing each output line (with its `\n`) to `emit`.
    ///
    /// Reads through ``LineScanner``'s bounded buffer: a line longer than `maximumLineBytes` is replaced by
    /// a note and skipped, and the lines after it are converted as usual. Bytes after the last `\n` are
    /// treated as one more line.
    ///
    /// - Returns: why the file (or its rest) could not be read, or nil; what was converted stays emitted.
    @discardableResult
    static func convert(
        path: String, maximumLineBytes: Int = StoreConfiguration.defaultMaximumLineBytes, emit: ([UInt8]) -> Void
    ) -> String? {
        let fileSystem = PosixFileSystem()
        let file: FileDescriptor
        do {
            file = try fileSystem.open(path, .read)
        } catch {
            return "\(error)"
        }
        defer { fileSystem.close(file) }
        func tooLong(_ number: Int) -> [UInt8] { Array("(line \(number) is longer than \(maximumLineBytes) bytes: not shown)\n".utf8) }
        var converter = Converter(kind: kind(ofPath: path), entity: entityHint(ofPath: path))
        var start: Int64 = 0
        var firstLine = 1
        do {
            while true {
                do {
                    let result = try LineScanner.scan(
                        fileSystem, file, from: start, firstLineNumber: firstLine, maximumLineBytes: maximumLineBytes
                    ) { line in
                        emit(converter.convert(line.bytes))
                    }
                    if result.tailLength > Int64(maximumLineBytes) {
                        emit(tooLong(result.lineCount + 1))
                    } else if result.tailLength > 0 {
                        let tail = try readBytes(fileSystem, file, at: result.validEnd, count: Int(result.tailLength))
                        tail.withUnsafeBufferPointer { emit(converter.convert($0)) }
                    }
                    return nil
                } catch let error as StorageError where error.code == .lineTooLong {
                    let number = error.line ?? firstLine
                    emit(tooLong(number))
                    guard let next = try endOfLine(fileSystem, file, from: error.offset ?? start) else { return nil }
                    start = next
                    firstLine = number + 1
                }
            }
        } catch {
            return "stopped reading: \(error)"
        }
    }

    /// The offset just after the next `\n` at or after `offset`, or nil at the end of the file.
    private static func endOfLine(_ fileSystem: any FileSystem, _ file: FileDescriptor, from offset: Int64) throws -> Int64? {
        var buffer = [UInt8](repeating: 0, count: LineScanner.chunkSize)
        var position = offset
        while true {
            let count = try buffer.withUnsafeMutableBytes { try fileSystem.read(file, into: $0, at: position) }
            if count == 0 { return nil }
            if let newline = buffer[..<count].firstIndex(of: 0x0A) { return position + Int64(newline) + 1 }
            position += Int64(count)
        }
    }

    private static func readBytes(_ fileSystem: any FileSystem, _ file: FileDescriptor, at offset: Int64, count: Int) throws -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let read = try bytes.withUnsafeMutableBytes { buffer in
                try fileSystem.read(file, into: UnsafeMutableRawBufferPointer(rebasing: buffer[filled...]), at: offset + Int64(filled))
            }
            if read == 0 { break }
            filled += read
        }
        return Array(bytes[..<filled])
    }

    /// Converts the lines of one file in order; remembers the snapshot header's entity for its records.
    struct Converter {
        var kind: Kind
        /// The entity of snapshot record lines: the header's, else the file name's.
        var entity: String?
        let reader = JSONReader()

        /// The output for one line (without its `\n`): readable lines, or the line itself when it is not
        /// a Folio line of this kind with a correct checksum.
        mutating func convert(_ line: UnsafeBufferPointer<UInt8>) -> [UInt8] {
            if let lines = readable(line) {
                var output: [UInt8] = []
                for text in lines {
                    output.append(contentsOf: text.utf8)
                    output.append(0x0A)
                }
                return output
            }
            return Array(line) + [0x0A]
        }

        private mutating func readable(_ line: UnsafeBufferPointer<UInt8>) -> [String]? {
            guard let members = try? LineFraming.decode(line, reader: reader) else { return nil }
            switch kind {
            case .manifest: return StoreFileText.manifest(members)
            case .transactions: return StoreFileText.transaction(members)
            case .snapshot: return snapshotLine(members)
            case .unknown:
                if members["seq"] != nil { return StoreFileText.transaction(members) }
                if members["format"] != nil { return StoreFileText.manifest(members) }
                return snapshotLine(members)
            }
        }

        private mutating func snapshotLine(_ members: [String: JSONValue]) -> [String]? {
            if members.count == 4, case .string(let name)? = members["entity"], case .int(let records)? = members["records"],
                case .int(let sequence)? = members["sequence"], members["snapshot"]?.intValue != nil
            {
                entity = name
                return ["snapshot \(bare(name)): \(records) record\(records == 1 ? "" : "s") at sequence \(sequence)"]
            }
            guard members.count == 2, case .int(let id)? = members["id"], case .object(let values)? = members["values"] else {
                return nil
            }
            return StoreFileText.attributes("\(entity.map(StoreFileText.bare) ?? "record") \(id)", values)
        }
    }

    /// `PREFIX name = "Lisbon"` per attribute, sorted; `PREFIX` alone for a record without values.
    static func attributes(_ prefix: String, _ values: [String: JSONValue]) -> [String] {
        let names = DiffCommand.sortedNames(values.keys)
        if names.isEmpty { return [prefix] }
        return names.map { "\(prefix) \(bare($0)) = \(ValueFormatting.json(values[$0] ?? .null))" }
    }

    /// Text as it is, or as a JSON string when it holds a line break or another control character, so
    /// that every output line stays one line.
    static func bare(_ text: String) -> String {
        let breaks = text.unicodeScalars.contains {
            $0.value < 0x20 || (0x7F...0x9F).contains($0.value) || $0 == "\u{2028}" || $0 == "\u{2029}"
        }
        return breaks || text.isEmpty ? ValueFormatting.json(.string(text)) : text
    }

    /// A journal or history line: `transaction SEQ  TIME  author A`, then one line per change.
    ///
    /// Returns nil (the line is printed as it is) unless the journal's own reader accepts the line.
    static func transaction(_ members: [String: JSONValue]) -> [String]? {
        guard let transaction = try? JournalTransaction(members: members), case .string(let time)? = members["time"] else {
            return nil
        }
        var header = "transaction \(transaction.sequence)  \(bare(time))"
        if let author = transaction.author { header += "  author \(bare(author))" }
        var lines = [header]
        lines += transaction.migrations.map { "  " + LogCommand.migrationText($0) }
        for record in transaction.inserted { lines += attributes("  insert \(bare(record.entity)) \(record.id)", record.values.dictionary) }
        for record in transaction.updated { lines += attributes("  update \(bare(record.entity)) \(record.id)", record.values.dictionary) }
        // A delete's tombstone is what history readers see of the record, not a change: the line names
        // the record only.
        for record in transaction.deleted { lines.append("  delete \(bare(record.entity)) \(record.id)") }
        if transaction.schema != nil { lines.append("  schema changed") }
        return lines
    }

    /// The manifest: `sequence = 57`, `nextID = 120`, `schema version = "1.0.0"`, … one member a line.
    static func manifest(_ members: [String: JSONValue]) -> [String]? {
        var lines: [String] = []
        for key in DiffCommand.sortedNames(members.keys) {
            let value = members[key] ?? .null
            switch key {
            case "schema":
                guard case .object(let description)? = value.objectValue?["value"] else {
                    lines.append("schema = \(ValueFormatting.json(value))")
                    continue
                }
                // The entities' full descriptions would make one long line: their names, and the checksum,
                // show that the schema changed; `folio schema` shows how.
                for name in DiffCommand.sortedNames(description.keys) {
                    let member = description[name] ?? .null
                    if name == "entities", let entities = member.objectValue {
                        let names = DiffCommand.sortedNames(entities.keys).map { JSONValue.string($0) }
                        lines.append("schema entities = \(ValueFormatting.json(.array(names)))")
                    } else {
                        lines.append("schema \(name) = \(ValueFormatting.json(member))")
                    }
                }
            case "snapshotBytes":
                guard let sizes = value.objectValue else {
                    lines.append("snapshotBytes = \(ValueFormatting.json(value))")
                    continue
                }
                for entity in DiffCommand.sortedNames(sizes.keys) {
                    lines.append("snapshotBytes \(bare(entity)) = \(ValueFormatting.json(sizes[entity] ?? .null))")
                }
            default:
                lines.append("\(key) = \(ValueFormatting.json(value))")
            }
        }
        return lines
    }
}
