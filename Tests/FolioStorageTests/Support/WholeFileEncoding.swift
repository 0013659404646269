@_spi(FolioEngine) @testable import FolioStorage

// The engine writes snapshot and history files in pieces; the tests compare whole files.

extension SnapshotFile {
    /// The full file content for an entity's records.
    static func encode(entity: String, sequence: UInt64, records: [Int64: RecordValues]) throws -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(records.count * 256)
        try write(entity: entity, sequence: sequence, records: EntityRecords(records)) { bytes.append(contentsOf: $0) }
        return bytes
    }

    /// The full file content for an entity's records, copying unchanged lines from `earlier`.
    ///
    /// - Returns: the bytes, or `nil` when `earlier` cannot be used.
    static func encode(
        entity: String, sequence: UInt64, records: [Int64: RecordValues], reusing earlier: EarlierFile, fileSystem fs: any FileSystem
    ) throws -> [UInt8]? {
        var bytes: [UInt8] = []
        let complete = try write(entity: entity, sequence: sequence, records: EntityRecords(records), reusing: earlier, fileSystem: fs) {
            bytes.append(contentsOf: $0)
        }
        return complete ? bytes : nil
    }
}

extension EntityRecords {
    /// The records of a dictionary, as one entity of a store state.
    init(_ records: [Int64: RecordValues]) {
        var table = DenseTable<StoreState.Entry>()
        for (id, values) in records { table[id] = StoreState.Entry(values: values, version: 0, entity: 0) }
        self.init(table: table, entity: 0, count: records.count)
    }
}

extension Store {
    /// The content of `history.jsonl` for `kept`; `damaged` lists the sequences whose stored line was
    /// not intact (their transactions were encoded instead).
    func historyFileBytes(_ kept: [RetainedTransaction], paths: StorePaths) throws -> (bytes: [UInt8], damaged: [UInt64]) {
        var bytes: [UInt8] = []
        let damaged = try writeHistoryLines(kept, paths: paths) { bytes.append(contentsOf: $0) }
        return (bytes, damaged)
    }
}
