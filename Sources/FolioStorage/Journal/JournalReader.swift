/// Reads journal (and history) files line by line into transactions.
enum JournalReader {
    /// Decodes every complete line from `start`, calling `each` with the transaction and its line.
    ///
    /// A line that cannot be decoded is passed to `report` with file, line and offset filled in; if
    /// `report` returns (verification mode), scanning continues with the next line.
    static func read(
        _ fs: any FileSystem, _ file: FileDescriptor, from start: Int64 = 0, firstLineNumber: Int = 1,
        maximumLineBytes: Int = StoreConfiguration.defaultMaximumLineBytes,
        report: (StorageError) throws -> Void, each: (JournalTransaction, ScannedLine) throws -> Void
    ) throws -> ScanResult {
        let reader = JSONReader()
        return try LineScanner.scan(fs, file, from: start, firstLineNumber: firstLineNumber, maximumLineBytes: maximumLineBytes) { line in
            let transaction: JournalTransaction
            do {
                transaction = try decode(line, in: file.path, reader: reader)
            } catch let error as StorageError {
                try report(error)
                return
            }
            try each(transaction, line)
        }
    }

    /// The transaction of one scanned line of the file at `path`.
    ///
    /// - Throws: ``StorageError`` naming the file, line and offset.
    static func decode(_ line: ScannedLine, in path: String?, reader: JSONReader) throws -> JournalTransaction {
        do {
            return try JournalTransaction(members: try LineFraming.decode(line.bytes, reader: reader))
        } catch var error as StorageError {
            error.file = path
            error.line = line.number
            error.offset = line.offset + (error.offset ?? 0)
            throw error
        }
    }
}
