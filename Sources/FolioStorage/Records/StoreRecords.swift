/// The records of a store as they were after one transaction: an immutable version of the store's own
/// table, which the model layer's indexes read instead of keeping a table of their own.
///
/// Taking a version costs a reference to the store's table, not a copy: the table is copy-on-write by
/// chunks of record numbers, so a later change to the store copies only the chunks it touches while a
/// version still refers to them, and a version nobody holds any more costs nothing.
package struct StoreRecords: Sendable {
    /// A record as a version holds it.
    package struct Entry: Sendable {
        /// The record's entity.
        package var entity: String
        /// The record's values.
        package var values: RecordValues
        /// The sequence of the transaction that last wrote the record; 0 for a record read from a
        /// snapshot, which keeps no such sequence.
        package var version: UInt64
    }

    let table: DenseTable<StoreState.Entry>
    let entityNames: [String]
    /// The sequence of the last transaction the version includes (0 for an empty store).
    package let lastSequence: UInt64
    /// Each entity's number of records, for the entities that have records.
    package let recordCounts: [String: Int]

    init(table: DenseTable<StoreState.Entry>, entityNames: [String], lastSequence: UInt64, recordCounts: [String: Int]) {
        self.table = table
        self.entityNames = entityNames
        self.lastSequence = lastSequence
        self.recordCounts = recordCounts
    }

    /// No records.
    package init() {
        self.init(table: DenseTable(), entityNames: [], lastSequence: 0, recordCounts: [:])
    }

    /// No records, standing for the version after transaction `lastSequence` (see the model layer's
    /// index, which lets go of its version while a write it needs no old values for is applied).
    package init(standingAt lastSequence: UInt64) {
        self.init(table: DenseTable(), entityNames: [], lastSequence: lastSequence, recordCounts: [:])
    }

    /// The number of records.
    package var count: Int { table.count }

    /// The record with this number, if there is one.
    package subscript(id: Int64) -> Entry? {
        guard let entry = table[id] else { return nil }
        return Entry(entity: entityNames[Int(entry.entity)], values: entry.values, version: entry.version)
    }

    /// The values of the record with this number, if there is one.
    package func values(of id: Int64) -> RecordValues? {
        table[id]?.values
    }

    /// The entity of the record with this number, if there is one.
    package func entity(of id: Int64) -> String? {
        table[id].map { entityNames[Int($0.entity)] }
    }

    /// Calls `body` with every record of `entities` in increasing number order.
    package func forEachInNumberOrder(
        of entities: Set<String>, _ body: (_ id: Int64, _ entity: String, _ values: RecordValues) throws -> Void
    ) rethrows {
        // Compared by position, not by name: a name comparison for each of a million records costs.
        let positions = entityNames.indices.filter { entities.contains(entityNames[$0]) }.map(Int32.init)
        guard !positions.isEmpty else { return }
        if positions.count == 1, let only = positions.first {
            let name = entityNames[Int(only)]
            try table.forEachInNumberOrder { id, entry in
                if entry.entity == only { try body(id, name, entry.values) }
            }
        } else {
            try table.forEachInNumberOrder { id, entry in
                if positions.contains(entry.entity) { try body(id, entityNames[Int(entry.entity)], entry.values) }
            }
        }
    }

    /// Calls `body` with every record in increasing number order.
    package func forEachInNumberOrder(_ body: (_ id: Int64, _ entry: Entry) throws -> Void) rethrows {
        try table.forEachInNumberOrder { id, entry in
            try body(id, Entry(entity: entityNames[Int(entry.entity)], values: entry.values, version: entry.version))
        }
    }

    /// Where an entry holds the reference to its values' storage (-1 if the layout does not say).
    private static let valuesStorageOffset: Int = {
        guard let values = MemoryLayout<StoreState.Entry>.offset(of: \StoreState.Entry.values),
            let storage = MemoryLayout<RecordValues>.offset(of: \RecordValues.values)
        else { return -1 }
        return values + storage
    }()

    /// Starts bringing the entries of `ids` and their values' storage into the cache, ahead of a loop
    /// that reads them (see ``DenseTable/touch(_:referenceAt:)``); returns what to keep so that the
    /// reads stay.
    ///
    /// A concrete argument type, not a generic sequence: this module's code is not specialized for the
    /// caller's types, and a generic walk here looked up type metadata for every number.
    package func touchValues(of ids: ArraySlice<Int64>) -> UInt {
        table.touch(ids, referenceAt: Self.valuesStorageOffset)
    }
}
