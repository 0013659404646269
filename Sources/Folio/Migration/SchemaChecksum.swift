import FolioStorage

/// The checksum of a schema's stored shape, as SwiftData's entity version hashes identify a model
/// version: the SHA-256 of a canonical JSON fingerprint (`docs/file-format.md` spells it out).
///
/// The fingerprint holds what decides how records are stored and read: each entity's name and
/// superentity; each stored property's name, kind, type, optionality, uniqueness, and a relationship's
/// destination and arity; the entity's uniqueness groups. It leaves out the version identifier, so that
/// two versions with the same shape share a checksum, and what does not change the records' shape:
/// original names, delete rules, inverses, indexes, ephemeral properties, declaration order.
package enum SchemaChecksum {
    /// Names the fingerprint's layout, so that a later layout cannot be mistaken for this one.
    static let algorithm = "folio-schema-checksum-1"

    package static func checksum(of schema: RecordedSchema) -> String {
        // The fingerprint holds only strings, booleans, arrays and objects, which always encode.
        let bytes = (try? CanonicalJSONWriter().bytes(fingerprint(of: schema))) ?? []
        return SHA256.hexDigest(bytes)
    }

    package static func fingerprint(of schema: RecordedSchema) -> JSONValue {
        var entities: [String: JSONValue] = [:]
        for (name, entity) in schema.entities {
            var properties: [String: JSONValue] = [:]
            for (propertyName, property) in entity.storedProperties {
                var members: [String: JSONValue] = [
                    "kind": .string(property.kind.rawValue), "optional": .bool(property.isOptional),
                    "unique": .bool(property.isUnique),
                ]
                if property.isRelationship {
                    members["destination"] = .string(property.destination ?? "")
                    members["toMany"] = .bool(property.isToMany)
                } else {
                    members["type"] = .string(property.type ?? "")
                }
                properties[propertyName] = .object(members)
            }
            let uniqueness = Set(entity.uniqueness.map { $0.sorted() }).sorted { $0.lexicographicallyPrecedes($1) }
            var members: [String: JSONValue] = [
                "properties": .object(properties),
                "uniqueness": .array(uniqueness.map { .array($0.map(JSONValue.string)) }),
            ]
            if let superentity = entity.superentity { members["superentity"] = .string(superentity) }
            entities[name] = .object(members)
        }
        return .object(["algorithm": .string(algorithm), "entities": .object(entities)])
    }
}

extension Schema {
    /// The checksum of the schema's stored shape: equal for two schemas whose records are stored alike,
    /// whatever their version identifiers (see `docs/file-format.md`).
    package var checksum: String { RecordedSchema(self).computedChecksum }
}
