#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The transactions of `history.jsonl` that can matter to one record: those whose line names its
/// identifier (`"id":N` followed by a non-digit) or migrates an entity. Every other line is only
/// searched, not decoded, so a history of large transactions costs a scan of its bytes. Blame's reading
/// of a store whose records are not loaded (``Store/blame(id:)``).
struct HistoryFileScan {
    /// The sequence of the file's first transaction; nil for an empty or missing file.
    var firstSequence: UInt64?
    /// The transactions found, in file order.
    var transactions: [JournalTransaction] = []

    /// Scans the history file in `paths` for record `id`.
    ///
    /// - Complexity: O(bytes of the file), decoding the first line and the lines that match.
    /// - Throws: ``StorageError`` for a line that matches and does not decode (naming file, line and
    ///   offset), or a line longer than the configuration allows.
    static func scan(for id: Int64, in paths: StorePaths, configuration: StoreConfiguration) throws -> HistoryFileScan {
        let fs = configuration.fileSystem
        var result = HistoryFileScan()
        guard try fs.status(atPath: paths.history) != nil else { return result }
        let file = try fs.open(paths.history, .read)
        defer { fs.close(file) }
        let needle = Array("\"id\":\(id)".utf8)
        let migrations = Array("\"migrate\":".utf8)
        let reader = JSONReader()
        _ = try LineScanner.scan(fs, file, maximumLineBytes: configuration.maximumLineBytes) { line in
            let isFirst = result.firstSequence == nil
            guard isFirst || contains(needle, in: line.bytes, followedByDigit: false) || contains(migrations, in: line.bytes, followedByDigit: nil)
            else { return }
            let transaction = try JournalReader.decode(line, in: paths.history, reader: reader)
            if isFirst { result.firstSequence = transaction.sequence }
            result.transactions.append(transaction)
        }
        return result
    }

    /// Whether `needle` occurs in `bytes`; when `followedByDigit` is false, only where no digit follows
    /// it (so that `"id":5` does not match `"id":51`).
    ///
    /// - Complexity: O(*n*): `memchr` finds each occurrence of the needle's second byte (a letter after a
    ///   quote, rarer in JSON than the quote), where the whole needle is then compared.
    static func contains(_ needle: [UInt8], in bytes: UnsafeBufferPointer<UInt8>, followedByDigit: Bool?) -> Bool {
        let m = needle.count
        guard m >= 2, bytes.count >= m, let base = bytes.baseAddress else { return false }
        let probe = Int32(needle[1])
        var position = 1
        while position < bytes.count,
            let found = memchr(base + position, probe, bytes.count - position)?.assumingMemoryBound(to: UInt8.self)
        {
            let start = UnsafePointer(found) - base - 1
            position = start + 2
            guard start + m <= bytes.count, bytes[start..<(start + m)].elementsEqual(needle) else { continue }
            let next = start + m
            let isDigit = next < bytes.count && bytes[next] >= 0x30 && bytes[next] <= 0x39
            if followedByDigit == nil || followedByDigit == isDigit { return true }
        }
        return false
    }
}
