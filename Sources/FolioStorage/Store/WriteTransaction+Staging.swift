import Foundation

/// A transaction whose whole effect was made on a staging copy (``Store/stagingCopy(of:)``), where a
/// schema migration's custom stages ran their code: the copy's commits become this one transaction.
extension WriteTransaction {
    /// Takes as this transaction's effect what `staging`, a staging copy of it, committed after
    /// `startSequence` (the copy's ``Store/lastSequence`` when it was made): the commits' record
    /// migrations first, in order, then their inserts, changed values and deletes (with tombstones),
    /// each carried through the migrations committed after it, and the blobs they wrote. Afterwards
    /// reads see the copy's records and committing makes them the store's, so that a migration that
    /// rewrote a million records does not rewrite them again; the transaction takes no other change
    /// except its schema.
    ///
    /// - Throws: ``StorageError/Code/invalidTransaction`` if this transaction already holds changes;
    ///   what ``migrate(_:)`` throws for a migration that names an unknown entity; what a blob write throws.
    package mutating func takeCommits(of staging: Store, after startSequence: UInt64) throws {
        guard isEmpty else {
            throw StorageError(.invalidTransaction, "a transaction takes a staging copy's commits before it changes anything")
        }
        let staged = try staging.history(after: startSequence)
        guard !staged.isEmpty else { return }
        for data in staging.blobsWrittenInMemory.values { _ = try putBlob(data) }
        // The identifiers the copy allocated are allocated here too: records it inserted keep theirs.
        let stagedNext = staging.nextAllocatedID
        while nextID < stagedNext { _ = allocateID() }
        for committed in staged {
            for migration in committed.migrations {
                try checkMigration(migration)
                migrations.append(migration)
            }
        }

        let changing = staged.indices.filter { staged[$0].changedRecordCount > 0 }
        if changing.count == 1, let only = changing.first, staged[(only + 1)...].allSatisfy(\.migrations.isEmpty) {
            // One commit changed records, in the names they have now: its sorted changes are the line's.
            takenChanges = (staged[only].inserted, staged[only].updated, staged[only].deleted)
        } else {
            try replay(staged, changing: changing)
        }
        adoptedState = staging.withState { $0 }
    }

    /// Adds the record changes of the `changing` commits of `staged` to this transaction, in order,
    /// each in the names the migrations committed after it give (none for an entity one removes).
    private mutating func replay(_ staged: [JournalTransaction], changing: [Int]) throws {
        for position in changing {
            let committed = staged[position]
            var carried = staged[(position + 1)...].flatMap(\.migrations).map { RecordMigrationApplier($0) }
            func current(_ record: StoredRecord) -> RecordValues? {
                var values = record.values
                for index in carried.indices where carried[index].migration.entity == record.entity {
                    if carried[index].migration.removesEntity { return nil }
                    values = carried[index].apply(to: values)
                }
                return values
            }
            func removed(_ entity: String) -> Bool {
                carried.contains { $0.migration.entity == entity && $0.migration.removesEntity }
            }
            for record in committed.inserted {
                guard let values = current(record) else { continue }
                try insert(entity: record.entity, id: record.id, values: values)
            }
            for record in committed.updated {
                guard let values = current(record) else { continue }
                try update(entity: record.entity, id: record.id, values: values)
            }
            for record in committed.deleted where !removed(record.entity) {
                try delete(entity: record.entity, id: record.id, tombstone: record.tombstone)
            }
        }
    }
}
