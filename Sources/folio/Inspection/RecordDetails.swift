import FolioStorage

/// One record as `folio show` and `folio serve` present it: its values, its relationships both ways and
/// the retained transactions that changed it.
struct RecordDetails {
    /// A relationship of the record and the identifiers it holds.
    struct Outgoing {
        var name: String
        var targets: [Int64]
        var destination: String?
    }

    /// A record whose relationship names this one.
    struct Incoming {
        var record: StoredRecord
        var relationship: String
    }

    /// A retained transaction that changed the record, with its change.
    struct HistoryEntry {
        var transaction: JournalTransaction
        var change: LogCommand.Change
    }

    var id: Int64
    var entity: String
    /// The current record, nil when it was deleted (and is known from its history only).
    var record: StoredRecord?
    var outgoing: [Outgoing]
    var incoming: [Incoming]
    /// Oldest first.
    var history: [HistoryEntry]

    /// Reads a record's details from a store's current state, or nil when neither the store nor its
    /// retained history knows the identifier.
    ///
    /// - Parameter views: What `folio serve` keeps of the store, which answers from its indexes; nil
    ///   reads the retained history and every referring record.
    static func load(id: Int64, store: Store, schema: SchemaInfo?, views: StoreViews? = nil) throws -> RecordDetails? {
        let history: [HistoryEntry]
        if let views {
            history = try views.history().history(of: id)
        } else {
            history = try StoreAccess.retainedHistory(store).compactMap { transaction in
                LogCommand.change(of: id, in: transaction).map { HistoryEntry(transaction: transaction, change: $0) }
            }
        }
        let record = store.record(id: id)
        guard let entity = record?.entity ?? history.first?.change.entity else { return nil }
        var outgoing: [Outgoing] = []
        if let record, let schema {
            for relationship in schema.relationships(of: entity) {
                outgoing.append(
                    Outgoing(
                        name: relationship.name, targets: RelationshipValue.identifiers(record.values[relationship.name]),
                        destination: relationship.destination))
            }
        }
        let incoming =
            if let views, let schema {
                views.incoming(schema: schema).incoming(to: id, entity: entity, schema: schema)
            } else {
                incoming(to: id, entity: entity, store: store, schema: schema)
            }
        return RecordDetails(id: id, entity: entity, record: record, outgoing: outgoing, incoming: incoming, history: history)
    }

    /// The records whose relationships name record `id` of `entity`.
    static func incoming(to id: Int64, entity: String, store: Store, schema: SchemaInfo?) -> [Incoming] {
        guard let schema else { return [] }
        var incoming: [Incoming] = []
        for other in schema.entities.keys.sorted() {
            let pointing = schema.relationships(of: other).filter { relationship in
                relationship.destination.map { schema.isKind(entity, of: $0) } ?? false
            }
            guard !pointing.isEmpty else { continue }
            for candidate in store.records(of: other) {
                for relationship in pointing where RelationshipValue.identifiers(candidate.values[relationship.name]).contains(id) {
                    incoming.append(Incoming(record: candidate, relationship: relationship.name))
                }
            }
        }
        return incoming
    }

    /// What `folio show --json` prints: entity, id, deleted, values, referredToBy and history.
    var json: JSONValue {
        var object: [String: JSONValue] = ["entity": .string(entity), "id": .int(id), "deleted": .bool(record == nil)]
        if let record { object["values"] = .object(record.values.dictionary) }
        object["referredToBy"] = .array(
            incoming.map {
                .object(["entity": .string($0.record.entity), "id": .int($0.record.id), "relationship": .string($0.relationship)])
            })
        object["history"] = .array(
            history.map { entry in
                var summary = LogCommand.summaryJSON(entry.transaction).objectValue ?? [:]
                summary["change"] = .string(entry.change.kind)
                summary["values"] = .object(entry.change.values)
                return .object(summary)
            })
        return .object(object)
    }
}
