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
    /// Models a context creates are fully loaded: required relationships are resolved when the record
    /// is loaded (a record referring to a missing one makes the fetch throw), optional ones become nil
    /// and to-many ones drop missing records when first read. A property can only still be unloaded
    /// here on an instance that no context loaded: one made with `init(backingData:)` directly, or the
    /// stand-in `FetchResultsCollection` returns for a record deleted after the fetch whose required
    /// relationship's record was deleted too. Reading it is a programming error, as in SwiftData.
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
