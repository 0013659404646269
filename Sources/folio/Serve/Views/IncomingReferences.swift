import FolioStorage

/// For each record, the records whose relationships name it, in the order ``RecordDetails/incoming(to:entity:store:schema:)``
/// lists them: by the referring entity's name, then the store's order of its records, then the
/// schema's order of relationships.
struct IncomingReferences: Sendable {
    /// A relationship of `record` that names the record looked up, and the entity it points to.
    struct Reference: Sendable {
        var record: StoredRecord
        var relationship: String
        var destination: String?
    }

    private var references: [Int64: [Reference]] = [:]

    /// Reads every relationship of every record of `store` once.
    ///
    /// - Complexity: O(records × relationships).
    init(store: Store, schema: SchemaInfo) {
        for entity in schema.entities.keys.sorted() {
            let relationships = schema.relationships(of: entity)
            guard !relationships.isEmpty else { continue }
            for record in store.records(of: entity) {
                for relationship in relationships {
                    for target in Set(RelationshipValue.identifiers(record.values[relationship.name])) {
                        references[target, default: []].append(
                            Reference(record: record, relationship: relationship.name, destination: relationship.destination))
                    }
                }
            }
        }
    }

    /// The records whose relationships to `entity` (or an entity it is a kind of) name record `id`.
    func incoming(to id: Int64, entity: String, schema: SchemaInfo) -> [RecordDetails.Incoming] {
        (references[id] ?? []).filter { reference in reference.destination.map { schema.isKind(entity, of: $0) } ?? false }
            .map { RecordDetails.Incoming(record: $0.record, relationship: $0.relationship) }
    }
}
