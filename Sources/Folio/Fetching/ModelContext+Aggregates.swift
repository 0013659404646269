import FolioStorage

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
    public func count<T: PersistentModel, Group: Hashable & Decodable>(
        _ type: T.Type, where predicate: Predicate<T>? = nil, groupedBy group: KeyPath<T, Group>
    ) throws -> [Group: Int] {
        var counts: [Group: Int] = [:]
        try forEachStoredRow(predicate) { values, decode in
            counts[try decode(Group.self, group), default: 0] += 1
        }
        return counts
    }

    /// The sum of a numeric property over the models that match.
    public func sum<T: PersistentModel, Value: AdditiveArithmetic & Decodable>(
        _ keyPath: KeyPath<T, Value>, where predicate: Predicate<T>? = nil
    ) throws -> Value {
        var total = Value.zero
        try forEachStoredRow(predicate) { _, decode in total += try decode(Value.self, keyPath) }
        return total
    }

    /// The sum of a numeric property over the models that match, by group.
    public func sum<T: PersistentModel, Value: AdditiveArithmetic & Decodable, Group: Hashable & Decodable>(
        _ keyPath: KeyPath<T, Value>, where predicate: Predicate<T>? = nil, groupedBy group: KeyPath<T, Group>
    ) throws -> [Group: Value] {
        try grouped(predicate, keyPath, group).mapValues { $0.reduce(.zero, +) }
    }

    /// The mean of a floating-point property over the models that match; nil when none match.
    public func average<T: PersistentModel, Value: BinaryFloatingPoint & Decodable>(
        _ keyPath: KeyPath<T, Value>, where predicate: Predicate<T>? = nil
    ) throws -> Double? {
        var total = 0.0
        var count = 0
        try forEachStoredRow(predicate) { _, decode in
            total += Double(try decode(Value.self, keyPath))
            count += 1
        }
        return count == 0 ? nil : total / Double(count)
    }

    /// The mean of an integer property over the models that match; nil when none match.
    public func average<T: PersistentModel, Value: BinaryInteger & Decodable>(
        _ keyPath: KeyPath<T, Value>, where predicate: Predicate<T>? = nil
    ) throws -> Double? {
        var total = 0.0
        var count = 0
        try forEachStoredRow(predicate) { _, decode in
            total += Double(try decode(Value.self, keyPath))
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
        var least: Value?
        try forEachStoredRow(predicate) { _, decode in
            let value = try decode(Value.self, keyPath)
            if least.map({ value < $0 }) ?? true { least = value }
        }
        return least
    }

    /// The greatest value of a property over the models that match; nil when none match.
    public func maximum<T: PersistentModel, Value: Comparable & Decodable>(
        _ keyPath: KeyPath<T, Value>, where predicate: Predicate<T>? = nil
    ) throws -> Value? {
        var greatest: Value?
        try forEachStoredRow(predicate) { _, decode in
            let value = try decode(Value.self, keyPath)
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
        var groups: [Group: [Value]] = [:]
        try forEachStoredRow(predicate) { _, decode in
            groups[try decode(Group.self, group), default: []].append(try decode(Value.self, keyPath))
        }
        return groups
    }

    /// A decoder of one stored property of the current row.
    typealias StoredValueDecoder<T> = (_ type: Any.Type, _ keyPath: AnyKeyPath) throws -> Any

    /// Calls `body` with the stored values of each matching row and a function that decodes a property.
    private func forEachStoredRow<T: PersistentModel>(
        _ predicate: Predicate<T>?,
        _ body: (RecordValues, _ decode: RowDecoder<T>) throws -> Void
    ) throws {
        let ids = try rows(FetchDescriptor<T>(predicate: predicate))
        let entities = Set(schema.entitiesByName[T._folioEntityName]?.selfAndDescendants.map(\.name) ?? [])
        let overlay = PendingOverlay(context: self, entities: entities)
        var translation = TranslationContext(schema: schema)
        var names: [AnyKeyPath: String] = [:]
        for id in ids {
            let values = overlay.rows[id]?.values ?? container.index.records[id]?.values ?? [:]
            let decoder = RowDecoder<T>(values: values) { keyPath in
                if let name = names[keyPath] { return name }
                guard let (name, conversion) = try? translation.field(of: T.self, keyPath: keyPath),
                      conversion != .toOne, conversion != .toMany else {
                    throw FolioError(.invalidFetchDescriptor, "\(keyPath) is not a stored attribute of \(T.self), so it cannot be aggregated")
                }
                names[keyPath] = name
                return name
            }
            try body(values, decoder)
        }
    }
}

/// Decodes stored properties of one row for an aggregate.
struct RowDecoder<T> {
    let values: RecordValues
    let name: (AnyKeyPath) throws -> String

    func callAsFunction<Value: Decodable>(_ type: Value.Type, _ keyPath: KeyPath<T, Value>) throws -> Value {
        let field = try name(keyPath)
        do {
            if let special = try ValueDecoder.decodeSpecial(Value.self, from: values[field] ?? .null, codingPath: []) {
                return special
            }
            return try ValueDecoder.decode(Value.self, from: values[field] ?? .null)
        } catch {
            throw FolioError(.modelCoding, "\(T.self).\(field) could not be read for an aggregate", underlying: error)
        }
    }
}
