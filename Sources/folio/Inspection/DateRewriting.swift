import Folio
import FolioStorage

/// Puts the dates of a store's records in today's canonical text form: a fraction of a second written
/// with the fewest digits that read back as the identical `Date`. Stores written before that form carry
/// longer fractions (the exact binary expansion); these read back as the same dates, and are rewritten
/// here so that one date has one form again.
///
/// Only attributes the schema declares as `Date` are rewritten; dates inside `Codable` values keep
/// the form they were written in until the app saves them again.
enum DateRewriting {
    /// A record's changed date values.
    struct Update {
        var entity: String
        var id: Int64
        var values: [String: JSONValue]
    }

    /// The updates that would put every date attribute of `store`'s records in the canonical form.
    static func updates(in store: Store) -> [Update] {
        guard let schema = SchemaInfo(store.schema) else { return [] }
        var updates: [Update] = []
        for entity in schema.entities.keys.sorted() {
            let dateNames = dateProperties(of: entity, in: schema)
            guard !dateNames.isEmpty else { continue }
            for record in store.records(of: entity) {
                var changed: [String: JSONValue] = [:]
                for name in dateNames {
                    guard let stored = record.values[name], case .string(let text) = stored,
                        let date = CanonicalDate.parse(text)
                    else { continue }
                    let canonical = CanonicalDate.encode(date)
                    if canonical != stored { changed[name] = canonical }
                }
                if !changed.isEmpty { updates.append(Update(entity: entity, id: record.id, values: changed)) }
            }
        }
        return updates
    }

    /// Writes ``updates(in:)`` in one transaction by `author`; returns how many records changed.
    static func rewrite(_ store: Store, author: String) throws -> Int {
        let updates = updates(in: store)
        guard !updates.isEmpty else { return 0 }
        _ = try store.write(author: author) { transaction in
            for update in updates {
                try transaction.update(entity: update.entity, id: update.id, values: update.values)
            }
        }
        return updates.count
    }

    /// The names of `entity`'s date attributes, its superentities' included (a record holds them all).
    private static func dateProperties(of entity: String, in schema: SchemaInfo) -> [String] {
        var names: [String] = []
        var next: String? = entity
        var seen: Set<String> = []
        while let name = next, seen.insert(name).inserted, let description = schema.entities[name] {
            names += description.properties.values.filter { $0.isDate && !$0.isRelationship }.map(\.name)
            next = description.superentity
        }
        return names.sorted()
    }
}
