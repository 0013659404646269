/// The stored records a context deletes at its next save without a model of any of them
/// (``ModelContext/delete(model:where:includeSubclasses:)``), in the order they were deleted.
struct RecordDeletions {
    /// Record numbers in deletion order; a number removed since stays here, and is skipped because
    /// ``entities`` no longer has it.
    private(set) var order: [Int64] = []
    /// The entity of each record to delete, by record number.
    private(set) var entities: [Int64: String] = [:]

    var isEmpty: Bool { entities.isEmpty }
    var count: Int { entities.count }

    func contains(_ id: Int64) -> Bool { entities[id] != nil }

    /// The record numbers still to delete, in deletion order.
    var ids: [Int64] {
        if order.count == entities.count { return order }
        var seen = Set<Int64>()
        return order.filter { entities[$0] != nil && seen.insert($0).inserted }
    }

    /// Adds a record; false if it is already there.
    @discardableResult
    mutating func insert(_ id: Int64, entity: String) -> Bool {
        guard entities.updateValue(entity, forKey: id) == nil else { return false }
        order.append(id)
        return true
    }

    /// Takes a record out (its model is deleted instead).
    mutating func remove(_ id: Int64) {
        entities[id] = nil
    }

    /// The entity of a record to delete, or nil.
    func entity(of id: Int64) -> String? { entities[id] }

    mutating func removeAll() {
        order = []
        entities = [:]
    }
}
