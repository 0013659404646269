/// Refuses predicates and sort descriptors that reach inside a `.codable` attribute, whose contents
/// Folio stores as an opaque value.
///
/// Comparing a whole `.codable` value with `nil` (`$0.mapItem == nil`) is allowed: it only asks
/// whether a value is stored. Anything that reads inside it — `$0.mapItem?.rawValue`,
/// `$0.mapItem!.rawValue`, `\.mapItem.rawValue` in a sort — throws
/// ``FolioError/Code/invalidFetchDescriptor``, and so does sorting by a `.codable` attribute as a whole.
enum OpaqueAttributeCheck {
    struct Opaque {
        var entity: String
        var attribute: String
        var keyPath: AnyKeyPath
        var valueType: any Any.Type
        /// ``normalizedText(_:)`` of the key path.
        var text: String
    }

    /// Every `.codable` attribute of every entity, inherited ones included, with its key path rooted at
    /// that entity (a sort over a subclass names `\Cafe.mapItem`, not `\Place.mapItem`).
    static func opaqueAttributes(in schema: Schema) -> [Opaque] {
        schema.entities.flatMap { entity -> [Opaque] in
            let codable = Set(entity.attributesByName.values.filter(\.isCodable).map(\.name))
            guard !codable.isEmpty else { return [] }
            return entity.modelType._folioKeyPathTable.compactMap { keyPath, name -> Opaque? in
                guard codable.contains(name), let attribute = entity.attributesByName[name] else { return nil }
                let unwrapped = (attribute.valueType as? any _OptionalValue.Type)?._wrappedType ?? attribute.valueType
                return Opaque(
                    entity: entity.name, attribute: name, keyPath: keyPath, valueType: unwrapped,
                    text: normalizedText(keyPath))
            }
        }
    }

    /// Checks every key path in a predicate's expression tree.
    static func check(predicateExpression: Any, schema: Schema) throws {
        let opaque = opaqueAttributes(in: schema)
        guard !opaque.isEmpty else { return }
        for keyPath in keyPaths(in: predicateExpression) {
            if let hit = reachesInside(keyPath, opaque, schema) {
                throw FolioError(
                    .invalidFetchDescriptor,
                    "The predicate reads \(display(keyPath, hit)) inside '\(hit.entity).\(hit.attribute)', which is stored with @Attribute(.codable) as an opaque value; predicates and sorts cannot look inside it. Compare the whole value with nil, or store the part you query as its own property"
                )
            }
        }
    }

    /// Checks a sort descriptor's key path.
    static func check(sortKeyPath keyPath: AnyKeyPath, schema: Schema) throws {
        let opaque = opaqueAttributes(in: schema)
        if let hit = opaque.first(where: { $0.keyPath == keyPath }) {
            throw FolioError(
                .invalidFetchDescriptor,
                "Cannot sort by '\(hit.entity).\(hit.attribute)': it is stored with @Attribute(.codable) as an opaque value, which has no order")
        }
        if let hit = reachesInside(keyPath, opaque, schema) {
            throw FolioError(
                .invalidFetchDescriptor,
                "The sort descriptor reads \(display(keyPath, hit)) inside '\(hit.entity).\(hit.attribute)', which is stored with @Attribute(.codable) as an opaque value; sorts cannot look inside it"
            )
        }
    }

    /// The `.codable` attribute that `keyPath` reads inside of, if any: a key path rooted at the
    /// attribute's type, or one that begins with the attribute's key path and goes on.
    private static func reachesInside(_ keyPath: AnyKeyPath, _ opaque: [Opaque], _ schema: Schema) -> Opaque? {
        let rootType = type(of: keyPath).rootType
        if let hit = opaque.first(where: { ObjectIdentifier($0.valueType) == ObjectIdentifier(rootType) }) {
            return hit
        }
        guard let model = rootType as? any PersistentModel.Type,
            let entity = schema.entitiesByName[model._folioEntityName]
        else { return nil }
        let text = normalizedText(keyPath)
        let candidates = opaque.filter { $0.entity == entity.name && text.count > $0.text.count && text.hasPrefix($0.text) }
        guard let hit = candidates.first else { return nil }
        // Where accessor addresses are left out of the text, a property of another kind with the same
        // type reads the same: then which one the key path starts with is not known, and it is let through.
        let ambiguous = entity.modelType._folioKeyPathTable.contains { other, name in
            name != hit.attribute && !candidates.contains { $0.attribute == name } && text.hasPrefix(normalizedText(other))
        }
        return ambiguous ? nil : hit
    }

    /// A key path's text without accessor addresses: on Linux a property's component reads
    /// `<computed 0x… (Type)>`, and the address differs between a key path formed in generic code
    /// (a subclass's, in `_folioKeyPathTable`) and one a person writes.
    static func normalizedText(_ keyPath: AnyKeyPath) -> String {
        var text = Substring("\(keyPath)")
        var result = ""
        while let range = text.range(of: "<computed 0x") {
            result += text[..<range.lowerBound]
            result += "<computed "
            var rest = text[range.upperBound...]
            while let first = rest.first, first.isHexDigit { rest = rest.dropFirst() }
            if rest.first == " " { rest = rest.dropFirst() }
            text = rest
        }
        return result + text
    }

    /// The key path as a person wrote it, such as `'\.mapItem?.rawValue'`.
    private static func display(_ keyPath: AnyKeyPath, _ hit: Opaque) -> String {
        let text = normalizedText(keyPath)
        let prefix = hit.text
        var rest: Substring
        if text.hasPrefix(prefix) {
            rest = text.dropFirst(prefix.count)  // "?.rawValue?" for \Trip.mapItem?.rawValue
            if rest.hasSuffix("?") { rest = rest.dropLast() }
        } else if let dot = text.firstIndex(of: ".") {
            rest = text[dot...]  // ".rawValue" for \MapItemIdentifier.rawValue
        } else {
            rest = ""
        }
        return "'\\.\(hit.attribute)\(rest)'"
    }

    /// Every key path stored anywhere in a value (an expression tree), found by reflection.
    static func keyPaths(in value: Any) -> [AnyKeyPath] {
        var result: [AnyKeyPath] = []
        func walk(_ value: Any, _ depth: Int) {
            guard depth < 64 else { return }
            if let keyPath = value as? AnyKeyPath {
                result.append(keyPath)
                return
            }
            for child in Mirror(reflecting: value).children {
                walk(child.value, depth + 1)
            }
        }
        walk(value, 0)
        return result
    }
}
