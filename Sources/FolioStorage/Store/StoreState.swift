/// The logical content of a store at one sequence number: what snapshots plus journal replay give.
///
/// The records live in one table indexed by record number (numbers are allocated 1, 2, 3, … and never
/// reused), each with the position of its entity's name. Finding a record, adding one or walking an
/// entity's records in number order is an array access, not a hash-table probe, which is what keeps
/// saves and the open of a store of millions of records in proportion to what they touch.
struct StoreState: Sendable {
    /// A live record: its values, the sequence of the transaction that last wrote it (0 for a record
    /// read from a snapshot), and its entity, as a position in ``entityNames``.
    struct Entry: Sendable {
        var values: RecordValues
        var version: UInt64
        var entity: Int32
    }

    /// Every live record, by record number.
    private(set) var records = DenseTable<Entry>()
    /// The names of the entities records were ever stored under, by position. A name keeps its position
    /// for the life of the state, also when its last record is deleted.
    private(set) var entityNames: [String] = []
    /// The position of each name of ``entityNames``.
    private var entityPositions: [String: Int32] = [:]
    /// The number of live records of each entity, by position.
    private var counts: [Int] = []
    /// For each entity, the sequence of the last transaction that touched it (the snapshot header's
    /// `sequence`, so that the same transactions always give the same snapshot bytes).
    var lastModified: [String: UInt64] = [:]
    /// The last applied sequence number (0 for an empty store).
    var lastSequence: UInt64 = 0
    /// The next identifier of each allocation block used so far.
    var counters = IdentifierCounters()
    /// The highest counter of any block: every identifier in use is below it.
    var nextID: Int64 { counters.highest }
    /// The opaque metadata slot.
    var schema: JSONValue? = nil

    // MARK: Reading

    /// Each entity's number of records, for the entities that have records.
    var recordCounts: [String: Int] {
        var result: [String: Int] = [:]
        for (position, count) in counts.enumerated() where count > 0 { result[entityNames[position]] = count }
        return result
    }

    /// The names of the entities that have records, sorted.
    var entitiesWithRecords: [String] {
        counts.indices.filter { counts[$0] > 0 }.map { entityNames[$0] }.sorted()
    }

    /// The number of records of an entity.
    func count(of entity: String) -> Int {
        entityPositions[entity].map { counts[Int($0)] } ?? 0
    }

    /// The entity of the record with this number, if there is such a record.
    func entity(ofRecord id: Int64) -> String? {
        records[id].map { entityNames[Int($0.entity)] }
    }

    func record(id: Int64) -> StoredRecord? {
        guard let entry = records[id] else { return nil }
        return StoredRecord(entity: entityNames[Int(entry.entity)], id: id, values: entry.values)
    }

    /// The records as they are now, for readers that keep them while the state goes on changing.
    var version: StoreRecords {
        StoreRecords(table: records, entityNames: entityNames, lastSequence: lastSequence, recordCounts: recordCounts)
    }

    /// The records of one entity.
    func records(of entity: String) -> EntityRecords {
        guard let position = entityPositions[entity] else { return EntityRecords(table: DenseTable(), entity: -1, count: 0) }
        return EntityRecords(table: records, entity: position, count: counts[Int(position)])
    }

    /// Calls `body` with every record in record-number order.
    func forEachRecord(_ body: (_ id: Int64, _ entity: String, _ values: RecordValues) throws -> Void) rethrows {
        try records.forEachInNumberOrder { id, entry in try body(id, entityNames[Int(entry.entity)], entry.values) }
    }

    /// Every blob hash referenced by current values.
    func referencedBlobs() -> Set<String> {
        var hashes = Set<String>()
        for (_, entry) in records { BlobStore.collectReferences(in: entry.values, into: &hashes) }
        return hashes
    }

    // MARK: Changing

    /// The position of an entity's name in ``entityNames``, added if new.
    mutating func position(ofEntity name: String) -> Int32 {
        if let position = entityPositions[name] { return position }
        let position = Int32(entityNames.count)
        entityNames.append(name)
        entityPositions[name] = position
        counts.append(0)
        return position
    }

    /// Makes room for `additional` more records without growing the table again and again.
    mutating func reserveCapacity(_ additional: Int) {
        records.reserveCapacity(additional)
    }

    /// Adds a record unless its number is taken; returns the entity that holds the number if it is.
    mutating func insert(id: Int64, entity position: Int32, values: RecordValues, version: UInt64 = 0) -> String? {
        if let owner = records[id] { return entityNames[Int(owner.entity)] }
        records[id] = Entry(values: values, version: version, entity: position)
        counts[Int(position)] += 1
        return nil
    }

    /// Applies a migration to every record of its entity: rewrites their values (their version becomes
    /// `sequence`), or removes them all when it removes the entity. Changes no ``lastModified``
    /// (``apply(_:entityBase:globalBase:)`` does).
    mutating func migrate(_ migration: RecordMigration, sequence: UInt64) {
        guard let position = entityPositions[migration.entity], counts[Int(position)] > 0 else { return }
        var ids: [Int64] = []
        ids.reserveCapacity(counts[Int(position)])
        records.forEachInNumberOrder { id, entry in
            if entry.entity == position { ids.append(id) }
        }
        if migration.removesEntity {
            for id in ids { records[id] = nil }
            counts[Int(position)] = 0
            return
        }
        var applier = RecordMigrationApplier(migration)
        for id in ids {
            guard var entry = records[id] else { continue }
            entry.values = applier.apply(to: entry.values)
            entry.version = sequence
            records[id] = entry
        }
    }

    /// Makes this state, a staging copy's after its commits since `startSequence`, the state that
    /// applying `transaction` (those commits' changes as one transaction, sequence `startSequence + 1`)
    /// gives the state the copy started from: the records the commits wrote, and their entities, take
    /// the transaction's sequence as their version, and the schema and counters its values.
    mutating func adopt(_ transaction: JournalTransaction, stagedAfter startSequence: UInt64) {
        let sequence = transaction.sequence
        if lastSequence > sequence {
            records.updateEach(where: { $0.version > startSequence }) { $0.version = sequence }
        }
        for (entity, modified) in lastModified where modified > startSequence { lastModified[entity] = sequence }
        for entity in transaction.entities { lastModified[entity] = sequence }
        for record in transaction.inserted { counters.note(record.id &+ 1) }
        counters.note(transaction.nextID)
        if let schema = transaction.schema { self.schema = schema }
        lastSequence = sequence
    }

    /// Applies a transaction: its migrations first, then its deletes, inserts and updates.
    ///
    /// - Parameters:
    ///   - entityBase: ops on an entity are skipped when the transaction is not newer than this base
    ///     (the entity's snapshot already contains them).
    ///   - globalBase: the counter and schema are taken only from transactions newer than this.
    ///   - migrationsApplied: whether this state already holds the records as the transaction's
    ///     migrations leave them (a write transaction's view after ``WriteTransaction/migrate(_:)``).
    /// - Returns: problems found (a description each); the transaction is applied as far as possible.
    mutating func apply(
        _ transaction: JournalTransaction, entityBase: (String) -> UInt64 = { _ in 0 }, globalBase: UInt64 = 0,
        migrationsApplied: Bool = false
    ) -> [String] {
        var problems: [String] = []
        let sequence = transaction.sequence
        // A merged transaction written without seeing the other side's folded transactions may change a
        // record those deleted: the delete stands, and `Store.conflicts()` lists the change.
        let mayFindDeleted = transaction.folded?.seen == false
        // Transactions usually touch one entity or a few: decide per entity once, not per record.
        var decided: [(entity: String, applies: Bool)] = []
        func applies(_ entity: String) -> Bool {
            if let known = decided.first(where: { $0.entity == entity }) { return known.applies }
            let answer = sequence > entityBase(entity)
            decided.append((entity, answer))
            return answer
        }
        var modifiedEntities: [String] = []
        func modified(_ entity: String) {
            if modifiedEntities.last != entity && !modifiedEntities.contains(entity) { modifiedEntities.append(entity) }
        }
        // Records come in runs of one entity: its position is looked up once per run.
        var run: (name: String, position: Int32)? = nil
        func entityPosition(_ name: String) -> Int32 {
            if let run, run.name == name { return run.position }
            let found = self.position(ofEntity: name)
            run = (name, found)
            return found
        }
        for migration in transaction.migrations where !migration.isEmpty && applies(migration.entity) {
            if !migrationsApplied { migrate(migration, sequence: sequence) }
            modified(migration.entity)
        }
        for deleted in transaction.deleted where applies(deleted.entity) {
            let entity = entityPosition(deleted.entity)
            if let entry = records[deleted.id], entry.entity == entity {
                records[deleted.id] = nil
                counts[Int(entity)] -= 1
            } else if !mayFindDeleted {
                problems.append("deletes \(deleted.entity) \(deleted.id), which does not exist")
            }
            modified(deleted.entity)
        }
        records.reserveCapacity(transaction.inserted.count)
        for inserted in transaction.inserted where applies(inserted.entity) {
            if let owner = insert(id: inserted.id, entity: entityPosition(inserted.entity), values: inserted.values, version: sequence) {
                problems.append("inserts \(inserted.entity) \(inserted.id), but \(owner) \(inserted.id) already exists")
                continue
            }
            modified(inserted.entity)
            counters.note(inserted.id &+ 1)
        }
        for updated in transaction.updated where applies(updated.entity) {
            guard var entry = records[updated.id], entry.entity == entityPosition(updated.entity) else {
                if !mayFindDeleted { problems.append("updates \(updated.entity) \(updated.id), which does not exist") }
                continue
            }
            entry.values = entry.values.merging(updated.values)
            entry.version = sequence
            records[updated.id] = entry
            modified(updated.entity)
        }
        for entity in modifiedEntities { lastModified[entity] = sequence }
        if sequence > globalBase {
            counters.note(transaction.nextID)
            if let schema = transaction.schema { self.schema = schema }
        }
        lastSequence = max(lastSequence, sequence)
        return problems
    }
}

/// The records of one entity in a ``StoreState``, read in record-number order.
struct EntityRecords {
    let table: DenseTable<StoreState.Entry>
    let entity: Int32
    /// The number of records.
    let count: Int

    var isEmpty: Bool { count == 0 }

    /// The values of the record with this number, if it is a record of this entity.
    subscript(id: Int64) -> RecordValues? {
        guard let entry = table[id], entry.entity == entity else { return nil }
        return entry.values
    }

    /// Whether the record with this number is a record of this entity. Reads the entry in place,
    /// without taking a reference to its values (a compaction asks this of every record it copies).
    func contains(_ id: Int64) -> Bool {
        if let (chunk, offset) = table.slot(of: id), let length = table.length(ofChunk: chunk) {
            let page = chunk >> DenseTable<StoreState.Entry>.pageShift, index = chunk & (DenseTable<StoreState.Entry>.pageSize - 1)
            return offset < length && table.pages[page].chunks[index]?[offset]?.entity == entity
        }
        return table.overflow[id]?.entity == entity
    }

    /// Whether every record is as the entity's snapshot held it when it was loaded: none was written
    /// since (a record's version is the sequence that last wrote it, 0 when it comes from a snapshot).
    func areAllFromSnapshot() -> Bool {
        var all = true
        table.forEachInNumberOrder { _, entry in
            if entry.entity == entity, entry.version != 0 { all = false }
        }
        return all
    }

    /// Calls `body` with each record's number and values, in increasing number order.
    func forEach(_ body: (Int64, RecordValues) throws -> Void) rethrows {
        guard count > 0 else { return }
        try table.forEachInNumberOrder { id, entry in
            if entry.entity == entity { try body(id, entry.values) }
        }
    }
}
