/// The transactions of `history.jsonl` that can matter to one record: those whose line names its
/// identifier or migrates an entity (``RecordMention``). Every other line is only searched, not decoded,
/// and a line that matches keeps of its record lists only the record's entries (``RecordLineFilter``),
/// so a history of large transactions costs a scan of its bytes. Blame's reading of a store whose
/// records are not loaded (``Store/blame(id:)``).
struct HistoryFileScan {
    /// The sequence of the file's first transaction; nil for an empty or missing file.
    var firstSequence: UInt64?
    /// The transactions found, in file order, each holding only the record's entries.
    var transactions: [JournalTransaction] = []

    /// Scans the history file in `paths` for record `id`, in parts of the file read on as many threads
    /// as the process may use. Every line's checksum is verified, so that damage that hid the record's
    /// identifier is reported, not taken for a line without it.
    ///
    /// - Complexity: O(bytes of the file), decoding the entries of the record and the lines' other members.
    /// - Throws: ``StorageError`` for a damaged line (the first in the file), naming file, line and
    ///   offset, or a line longer than the configuration allows.
    static func scan(for id: Int64, in paths: StorePaths, configuration: StoreConfiguration) throws -> HistoryFileScan {
        let fs = configuration.fileSystem
        guard try fs.status(atPath: paths.history) != nil else { return HistoryFileScan() }
        let file = try fs.open(paths.history, .read)
        defer { fs.close(file) }
        let size = try fs.status(file).size
        let mention = RecordMention(id: id)
        do {
            let parts = try ParallelRuns.runs(count: Int(clamping: size)) { range in
                try scanPart(
                    Int64(range.lowerBound)..<Int64(range.upperBound), of: file, for: id, mention: mention, paths: paths, configuration: configuration
                )
            }
            var result = parts.first ?? HistoryFileScan()
            for part in parts.dropFirst() { result.transactions += part.transactions }
            return result
        } catch var error as StorageError where error.offset != nil {
            // A part after the first counted its lines from 1: count them from the file's start.
            if let offset = error.offset { error.line = try LineCount.lines(before: offset, in: file, fileSystem: fs) + 1 }
            throw error
        }
    }

    /// The lines that start in `range` of the file: a part of ``scan(for:in:configuration:)``. Only the
    /// part at the file's start reads the first sequence.
    private static func scanPart(
        _ range: Range<Int64>, of file: FileDescriptor, for id: Int64, mention: RecordMention, paths: StorePaths, configuration: StoreConfiguration
    ) throws -> HistoryFileScan {
        let fs = configuration.fileSystem
        var result = HistoryFileScan()
        let start = try LineCount.lineStart(atOrAfter: range.lowerBound, in: file, fileSystem: fs)
        guard start < range.upperBound else { return result }
        let reader = JSONReader()
        struct PartEnd: Error {}
        do {
            _ = try LineScanner.scan(fs, file, from: start, maximumLineBytes: configuration.maximumLineBytes) { line in
                guard line.offset < range.upperBound else { throw PartEnd() }
                let isFirst = line.offset == 0
                guard mention.mayMatter(line.bytes) else {
                    if isFirst {
                        result.firstSequence = try firstSequence(of: line, in: paths.history, reader: reader)
                    } else {
                        // Checked, not decoded: damage that hid the record's identifier must not pass for a line without it.
                        try RecordLineFilter.verify(line, in: paths.history, reader: reader)
                    }
                    return
                }
                let transaction = try RecordLineFilter.transaction(of: line, keepingRecord: id, in: paths.history, reader: reader)
                if isFirst { result.firstSequence = transaction.sequence }
                result.transactions.append(transaction)
            }
        } catch is PartEnd {}
        return result
    }

    /// The sequence of the file's first line, skimmed; the line is decoded whole when the skim finds none.
    private static func firstSequence(of line: ScannedLine, in path: String, reader: JSONReader) throws -> UInt64 {
        if let sequence = try RecordLineFilter.sequence(of: line, in: path, reader: reader) { return sequence }
        return try JournalReader.decode(line, in: path, reader: reader).sequence
    }
}

/// How a journal or history line that concerns one record can be told from the others by its bytes:
/// it holds `"id":N` followed by a non-digit (an entry of the record; other matches, such as a value
/// of a member named `id`, only cost a decoding), or it migrates entities (`"migrate":[`), which can
/// rename the record's members.
struct RecordMention {
    /// The identifier's needle, `"id":N`, and a migration's, `"migrate":[`.
    private let search: ByteSearch?
    /// The length of the identifier's needle.
    private let identifierLength: Int

    init(id: Int64) {
        let identifier = Array("\"id\":\(id)".utf8)
        identifierLength = identifier.count
        search = ByteSearch(identifier, Array(#""migrate":["#.utf8))
    }

    /// Whether `line` may name the record or migrate an entity: one pass over its bytes.
    ///
    /// - Complexity: O(bytes of the line).
    func mayMatter(_ line: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let search else { return true }
        var start = 0
        while let match = search.firstMatch(in: line, from: start) {
            guard match.isFirst else { return true }
            let next = match.offset + identifierLength
            if next >= line.count || !(line[next] >= UInt8(ascii: "0") && line[next] <= UInt8(ascii: "9")) { return true }
            start = match.offset + 1
        }
        return false
    }
}
