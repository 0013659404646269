/// The storage `@Model` gives each persisted property: the value, or a note that it is not loaded yet.
///
/// A property is not loaded between `init(backingData:)` and the moment its context fills it, and a
/// relationship stays not loaded until it is first read, so that loading one model never loads the
/// whole graph. Generated code uses this type; you don't need to.
public enum _ModelField<Value> {
    case unloaded
    case loaded(Value)

    @inlinable
    public init(_ value: Value) {
        self = .loaded(value)
    }

    @inlinable
    public var isUnloaded: Bool {
        if case .unloaded = self { return true }
        return false
    }

    /// The loaded value.
    ///
    /// A property can only still be unloaded here when its model's record is gone from the store (a
    /// relationship read after the related model was deleted by another context or process without
    /// its inverse being updated); SwiftData stops the program in that case too.
    @inlinable
    public func value<Model: PersistentModel>(of model: Model, property: String) -> Value {
        switch self {
        case .loaded(let value):
            return value
        case .unloaded:
            preconditionFailure(
                "\(Model.self) \(model.persistentModelID): the value of '\(property)' could not be loaded because the record it refers to is no longer in the store")
        }
    }
}
