import FolioStorage

/// A change that ``ModelContext/update(model:where:includeSubclasses:_:)`` makes to one attribute of
/// every record a predicate matches, without making a model of any of them.
///
/// ```swift
/// // UPDATE trip SET price = price + 1 WHERE destination = 'Paris'
/// try context.update(model: Trip.self, where: #Predicate { $0.destination == "Paris" },
///                    .set(\.price) { $0 + 1 })
/// // Two attributes at once, one to a constant.
/// try context.update(model: Trip.self, where: #Predicate { $0.price > 1000 },
///                    .set(\.category, to: "premium"), .set(\.price) { $0 * 0.9 })
/// ```
///
/// The key path must name a stored attribute of the model: not a relationship, not an `.ephemeral`
/// attribute. Its value type is the property's, so the compiler refuses a value of the wrong type, and
/// `nil` for an attribute that is not optional.
///
/// The changes are inlinable, so that reading and writing the common value types is specialized for
/// the attribute's type where the update is written.
public struct AttributeUpdate<Model: PersistentModel> {
    /// The attribute, as the model's key path.
    @usableFromInline let keyPath: AnyKeyPath
    /// Whether the attribute's type is a relationship's (a model or a collection of models).
    @usableFromInline let isRelationship: Bool
    /// Whether ``newValue`` reads the attribute's current value (a transform does; a constant does not).
    @usableFromInline let readsCurrentValue: Bool
    /// The stored form of the new value, given the record's current stored value (read through the
    /// attribute's type: its declared default when the record has none) and the attribute's name.
    @usableFromInline let newValue: (_ current: JSONValue?, _ defaultValue: Any?, _ name: String) throws -> JSONValue

    @usableFromInline
    init(
        keyPath: AnyKeyPath, isRelationship: Bool, readsCurrentValue: Bool,
        newValue: @escaping (_ current: JSONValue?, _ defaultValue: Any?, _ name: String) throws -> JSONValue
    ) {
        self.keyPath = keyPath
        self.isRelationship = isRelationship
        self.readsCurrentValue = readsCurrentValue
        self.newValue = newValue
    }

    /// Sets the attribute to `value` in every matching record.
    @inlinable
    public static func set<Value>(_ keyPath: ReferenceWritableKeyPath<Model, Value>, to value: Value) -> AttributeUpdate {
        AttributeUpdate(keyPath: keyPath, isRelationship: AttributeValueCoding.isRelationship(Value.self), readsCurrentValue: false) { _, _, name in
            try AttributeValueCoding.encode(value, property: name, entity: Model._folioEntityName)
        }
    }

    /// Sets the attribute of every matching record to what `transform` makes of its current value,
    /// as `UPDATE … SET price = price + 1` does. The closure runs once per record, on the calling thread;
    /// an error it throws stops the update before anything is written.
    @inlinable
    public static func set<Value>(
        _ keyPath: ReferenceWritableKeyPath<Model, Value>,
        _ transform: @escaping (Value) throws -> Value
    ) -> AttributeUpdate {
        AttributeUpdate(keyPath: keyPath, isRelationship: AttributeValueCoding.isRelationship(Value.self), readsCurrentValue: true) {
            current, defaultValue, name in
            let old: Value = try AttributeValueCoding.decode(
                current, as: Value.self, defaultValue: defaultValue,
                property: name, entity: Model._folioEntityName)
            return try AttributeValueCoding.encode(try transform(old), property: name, entity: Model._folioEntityName)
        }
    }
}
