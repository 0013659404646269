/// `@_PersistedProperty`, which `@Model` attaches to each persisted stored property.
///
/// - peer role: the storage `_name`, a `Folio._ModelField<Value>` that is either loaded or not yet
///   loaded from the store, with the property's default copied into it.
/// - accessor role: an `init` accessor (so ordinary initializers, defaults and `super.init` compile as
///   they would without the macro), a getter that registers Observation access and, on first read of
///   a fetched model's property, decodes it from the model's record (resolving it if it is a
///   relationship), and a setter that notifies Observation and records the change for the
///   model's context.
struct PersistedPropertyMacro {
    let request: ExpansionRequest

    func expand() -> ExpansionResult {
        guard let member = request.declaration, let decl = DeclParser.parseMember(member.source),
            case .persisted(let property) = PropertyRules.classify(decl)
        else {
            return ExpansionResult(source: "")
        }
        switch request.role {
        case .peer:
            return ExpansionResult(source: peer(property))
        case .accessor:
            return ExpansionResult(source: accessors(property))
        default:
            return ExpansionResult(source: "")
        }
    }

    private func peer(_ property: PersistedProperty) -> String {
        let storage = "_" + property.name
        switch (property.storageType, property.initializer) {
        case let (type?, initializer?):
            return "private var \(storage): Folio._ModelField<\(type)> = Folio._ModelField(\(initializer))"
        case let (type?, nil):
            return "private var \(storage): Folio._ModelField<\(type)>"
        case let (nil, initializer?):
            return "private var \(storage) = Folio._ModelField(\(initializer))"
        case (nil, nil):
            return ""
        }
    }

    private func accessors(_ property: PersistedProperty) -> String {
        let storage = "_" + property.name
        let keyPath = "\\.`\(property.name)`"
        // With nothing to load the value from, the property reads as its declared default, if it has one.
        let read =
            property.initializer.map {
                "\(storage).value(of: self, property: \"\(property.name)\", default: { \($0) })"
            } ?? "\(storage).value(of: self, property: \"\(property.name)\")"
        // A fetched model decodes the property from its record on first read; a record without a value
        // for it gives the declared default, once.
        let load =
            property.initializer.map {
                "Folio.ModelBackingData.loadValue(of: self, forKey: \"\(property.name)\", default: { \($0) })"
            } ?? "Folio.ModelBackingData.loadValue(of: self, forKey: \"\(property.name)\")"
        return """
            {
                @storageRestrictions(initializes: \(storage))
                init(initialValue) {
                    \(storage) = Folio._ModelField(initialValue)
                }
                get {
                    persistentBackingData.access(self, keyPath: \(keyPath))
                    if \(storage).isUnloaded {
                        \(storage) = \(load)
                        if \(storage).isUnloaded {
                            Folio.ModelBackingData.load(self)
                        }
                    }
                    return \(read)
                }
                set {
                    persistentBackingData.withMutation(self, keyPath: \(keyPath), property: "\(property.name)") {
                        \(storage) = Folio._ModelField(newValue)
                    }
                }
            }
            """
    }
}

/// `@Attribute`, `@Relationship` and `@Transient` expand to nothing: `@Model` reads them from the
/// class body and records their options in the schema metadata.
struct PropertyAnnotationMacro {
    let request: ExpansionRequest

    func expand() -> ExpansionResult {
        ExpansionResult(source: "")
    }
}
