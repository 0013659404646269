import Synchronization

/// Whether a property's type is a plain value or a reference to models, found at run time from the type.
enum ValueKind {
    case attribute
    /// A model, or an optional model.
    case toOne(any PersistentModel.Type, optional: Bool)
    /// An array or set of models.
    case toMany(any PersistentModel.Type, collection: any _ModelCollection.Type)

    private static let known = TypeTable<ValueKind>()

    /// Classifies `type`, remembering the answer.
    static func of(_ type: any Any.Type) -> ValueKind {
        known.value(for: type) { classify(type) }
    }

    private static func classify(_ type: any Any.Type) -> ValueKind {
        if let model = type as? any PersistentModel.Type { return .toOne(model, optional: false) }
        if let optional = type as? any _OptionalValue.Type,
            let model = optional._wrappedType as? any PersistentModel.Type
        {
            return .toOne(model, optional: true)
        }
        if let collection = type as? any _ModelCollection.Type,
            let model = collection._elementType as? any PersistentModel.Type
        {
            return .toMany(model, collection: collection)
        }
        return .attribute
    }

    var isRelationship: Bool {
        if case .attribute = self { return false }
        return true
    }
}

/// Lets Folio see through `Optional` at run time.
public protocol _OptionalValue {
    static var _wrappedType: any Any.Type { get }
    static var _none: Self { get }
    var _isNone: Bool { get }
    var _wrappedValue: Any? { get }
    static func _wrapping(_ value: Any) -> Self?
}

extension Optional: _OptionalValue {
    public static var _wrappedType: any Any.Type { Wrapped.self }
    public static var _none: Self { nil }
    public var _isNone: Bool { self == nil }
    public var _wrappedValue: Any? {
        switch self {
        case .some(let value): return value
        case .none: return nil
        }
    }
    public static func _wrapping(_ value: Any) -> Self? {
        guard let wrapped = value as? Wrapped else { return nil }
        return .some(wrapped)
    }
}

/// Lets Folio build arrays and sets of models at run time.
public protocol _ModelCollection {
    static var _elementType: any Any.Type { get }
    static func _make(_ elements: [Any]) -> Self?
    var _elements: [Any] { get }
}

extension Array: _ModelCollection {
    public static var _elementType: any Any.Type { Element.self }
    public static func _make(_ elements: [Any]) -> Self? {
        var result: [Element] = []
        result.reserveCapacity(elements.count)
        for element in elements {
            guard let typed = element as? Element else { return nil }
            result.append(typed)
        }
        return result
    }
    public var _elements: [Any] { map { $0 } }
}

extension Set: _ModelCollection {
    public static var _elementType: any Any.Type { Element.self }
    public static func _make(_ elements: [Any]) -> Self? {
        var result: Set<Element> = []
        for element in elements {
            guard let typed = element as? Element else { return nil }
            result.insert(typed)
        }
        return result
    }
    public var _elements: [Any] { map { $0 } }
}

/// An optional to-many relationship (`var animals: [Animal]? = []`, the shape CloudKit-ready models
/// use) is a to-many relationship whose `nil` holds no models.
extension Optional: _ModelCollection where Wrapped: _ModelCollection {
    public static var _elementType: any Any.Type { Wrapped._elementType }
    public static func _make(_ elements: [Any]) -> Self? {
        Wrapped._make(elements).map { .some($0) }
    }
    public var _elements: [Any] { self?._elements ?? [] }
}

// Unchecked: it holds only metatypes, of protocols that do not refine SendableMetatype.
extension ValueKind: @unchecked Sendable {}
