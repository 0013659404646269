/// A transaction made of one large update (an update by predicate, a save of many changed models):
/// the changes are taken as one list sorted by identifier, checked against the base state and kept
/// as they are, instead of one by one in the transaction's table of changes, which hashes each
/// identifier and sorts them all again when the transaction commits.
extension WriteTransaction {
    /// Takes `records`, sorted by identifier with no identifier twice, as this transaction's updates:
    /// each sets some values of an existing record of its entity, keeping the others. Afterwards the
    /// transaction's reads see them, and it takes no other record change (its schema may still be set).
    ///
    /// - Throws: ``StorageError/Code/invalidTransaction`` if the transaction already holds changes, if
    ///   the identifiers are not increasing, or if a record does not exist or is of another entity.
    /// - Complexity: O(*n*) for *n* records, one look-up in the base state each.
    package mutating func updateInBulk(_ records: [StoredRecord]) throws {
        guard isEmpty, bulkUpdated == nil else {
            throw StorageError(.invalidTransaction, "a bulk update comes first and alone in its transaction")
        }
        var previous = Int64.min
        for record in records {
            guard record.id > previous else {
                throw StorageError(.invalidTransaction, "a bulk update lists record \(record.id) out of order or twice")
            }
            previous = record.id
            guard let existing = base.entity(ofRecord: record.id) else {
                throw StorageError(.invalidTransaction, "cannot update \(record.entity) \(record.id): no such record")
            }
            guard existing == record.entity else {
                throw StorageError(.invalidTransaction, "record \(record.id) is a \(existing), not a \(record.entity)")
            }
        }
        bulkUpdated = records.contains { $0.values.isEmpty } ? records.filter { !$0.values.isEmpty } : records
    }

    /// The bulk update of record `id`, if there is one.
    func bulkUpdate(of id: Int64) -> StoredRecord? {
        guard let bulkUpdated else { return nil }
        var low = 0, high = bulkUpdated.count
        while low < high {
            let middle = low + (high - low) / 2
            if bulkUpdated[middle].id < id { low = middle + 1 } else { high = middle }
        }
        return low < bulkUpdated.count && bulkUpdated[low].id == id ? bulkUpdated[low] : nil
    }
}
