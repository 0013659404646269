import FolioStorage

/// Resolves stored record numbers of relationships into models, through a context. Generated
/// `_folioResolve(_:)` calls it for each persisted property; it acts only on relationships that are
/// not loaded yet.
public struct ModelRelationshipResolver {
    let unresolved: [String: JSONValue]
    let context: ModelContext
    /// The properties this resolver loaded.
    private(set) var resolvedKeys: [String] = []

    init(unresolved: [String: JSONValue], context: ModelContext) {
        self.unresolved = unresolved
        self.context = context
    }

    /// Loads `field` from its stored record numbers if it is not loaded yet.
    public mutating func resolve<Value>(_ field: inout _ModelField<Value>, forKey key: String) {
        guard case .unloaded = field, let stored = unresolved[key] else { return }
        switch ValueKind.of(Value.self) {
        case .attribute:
            return
        case .toOne(_, let optional):
            let model = stored.intValue.flatMap { context.model(forRecordNumber: $0) }
            if let model {
                if optional, let wrapped = (Value.self as? any _OptionalValue.Type)?._wrapping(model) as? Value {
                    field = .loaded(wrapped)
                } else if let typed = model as? Value {
                    field = .loaded(typed)
                }
            } else if optional, let none = (Value.self as? any _OptionalValue.Type)?._none as? Value {
                field = .loaded(none)
            }
        case .toMany(_, let collection):
            let models: [Any] = (stored.arrayValue ?? []).compactMap { $0.intValue.flatMap { context.model(forRecordNumber: $0) } }
            if let typed = collection._make(models) as? Value {
                field = .loaded(typed)
            }
        }
        resolvedKeys.append(key)
    }
}
