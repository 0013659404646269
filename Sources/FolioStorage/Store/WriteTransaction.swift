import Foundation

/// The changes of one ``Store/write(author:_:)`` call, made against the store's state as caught up
/// with every other process under the writer lock.
///
/// Reads see the transaction's own changes. Changes to one record combine: an insert then update is one
/// insert, an update then delete is one delete, an insert then delete is nothing at all (the identifier
/// stays used).
public struct WriteTransaction {
    /// The state the transaction builds on, with its ``migrations`` applied (they come before any
    /// other change, so reads and later changes see the migrated records through it).
    var base: StoreState
    /// The migrations added with ``migrate(_:)``, in order.
    var migrations: [RecordMigration] = []
    var inserted: InsertedRecords
    /// The changed values of stored records, by identifier, in a dense table as the records are: dense
    /// runs of identifiers are kept in slots and read back in order; sparse ones go to the table's
    /// dictionary (a large update of scattered records takes ``updateInBulk(_:)`` instead).
    var updated = DenseTable<StoredRecord>()
    var deleted: [Int64: DeletedRecord] = [:]
    /// How many identifiers ``allocateID()`` handed out. They are all at or above `base.nextID`.
    var allocatedCount = 0
    /// The last entity name ``insert(_:)`` found valid: a save inserts runs of one entity.
    private var lastCheckedEntity: String? = nil
    /// Identifiers reserved earlier by this process with ``Store/reserveIDs(_:)`` and not used yet.
    var reserved: Set<Int64> = []
    var nextID: Int64
    var schemaChange: JSONValue?? = nil
    let knownEntities: Set<String>?
    let blobWriter: (Data) throws -> String

    /// The allocation block ``allocateID()`` counts in, or nil when it counts on from the highest
    /// identifier in use (see ``StoreConfiguration/IdentifierAllocation``).
    package let allocationBlock: Int64?

    init(base: StoreState, block: Int64? = nil, knownEntities: Set<String>?, blobWriter: @escaping (Data) throws -> String) {
        self.base = base
        self.allocationBlock = block
        var next = block.map { base.counters.next(in: $0) } ?? base.nextID
        // Counters come from files: never hand out an identifier a record has.
        while base.records[next] != nil { next += 1 }
        self.nextID = next
        self.inserted = InsertedRecords(firstNewID: next)
        self.knownEntities = knownEntities
        self.blobWriter = blobWriter
    }

    /// The sequence number of the last committed transaction this transaction builds on.
    public var lastSequence: UInt64 { base.lastSequence }

    /// The record with this identifier, including this transaction's changes.
    public func record(id: Int64) -> StoredRecord? {
        if let adoptedState { return adoptedState.record(id: id) }
        if deleted[id] != nil { return nil }
        if let record = inserted[id] { return record }
        guard var record = base.record(id: id) else { return nil }
        if let changes = updated[id] ?? bulkUpdate(of: id) { for (key, value) in changes.values { record.values[key] = value } }
        return record
    }

    /// The entity of the record with this identifier, including this transaction's changes; nil if
    /// there is no such record. Cheaper than ``record(id:)`` when the values are not needed.
    public func entity(ofRecord id: Int64) -> String? {
        if let adoptedState { return adoptedState.entity(ofRecord: id) }
        if deleted[id] != nil { return nil }
        if let record = inserted[id] { return record.entity }
        return base.entity(ofRecord: id)
    }

    /// The records of an entity, including this transaction's changes, in identifier order.
    public func records(of entity: String) -> [StoredRecord] {
        if let adoptedState {
            var records: [StoredRecord] = []
            adoptedState.records(of: entity).forEach { id, values in records.append(StoredRecord(entity: entity, id: id, values: values)) }
            return records
        }
        var ids: [Int64] = []
        base.records(of: entity).forEach { id, _ in ids.append(id) }
        let insertedIDs = inserted.inIdentifierOrder().filter { $0.entity == entity }.map(\.id)
        if !insertedIDs.isEmpty { ids = Array(Set(ids).union(insertedIDs)).sorted() }
        return ids.compactMap { record(id: $0) }.filter { $0.entity == entity }
    }

    /// The store's metadata slot as this transaction sees it.
    public var schema: JSONValue? {
        if let change = schemaChange { return change }
        return base.schema
    }

    /// Sets the store's metadata slot (for example the model layer's schema description).
    public mutating func setSchema(_ schema: JSONValue?) {
        schemaChange = .some(schema)
    }

    /// The identifier ``allocateID()`` hands out next.
    package var nextAllocatedID: Int64 { nextID }

    /// Allocates a new store-wide identifier. Identifiers are never reused, even after delete and
    /// compaction, and two clones of a store allocating per clone never hand out the same one.
    public mutating func allocateID() -> Int64 {
        let id = nextID
        nextID += 1
        allocatedCount += 1
        return id
    }

    /// Inserts a record.
    ///
    /// - Throws: ``StorageError/Code/invalidTransaction`` if the identifier is in use,
    ///   ``StorageError/Code/identifierNotAllocated`` if it was used before (identifiers are never reused)
    ///   and not allocated by ``allocateID()``, ``StorageError/Code/invalidEntityName``,
    ///   ``StorageError/Code/unknownEntity``.
    public mutating func insert(_ record: consuming StoredRecord) throws {
        try checkNotTaken()
        if record.entity != lastCheckedEntity {
            try checkEntity(record.entity)
            lastCheckedEntity = record.entity
        }
        let id = record.id
        if deleted[id] == nil && (inserted[id] != nil || base.records[id] != nil) {
            throw StorageError(.invalidTransaction, "cannot insert \(record.entity) \(id): identifier \(id) is in use")
        }
        // Identifiers from `allocateID()` are at or above their block's counter; below it, only reserved ones.
        if deleted[id] != nil || (id < base.counters.next(in: IdentifierBlocks.block(of: id)) && !reserved.contains(id)) {
            throw StorageError(
                .identifierNotAllocated,
                "identifier \(id) was not allocated by this transaction or reserved by this store and may have been used before; call allocateID()")
        }
        if !IdentifierLimits.isValid(id) {
            throw StorageError(.identifierNotAllocated, "identifier \(id) is out of range (1…2^62-1); call allocateID()")
        }
        // The line's counter is this transaction's block's; applying it notes identifiers in other blocks.
        if id >= nextID && IdentifierBlocks.block(of: id) == IdentifierBlocks.block(of: nextID) { nextID = id + 1 }
        inserted[id] = record
    }

    /// Changes the stored shape of every record of one entity: removes members, renames members, or
    /// deletes every record of the entity (see ``RecordMigration``). Several migrations apply in the
    /// order they are added; afterwards this transaction's reads see the migrated records, and its
    /// inserts, updates and deletes use the new names. A migration that changes nothing is not added.
    ///
    /// - Throws: ``StorageError/Code/invalidTransaction`` if the transaction already inserted, updated
    ///   or deleted a record (a migration must come first), if a member name is empty, if two members
    ///   are renamed onto one name, or if a member is renamed onto a name that a record of the entity
    ///   already has and that is neither removed nor renamed away; ``StorageError/Code/invalidEntityName``;
    ///   ``StorageError/Code/unknownEntity`` if the entity is not in the store's known entities (unless
    ///   the migration removes it).
    public mutating func migrate(_ migration: RecordMigration) throws {
        guard inserted.isEmpty && updated.isEmpty && deleted.isEmpty else {
            throw StorageError(
                .invalidTransaction,
                "cannot migrate \(migration.entity) after this transaction inserted, updated or deleted records: a migration must come first in its transaction"
            )
        }
        try checkNotTaken()
        try checkMigration(migration)
        if migration.isEmpty { return }
        if !migration.removesEntity {
            try checkRenameTargets(of: migration)
        }
        base.migrate(migration, sequence: base.lastSequence + 1)
        migrations.append(migration)
    }

    /// Checks what a migration names, without the records.
    func checkMigration(_ migration: RecordMigration) throws {
        try checkEntityName(migration.entity)
        if !migration.removesEntity, let knownEntities, !knownEntities.contains(migration.entity) {
            throw StorageError(.unknownEntity, "entity \"\(migration.entity)\" is not in the store's known entities")
        }
        if let problem = migration.contentProblem() {
            throw StorageError(.invalidTransaction, "cannot migrate \(migration.entity): the migration \(problem)")
        }
    }

    /// Refuses a rename onto a member that some record of the entity has and that the migration neither
    /// removes nor renames away: the two values would collide.
    private func checkRenameTargets(of migration: RecordMigration) throws {
        let renames = migration.effectiveRenames
        guard !renames.isEmpty else { return }
        let vacated = Set(migration.removedMembers).union(renames.keys)
        let targets = renames.filter { !vacated.contains($0.value) }
        guard !targets.isEmpty else { return }
        // Records share a handful of layouts: each one is checked once.
        var checked = Set<ObjectIdentifier>()
        var collision: (id: Int64, old: String, new: String)? = nil
        base.records(of: migration.entity).forEach { id, values in
            guard collision == nil, checked.insert(ObjectIdentifier(values.layout)).inserted else { return }
            for (old, new) in targets.sorted(by: { $0.key < $1.key }) where values.layout.slot(of: new) != nil {
                collision = (id, old, new)
                return
            }
        }
        if let collision {
            throw StorageError(
                .invalidTransaction,
                "cannot migrate \(migration.entity): renaming \"\(collision.old)\" to \"\(collision.new)\" would overwrite member \"\(collision.new)\" of \(migration.entity) \(collision.id); remove or rename that member in the same migration"
            )
        }
    }

    /// Makes room for `count` more inserted records, so that a large transaction does not grow its
    /// table step by step.
    package mutating func reserveCapacity(inserting count: Int) {
        inserted.reserveCapacity(count)
    }

    /// Inserts a record.
    public mutating func insert(entity: String, id: Int64, values: consuming RecordValues) throws {
        // Consuming: the values move into the transaction, without a retain of their storage.
        try insert(StoredRecord(entity: entity, id: id, values: values))
    }

    /// Inserts a record.
    @_disfavoredOverload
    public mutating func insert(entity: String, id: Int64, values: [String: JSONValue]) throws {
        try insert(StoredRecord(entity: entity, id: id, values: values))
    }

    /// Sets some values of an existing record; other values are kept.
    ///
    /// - Throws: ``StorageError/Code/invalidTransaction`` if no record of that entity has this identifier.
    public mutating func update(entity: String, id: Int64, values: RecordValues) throws {
        try checkNotTaken()
        if var record = inserted[id] {
            guard record.entity == entity else { throw mismatch(entity, id, record.entity) }
            record.values = record.values.merging(values)
            inserted[id] = record
            return
        }
        guard let existing = self.entity(ofRecord: id) else {
            throw StorageError(.invalidTransaction, "cannot update \(entity) \(id): no such record")
        }
        guard existing == entity else { throw mismatch(entity, id, existing) }
        if var change = updated[id] {
            change.values = change.values.merging(values)
            updated[id] = change
        } else {
            updated[id] = StoredRecord(entity: entity, id: id, values: values)
        }
    }

    /// Sets some values of an existing record; other values are kept.
    @_disfavoredOverload
    public mutating func update(entity: String, id: Int64, values: [String: JSONValue]) throws {
        try update(entity: entity, id: id, values: RecordValues(values))
    }

    /// Deletes a record, keeping `tombstone` values in the transaction for history readers.
    ///
    /// - Throws: ``StorageError/Code/invalidTransaction`` if no record of that entity has this identifier.
    public mutating func delete(entity: String, id: Int64, tombstone: [String: JSONValue] = [:]) throws {
        try checkNotTaken()
        if let record = inserted[id] {
            guard record.entity == entity else { throw mismatch(entity, id, record.entity) }
            inserted[id] = nil
            return
        }
        guard let existing = self.entity(ofRecord: id) else {
            throw StorageError(.invalidTransaction, "cannot delete \(entity) \(id): no such record")
        }
        guard existing == entity else { throw mismatch(entity, id, existing) }
        updated[id] = nil
        deleted[id] = DeletedRecord(entity: entity, id: id, tombstone: tombstone)
    }

    /// Stores a blob durably now (before the transaction is appended) and returns its SHA-256 hash.
    /// Refer to it from a record with ``BlobStore/reference(_:)``.
    public mutating func putBlob(_ data: Data) throws -> String {
        try blobWriter(data)
    }

    /// Whether the transaction changes nothing (no migrations, no records, no schema, no identifiers allocated).
    public var isEmpty: Bool {
        migrations.isEmpty && inserted.isEmpty && updated.isEmpty && deleted.isEmpty && schemaChange == nil && allocatedCount == 0
            && !clearsConflicts && recordedConflicts.isEmpty && adoptedState == nil && bulkUpdated == nil && stageCarried.isEmpty
    }

    /// The updates ``updateInBulk(_:)`` took, sorted by identifier; nil when there are none.
    var bulkUpdated: [StoredRecord]?

    /// Whether the transaction forgets the merge conflicts recorded before it (see ``Store/conflicts()``).
    package var clearsConflicts = false

    /// The values a merge's reconciliation did not keep, recorded on the committed line (see
    /// ``JournalTransaction/conflicts``).
    package var recordedConflicts: [MergeConflict] = []

    /// The merged lines whose records awaiting a custom stage this transaction carries (see
    /// ``JournalTransaction/stageCarried``).
    package var stageCarried: [String] = []

    /// A staging copy's state that holds this transaction's effect (see ``takeCommits(of:after:)``):
    /// reads see it, and committing makes it the store's.
    var adoptedState: StoreState?
    /// The record changes of the one staged commit that ``takeCommits(of:after:)`` took as they are,
    /// sorted by identifier; nil when the changes are in ``inserted``, ``updated`` and ``deleted``.
    var takenChanges: (inserted: [StoredRecord], updated: [StoredRecord], deleted: [DeletedRecord])?

    /// The journal transaction that committing this write appends: sequence `lastSequence + 1`, the
    /// records sorted by identifier, updates that set nothing left out.
    ///
    /// The inserted records are moved into it, not copied: committing ends the write, and a bulk insert's
    /// records then change hands without a retain and a release of each (their values were made on
    /// another core, so each retain here waited for memory). The transaction keeps no inserted records.
    mutating func takeJournalTransaction(transactionID: String, timestamp: Date, author: String?) -> JournalTransaction {
        let taken =
            takenChanges ?? (
                inserted.removeAllInIdentifierOrder(), bulkUpdated ?? updated.removeAllInNumberOrder().filter { !$0.values.isEmpty },
                deleted.values.sorted { $0.id < $1.id }
            )
        takenChanges = nil
        bulkUpdated = nil
        var committed = JournalTransaction(
            sequence: base.lastSequence + 1, transactionID: transactionID, timestamp: timestamp,
            author: author, migrations: migrations, inserted: taken.inserted, updated: taken.updated, deleted: taken.deleted,
            schema: schemaChange.map { $0 ?? .null }, nextID: nextID)
        committed.clearsConflicts = clearsConflicts
        committed.conflicts = recordedConflicts
        committed.stageCarried = stageCarried.sorted()
        return committed
    }

    private func mismatch(_ entity: String, _ id: Int64, _ actual: String) -> StorageError {
        StorageError(.invalidTransaction, "record \(id) is a \(actual), not a \(entity)")
    }

    /// Refuses a change once the transaction took a staging copy's commits, which are all it holds.
    private func checkNotTaken() throws {
        guard adoptedState == nil else {
            throw StorageError(.invalidTransaction, "a transaction that took a staging copy's commits changes nothing more; commit it")
        }
        guard bulkUpdated == nil else {
            throw StorageError(.invalidTransaction, "a transaction that took a bulk update changes nothing more; commit it")
        }
    }

    private func checkEntity(_ entity: String) throws {
        try checkEntityName(entity)
        if let knownEntities, !knownEntities.contains(entity) {
            throw StorageError(.unknownEntity, "entity \"\(entity)\" is not in the store's known entities")
        }
    }

    private func checkEntityName(_ entity: String) throws {
        guard EntityName.isValid(entity) else {
            throw StorageError(
                .invalidEntityName,
                "\"\(entity)\" cannot be an entity name: use 1–200 ASCII letters, digits, '_', '-', '.' (not starting with '.')")
        }
    }
}

/// The records a ``WriteTransaction`` inserts, by identifier.
///
/// A transaction's new records have the identifiers ``WriteTransaction/allocateID()`` hands out: dense,
/// from the store's next identifier up. They are kept by their distance from it, so that adding one is
/// an array access and reading them in identifier order needs no sort. Reserved identifiers, below it,
/// go to the table's overflow.
struct InsertedRecords {
    private var table = DenseTable<StoredRecord>()
    /// The store's next identifier when the transaction began: position 0 of the table.
    private let firstNewID: Int64

    init(firstNewID: Int64) {
        self.firstNewID = firstNewID
    }

    subscript(id: Int64) -> StoredRecord? {
        get { table[id &- firstNewID] }
        set { table[id &- firstNewID] = newValue }
    }

    var count: Int { table.count }
    var isEmpty: Bool { table.isEmpty }

    mutating func reserveCapacity(_ additional: Int) {
        table.reserveCapacity(additional)
    }

    /// Moves the records out, sorted by identifier, and leaves none (see
    /// ``DenseTable/removeAllInNumberOrder()``).
    mutating func removeAllInIdentifierOrder() -> [StoredRecord] {
        table.removeAllInNumberOrder()
    }

    /// The records, sorted by identifier.
    func inIdentifierOrder() -> [StoredRecord] {
        var records: [StoredRecord] = []
        records.reserveCapacity(table.count)
        table.forEachInNumberOrder { _, record in records.append(record) }
        return records
    }
}
