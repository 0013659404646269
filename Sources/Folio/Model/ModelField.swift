/// The storage `@Model` gives each persisted property: the value, or a note that it is not loaded yet.
///
/// A property is not loaded between `init(_claimed:)` and the moment its context fills it, and a
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
    /// here on an instance with nothing to load it from: the placeholder `model(for:)` returns for an identifier the store does not have, or the stand-in
    /// `FetchResultsCollection` returns for a record deleted after the fetch. It then reads as its type's
    /// empty value (see `PlaceholderValue`) rather than stopping the program.
    @inlinable
    public func value<Model: PersistentModel>(of model: Model, property: String) -> Value {
        switch self {
        case .loaded(let value):
            return value
        case .unloaded:
            return _ModelFieldPlaceholder.value(Value.self, property: property, of: Model.self)
        }
    }
}

extension _ModelField {
    /// The loaded value, or, with nothing to load it from, the property's declared default.
    @inlinable
    public func value<Model: PersistentModel>(of model: Model, property: String, default makeDefault: () -> Value) -> Value {
        switch self {
        case .loaded(let value): return value
        case .unloaded: return makeDefault()
        }
    }
}

/// The empty value an unloaded property reads as; used by `_ModelField.value(of:property:)`.
@usableFromInline
enum _ModelFieldPlaceholder {
    @usableFromInline
    static func value<Value>(_ type: Value.Type, property: String, of model: Any.Type) -> Value {
        if let value = PlaceholderValue.make(type) { return value }
        // Unreachable: a type with no empty value (say an enum with raw values 1–3) always has a value
        // to show. Models made by their own initializers set every property without a default (the
        // compiler checks it). Folio never makes an instance with nothing to load such a property
        // from: a class that has one loads completely when fetched (a record that does not decode
        // fails the fetch), lazy fetches load it up front, and `model(for:)` and relationship
        // placeholders use another class for it (see `PlaceholderValue.canStandIn`, which answers the
        // classes on a cycle of required relationships together, so that a class needing a placeholder
        // of one that cannot stand in cannot stand in either). And no instance
        // can share another's backing data: `init(backingData:)` refuses it with
        // `FolioError.invalidModel`, and its designated counterpart takes a `_ClaimedBackingData` that
        // only Folio makes.
        preconditionFailure("internal error: \(model).\(property) has nothing to load it from and \(Value.self) has no empty value to stand in")
    }
}
