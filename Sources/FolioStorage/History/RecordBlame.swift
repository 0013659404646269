import Foundation

/// Which transaction last set each value of one record: for every member of the record's values (its
/// attributes and its relationships alike, which records store as values), the retained transaction
/// that wrote it, or a statement that the history which would say is no longer retained.
///
/// Found in one pass over the retained transactions, oldest first, following the record alone: its
/// insert, its updates, its delete, and the migrations of its entity (a renamed member keeps the
/// transaction that set it). A git merge that renumbers a record rewrites the merged transactions'
/// identifiers (see `IdentifierRenumbering`), so the retained transactions already name the record by
/// the identifier it has now.
package struct RecordBlame: Hashable, Sendable {
    /// A transaction that set a value.
    package struct Setter: Hashable, Sendable {
        /// The transaction's sequence number in this store.
        package var sequence: UInt64
        /// Its journal identifier (a UUID), which a git merge keeps while it renumbers sequences.
        package var transactionID: String
        /// Who wrote it, if set.
        package var author: String?
        /// When it was committed.
        package var timestamp: Date

        package init(sequence: UInt64, transactionID: String, author: String?, timestamp: Date) {
            self.sequence = sequence
            self.transactionID = transactionID
            self.author = author
            self.timestamp = timestamp
        }

        init(_ transaction: JournalTransaction) {
            self.init(
                sequence: transaction.sequence, transactionID: transaction.transactionID, author: transaction.author,
                timestamp: transaction.timestamp)
        }
    }

    /// Where a value comes from.
    package enum Origin: Hashable, Sendable {
        /// The last retained transaction that wrote the member: the record's insert or an update of it.
        case set(by: Setter)
        /// No retained transaction wrote the member: it was set by transaction `atOrBefore` or an earlier
        /// one, which compaction dropped from the history (see ``StoreConfiguration/historyRetention``).
        case beforeRetainedHistory(atOrBefore: UInt64)
        /// The value is not the one the retained transactions wrote last (`lastSetter`, nil when none
        /// wrote the member): the store mended it in memory after a git merge, without a transaction yet.
        case notInHistory(lastSetter: Setter?)
    }

    /// One member of the record, its current value and where the value comes from.
    package struct Member: Hashable, Sendable {
        package var name: String
        package var value: JSONValue
        package var origin: Origin
    }

    /// The record's entity.
    package var entity: String
    /// The record's identifier.
    package var id: Int64
    /// The record's members, sorted by name.
    package var members: [Member]
    /// The transaction that inserted the record, when the retained history holds it.
    package var insertion: Setter?
    /// The sequence of the oldest retained transaction (one past the last when none is retained).
    package var oldestRetainedSequence: UInt64
}

extension RecordBlame {
    /// Blames `record`'s current values on `history`.
    ///
    /// - Parameters:
    ///   - history: the retained transactions, ascending by sequence (compaction marks are skipped).
    ///   - oldestRetainedSequence: the sequence of the oldest retained transaction; anything older is gone.
    package init(record: StoredRecord, history: some Sequence<JournalTransaction>, oldestRetainedSequence: UInt64) {
        var replay = RecordReplay(entity: record.entity, id: record.id)
        for transaction in history where !transaction.isCompactionMark { replay.apply(transaction) }
        members = record.values.dictionary.sorted { $0.key < $1.key }.map { name, value in
            Member(name: name, value: value, origin: replay.origin(of: name, value: value, oldestRetained: oldestRetainedSequence))
        }
        entity = record.entity
        id = record.id
        insertion = replay.insertion
        self.oldestRetainedSequence = oldestRetainedSequence
    }

    /// The retained transaction that deleted record `id`, if any (the last one, read newest first).
    package static func deletion(of id: Int64, in history: [JournalTransaction]) -> (entity: String, by: Setter)? {
        for transaction in history.reversed() {
            if let record = RecordReplay.find(id, in: transaction.deleted, \.id) { return (record.entity, Setter(transaction)) }
        }
        return nil
    }
}

/// The replay of one record's changes through the retained transactions.
private struct RecordReplay {
    /// The last write of one member.
    struct Write {
        var setter: RecordBlame.Setter
        var value: JSONValue
    }

    enum Presence {
        /// Not inserted in the retained history: the record may hold members set before it.
        case unseen
        /// Inserted in the retained history: ``RecordReplay/writes`` names every member.
        case inserted
        /// Deleted (an update written without seeing the delete, by a merge, applies to nothing).
        case deleted
    }

    let entity: String
    let id: Int64
    private(set) var writes: [String: Write] = [:]
    private(set) var presence = Presence.unseen
    private(set) var insertion: RecordBlame.Setter?

    init(entity: String, id: Int64) {
        self.entity = entity
        self.id = id
    }

    /// Applies `transaction` as the store does: migrations, then deletes, inserts and updates.
    mutating func apply(_ transaction: JournalTransaction) {
        for migration in transaction.migrations where migration.entity == entity && !migration.isEmpty {
            migrate(migration)
        }
        if let deleted = Self.find(id, in: transaction.deleted, \.id), deleted.entity == entity {
            writes = [:]
            presence = .deleted
            insertion = nil
        }
        if let inserted = Self.find(id, in: transaction.inserted, \.id), inserted.entity == entity {
            let setter = RecordBlame.Setter(transaction)
            writes = inserted.values.dictionary.mapValues { Write(setter: setter, value: $0) }
            presence = .inserted
            insertion = setter
        }
        if presence != .deleted, let updated = Self.find(id, in: transaction.updated, \.id), updated.entity == entity {
            let setter = RecordBlame.Setter(transaction)
            for (name, value) in updated.values.dictionary { writes[name] = Write(setter: setter, value: value) }
        }
    }

    /// Removes and renames members as ``RecordMigrationApplier`` does: removed members first, then the
    /// renames all at once, the first old name (in sorted order) renamed onto a name winning.
    private mutating func migrate(_ migration: RecordMigration) {
        if migration.removesEntity {
            writes = [:]
            presence = .deleted
            insertion = nil
            return
        }
        for name in migration.removedMembers { writes[name] = nil }
        let renames = migration.effectiveRenames
        guard !renames.isEmpty else { return }
        var renamed: [String: Write] = [:]
        for old in renames.keys.sorted() where !migration.removedMembers.contains(old) {
            guard let new = renames[old], renamed[new] == nil, let write = writes[old] else { continue }
            renamed[new] = write
        }
        // A member without a write here was set before the retained history, or is not in the record:
        // a write of the new name stays, and the value it wrote decides (see `origin`).
        for old in renames.keys { writes[old] = nil }
        for (new, write) in renamed { writes[new] = write }
    }

    /// Where the member's current `value` comes from.
    func origin(of name: String, value: JSONValue, oldestRetained: UInt64) -> RecordBlame.Origin {
        if let write = writes[name] {
            return write.value == value ? .set(by: write.setter) : .notInHistory(lastSetter: write.setter)
        }
        if presence == .unseen, oldestRetained > 1 { return .beforeRetainedHistory(atOrBefore: oldestRetained - 1) }
        return .notInHistory(lastSetter: nil)
    }

    /// The element of `sorted` (ascending by identifier) whose identifier is `id`.
    static func find<Element>(_ id: Int64, in sorted: [Element], _ key: (Element) -> Int64) -> Element? {
        var low = 0, high = sorted.count
        while low < high {
            let middle = low + (high - low) / 2
            if key(sorted[middle]) < id { low = middle + 1 } else { high = middle }
        }
        return low < sorted.count && key(sorted[low]) == id ? sorted[low] : nil
    }
}
