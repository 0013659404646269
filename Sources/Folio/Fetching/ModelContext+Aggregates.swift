@_spi(FolioEngine) import FolioStorage

/// Aggregates SwiftData lacks: count, sum, average, minimum and maximum of a property over the models
/// that match a predicate, optionally grouped by another property. They read the stored values in the
/// container's index and do not create models (unless the predicate can only be evaluated on models).
///
/// ```swift
/// let total = try context.sum(\Trip.price, where: #Predicate { $0.destination == "Rome" })
/// let perCity = try context.average(\Trip.price, groupedBy: \.destination)   // [String: Double]
/// ```
extension ModelContext {
    /// The number of models that match, by group.
    ///
    /// Without a predicate, in a context with no unsaved changes, and with an index on the group's
    /// property (`#Index` or a uniqueness constraint), the counts come from the index: the cost is one
    /// step per distinct value, not per model.
    public func count<T: PersistentModel, Group: Hashable & Decodable>(
        _ type: T.Type, where predicate: Predicate<T>? = nil, groupedBy group: KeyPath<T, Group>
    ) throws -> [Group: Int] {
        if predicate == nil, let counts = try indexedGroupCounts(T.self, group) { return counts }
        let field = try storedField(group, of: T.self)
        var counts: [Group: Int] = [:]
        try forEachStoredRow(predicate) { values in
            counts[try StoredValue.decode(Group.self, values[field], field: field, of: T.self), default: 0] += 1
        }
        return counts
    }

    /// The sum of a numeric property over the models that match, added in the order of a fetch without
    /// a sort (the order floating-point rounding depends on), as `reduce(0, +)` adds.
    ///
    /// - Throws: ``FolioError/Code/invalidFetchDescriptor`` when an integer sum overflows its type,
    ///   where Swift's `+` would stop the program.
    public func sum<T: PersistentModel, Value: AdditiveArithmetic & Decodable>(
        _ keyPath: KeyPath<T, Value>, where predicate: Predicate<T>? = nil
    ) throws -> Value {
        let field = try storedField(keyPath, of: T.self)
        let sum = CheckedSum<Value>(describing: "the sum of \(T.self).\(field)")
        var total = Value.zero
        try forEachStoredRow(predicate) { values in
            total = try sum.adding(total, try StoredValue.decode(Value.self, values[field], field: field, of: T.self))
        }
        return total
    }

    /// The sum of a numeric property over the models that match, by group.
    ///
    /// - Throws: ``FolioError/Code/invalidFetchDescriptor`` when an integer sum overflows its type.
    public func sum<T: PersistentModel, Value: AdditiveArithmetic & Decodable, Group: Hashable & Decodable>(
        _ keyPath: KeyPath<T, Value>, where predicate: Predicate<T>? = nil, groupedBy group: KeyPath<T, Group>
    ) throws -> [Group: Value] {
        let sum = CheckedSum<Value>(describing: "a sum of \(T.self).\(keyPath) by group")
        return try grouped(predicate, keyPath, group).mapValues { values in
            try values.reduce(.zero) { try sum.adding($0, $1) }
        }
    }

    /// The mean of a floating-point property over the models that match; nil when none match.
    public func average<T: PersistentModel, Value: BinaryFloatingPoint & Decodable>(
        _ keyPath: KeyPath<T, Value>, where predicate: Predicate<T>? = nil
    ) throws -> Double? {
        let field = try storedField(keyPath, of: T.self)
        var total = 0.0
        var count = 0
        try forEachStoredRow(predicate) { values in
            total += Double(try StoredValue.decode(Value.self, values[field], field: field, of: T.self))
            count += 1
        }
        return count == 0 ? nil : total / Double(count)
    }

    /// The mean of an integer property over the models that match; nil when none match.
    public func average<T: PersistentModel, Value: BinaryInteger & Decodable>(
        _ keyPath: KeyPath<T, Value>, where predicate: Predicate<T>? = nil
    ) throws -> Double? {
        let field = try storedField(keyPath, of: T.self)
        var total = 0.0
        var count = 0
        try forEachStoredRow(predicate) { values in
            total += Double(try StoredValue.decode(Value.self, values[field], field: field, of: T.self))
            count += 1
        }
        return count == 0 ? nil : total / Double(count)
    }

    /// The mean of a floating-point property over the models that match, by group.
    public func average<T: PersistentModel, Value: BinaryFloatingPoint & Decodable, Group: Hashable & Decodable>(
        _ keyPath: KeyPath<T, Value>, where predicate: Predicate<T>? = nil, groupedBy group: KeyPath<T, Group>
    ) throws -> [Group: Double] {
        try grouped(predicate, keyPath, group).mapValues { values in
            values.reduce(0.0) { $0 + Double($1) } / Double(values.count)
        }
    }

    /// The least value of a property over the models that match; nil when none match.
    public func minimum<T: PersistentModel, Value: Comparable & Decodable>(
        _ keyPath: KeyPath<T, Value>, where predicate: Predicate<T>? = nil
    ) throws -> Value? {
        let field = try storedField(keyPath, of: T.self)
        var least: Value?
        try forEachStoredRow(predicate) { values in
            let value = try StoredValue.decode(Value.self, values[field], field: field, of: T.self)
            if least.map({ value < $0 }) ?? true { least = value }
        }
        return least
    }

    /// The greatest value of a property over the models that match; nil when none match.
    public func maximum<T: PersistentModel, Value: Comparable & Decodable>(
        _ keyPath: KeyPath<T, Value>, where predicate: Predicate<T>? = nil
    ) throws -> Value? {
        let field = try storedField(keyPath, of: T.self)
        var greatest: Value?
        try forEachStoredRow(predicate) { values in
            let value = try StoredValue.decode(Value.self, values[field], field: field, of: T.self)
            if greatest.map({ value > $0 }) ?? true { greatest = value }
        }
        return greatest
    }

    /// The least value of a property over the models that match, by group.
    public func minimum<T: PersistentModel, Value: Comparable & Decodable, Group: Hashable & Decodable>(
        _ keyPath: KeyPath<T, Value>, where predicate: Predicate<T>? = nil, groupedBy group: KeyPath<T, Group>
    ) throws -> [Group: Value] {
        try grouped(predicate, keyPath, group).compactMapValues { $0.min() }
    }

    /// The greatest value of a property over the models that match, by group.
    public func maximum<T: PersistentModel, Value: Comparable & Decodable, Group: Hashable & Decodable>(
        _ keyPath: KeyPath<T, Value>, where predicate: Predicate<T>? = nil, groupedBy group: KeyPath<T, Group>
    ) throws -> [Group: Value] {
        try grouped(predicate, keyPath, group).compactMapValues { $0.max() }
    }

    private func grouped<T: PersistentModel, Value: Decodable, Group: Hashable & Decodable>(
        _ predicate: Predicate<T>?, _ keyPath: KeyPath<T, Value>, _ group: KeyPath<T, Group>
    ) throws -> [Group: [Value]] {
        let valueField = try storedField(keyPath, of: T.self)
        let groupField = try storedField(group, of: T.self)
        var groups: [Group: [Value]] = [:]
        try forEachStoredRow(predicate) { values in
            groups[try StoredValue.decode(Group.self, values[groupField], field: groupField, of: T.self), default: []]
                .append(try StoredValue.decode(Value.self, values[valueField], field: valueField, of: T.self))
        }
        return groups
    }

    /// The stored attribute a key path names, or an error saying it cannot be aggregated.
    private func storedField<T: PersistentModel>(_ keyPath: AnyKeyPath, of type: T.Type) throws -> String {
        var translation = TranslationContext(schema: schema(knowing: T.self))
        guard let (name, conversion) = try? translation.field(of: T.self, keyPath: keyPath),
            conversion != .toOne, conversion != .toMany
        else {
            throw FolioError(.invalidFetchDescriptor, "\(keyPath) is not a stored attribute of \(T.self), so it cannot be aggregated")
        }
        return name
    }

    /// Calls `body` with the stored values of each matching row, unsaved changes included.
    private func forEachStoredRow<T: PersistentModel>(_ predicate: Predicate<T>?, _ body: (StoredRow) throws -> Void) throws {
        // The executor's overlay holds the unsaved values of every row it found.
        let (ids, executor) = try runQuery(FetchDescriptor<T>(predicate: predicate))
        // The index is shared with contexts on other threads, whose saves change it.
        return try withContainerLock(refusingReentry: "ModelContext's aggregate fetch") { state in
            let index = try index(in: &state)
            let overlay = executor.overlay
            let defaults = index.storedDefaults
            for id in ids {
                let row = overlay.rows[id] ?? index.records[id].map { ($0.entity, $0.values) } ?? ("", [:])
                try body(StoredRow(entity: row.entity, values: row.values, defaults: defaults))
            }
        }
    }

    /// Group counts read off the index on the group's field, without visiting records: for a count with
    /// no predicate, in a context without unsaved changes, when every entity of `T` indexes the field.
    /// Nil when that is not the case.
    private func indexedGroupCounts<T: PersistentModel, Group: Hashable & Decodable>(
        _ type: T.Type, _ group: KeyPath<T, Group>
    ) throws -> [Group: Int]? {
        guard !hasChanges, let entity = schema.entitiesByName[T._folioEntityName] else { return nil }
        let field = try storedField(group, of: T.self)
        return try withContainerLock(refusingReentry: "ModelContext's grouped count") { state in
            try container.syncIndex(in: &state, fromDisk: true)
            let index = try index(in: &state)
            var buckets: [(id: Int64, count: Int)] = []
            for member in entity.selfAndDescendants {
                // An entity with no records has no index entries to miss.
                guard index.idsByEntity[member.name]?.isEmpty == false else { continue }
                guard let counts = index.keyCounts(member.name, field) else { return nil }
                buckets += counts
            }
            var counts: [Group: Int] = [:]
            for bucket in buckets {
                let stored = index.storedValue(of: field, record: bucket.id)
                counts[try StoredValue.decode(Group.self, stored, field: field, of: T.self), default: 0] += bucket.count
            }
            return counts
        }
    }
}

/// Reads one stored property for an aggregate.
enum StoredValue {
    static func decode<T, Value: Decodable>(_ type: Value.Type, _ stored: JSONValue?, field: String, of model: T.Type) throws -> Value {
        let stored = stored ?? .null
        if let fast = PrimitiveCoding.decode(stored, as: Value.self), let value = fast { return value }
        do {
            if let special = try ValueDecoder.decodeSpecial(Value.self, from: stored, codingPath: []) {
                return special
            }
            return try ValueDecoder.decode(Value.self, from: stored)
        } catch {
            throw FolioError(.modelCoding, "\(T.self).\(field) could not be read for an aggregate", underlying: error)
        }
    }
}

/// Adds values as Swift's `+` does, but throws where `+` on a fixed-width integer would trap.
struct CheckedSum<Value: AdditiveArithmetic> {
    private let add: (Value, Value) -> Value?
    private let what: String

    init(describing what: String) {
        self.what = what
        if let integer = Value.self as? any FixedWidthInteger.Type {
            add = Self.integerAddition(integer)
        } else {
            add = { $0 + $1 }
        }
    }

    func adding(_ total: Value, _ value: Value) throws -> Value {
        guard let sum = add(total, value) else {
            throw FolioError(.invalidFetchDescriptor, "\(what) overflows \(Value.self) when \(value) is added to \(total)")
        }
        return sum
    }

    private static func integerAddition<Integer: FixedWidthInteger>(_: Integer.Type) -> (Value, Value) -> Value? {
        { total, value in
            guard let total = total as? Integer, let value = value as? Integer else { return nil }
            let (sum, overflow) = total.addingReportingOverflow(value)
            return overflow ? nil : sum as? Value
        }
    }
}
