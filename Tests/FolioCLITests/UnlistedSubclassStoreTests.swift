import Foundation
import FolioStorage
import Testing

@Suite("Stores holding subclasses their models did not list")
struct UnlistedSubclassStoreTests {
    /// The schema slot as a container made for `Trip` alone writes it once a context stored a
    /// `BusinessTrip` (a subclass it was not given) and a private subclass the runtime cannot look up
    /// by name: each unlisted, the first with its class's qualified name.
    static let schema: JSONValue = {
        let attribute: (String) -> JSONValue = { .object(["kind": .string("attribute"), "type": .string($0)]) }
        let tripProperties: [String: JSONValue] = ["name": attribute("String"), "destination": attribute("String"), "price": attribute("Double")]
        let indices: JSONValue = .array([.array([.string("destination")])])
        return .object([
            "version": .string("1.0.0"),
            "entities": .object([
                "Trip": .object(["properties": .object(tripProperties), "indices": indices]),
                "BusinessTrip": .object([
                    "superentity": .string("Trip"), "unlisted": .bool(true), "className": .string("Sample.BusinessTrip"),
                    "properties": .object(tripProperties.merging(["perdiem": attribute("Double")]) { $1 }), "indices": indices,
                ]),
                "SecretTrip": .object([
                    "superentity": .string("Trip"), "unlisted": .bool(true),
                    "properties": .object(tripProperties.merging(["codename": attribute("String")]) { $1 }), "indices": indices,
                ]),
            ]),
        ])
    }()

    static func write(to url: URL) throws {
        let store = try Store.open(at: url)
        defer { store.close() }
        try store.write(author: nil) { t in
            t.setSchema(schema)
            try t.insert(
                entity: "Trip", id: t.allocateID(), values: ["name": .string("Weekend"), "destination": .string("Rome"), "price": .double(300)])
            try t.insert(
                entity: "BusinessTrip", id: t.allocateID(),
                values: ["name": .string("Summit"), "destination": .string("Oslo"), "price": .double(900), "perdiem": .double(80)])
            try t.insert(
                entity: "SecretTrip", id: t.allocateID(),
                values: ["name": .string("Heist"), "destination": .string("Lima"), "price": .double(1000), "codename": .string("Nightjar")])
        }
    }

    @Test func verifyAcceptsTheSubclassRecordsAndTheirRecordedEntities() throws {
        let scratch = ScratchDirectory()
        defer { scratch.remove() }
        let store = scratch.appending("trips")
        try Self.write(to: store)
        let verify = try folio("verify", store.path)
        #expect(verify.status == 0, "\(verify)")
        #expect(verify.stdout.contains("3 records, 3 entities"), "\(verify.stdout)")
        #expect(verify.stdout.hasSuffix("OK: no problems.\n"))
        let schema = try folio("schema", store.path)
        #expect(schema.status == 0, "\(schema)")
        #expect(schema.stdout.contains("BusinessTrip : Trip") && schema.stdout.contains("SecretTrip : Trip"), "\(schema.stdout)")
    }
}
