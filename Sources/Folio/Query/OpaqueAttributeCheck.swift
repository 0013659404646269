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
    }

    static func opaqueAttributes(in schema: Schema) -> [Opaque] {
        schema.entities.flatMap { entity in
            entity.declaredProperties.compactMap { property -> Opaque? in
                guard let attribute = property as? Schema.Attribute, attribute.isCodable, let keyPath = attribute.keyPath else {
                    return nil
                }
                let unwrapped = (attribute.valueType as? any _OptionalValue.Type)?._wrappedType ?? attribute.valueType
                return Opaque(entity: entity.name, attribute: attribute.name, keyPath: keyPath, valueType: unwrapped)
            }
        }
    }

    /// Checks every key path in a predicate's expression tree.
    static func check(predicateExpression: Any, schema: Schema) throws {
        let opaque = opaqueAttributes(in: schema)
        guard !opaque.isEmpty else { return }
        for keyPath in keyPaths(in: predicateExpression) {
            if let hit = reachesInside(keyPath, opaque) {
                throw FolioError(.invalidFetchDescriptor,
                    "The predicate reads \(display(keyPath, hit)) inside '\(hit.entity).\(hit.attribute)', which is stored with @Attribute(.codable) as an opaque value; predicates and sorts cannot look inside it. Compare the whole value with nil, or store the part you query as its own property")
            }
        }
    }

    /// Checks a sort descriptor's key path.
    static func check(sortKeyPath keyPath: AnyKeyPath, schema: Schema) throws {
        let opaque = opaqueAttributes(in: schema)
        if let hit = opaque.first(where: { $0.keyPath == keyPath || "\($0.keyPath)" == "\(keyPath)" }) {
            throw FolioError(.invalidFetchDescriptor,
                "Cannot sort by '\(hit.entity).\(hit.attribute)': it is stored with @Attribute(.codable) as an opaque value, which has no order")
        }
        if let hit = reachesInside(keyPath, opaque) {
            throw FolioError(.invalidFetchDescriptor,
                "The sort descriptor reads \(display(keyPath, hit)) inside '\(hit.entity).\(hit.attribute)', which is stored with @Attribute(.codable) as an opaque value; sorts cannot look inside it")
        }
    }

    private static func reachesInside(_ keyPath: AnyKeyPath, _ opaque: [Opaque]) -> Opaque? {
        let rootType = type(of: keyPath).rootType
        if let hit = opaque.first(where: { ObjectIdentifier($0.valueType) == ObjectIdentifier(rootType) }) {
            return hit
        }
        let text = "\(keyPath)"
        return opaque.first { hit in
            let prefix = "\(hit.keyPath)"
            return text.count > prefix.count && text.hasPrefix(prefix)
        }
    }

    /// The key path as a person wrote it, such as `'\.mapItem?.rawValue'`.
    private static func display(_ keyPath: AnyKeyPath, _ hit: Opaque) -> String {
        let text = "\(keyPath)"
        let prefix = "\(hit.keyPath)"
        var rest: Substring
        if text.hasPrefix(prefix) {
            rest = text.dropFirst(prefix.count)           // "?.rawValue?" for \Trip.mapItem?.rawValue
            if rest.hasSuffix("?") { rest = rest.dropLast() }
        } else if let dot = text.firstIndex(of: ".") {
            rest = text[dot...]                            // ".rawValue" for \MapItemIdentifier.rawValue
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
