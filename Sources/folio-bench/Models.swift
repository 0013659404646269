import Foundation
import Folio

/// The map item of a trip, stored through its own `Codable` as an opaque value (`{"rawValue":"I…"}`),
/// as the SQLite harness stores it as JSON text.
struct MapItem: Codable, Hashable {
    var rawValue: String
}

// The Trip model, declared as a user would, in two versions of the schema (the SwiftData
// `VersionedSchema` pattern): both declare the entity `Trip` with the same properties, and differ only
// in their indexes. V1 is the store as loaded (an index on destination, like `trip_destination`); V2
// adds the index on startDate, which W4 "with index" creates and every later step uses (as SQLite's
// `trip_startDate` stays in the file from then on).
//
// The generator's UUID string is stored in `tripID`, not `id`: a stored `id` would shadow the
// `Identifiable` identity `@Model` provides (`persistentModelID`). It is `.unique`, as SQLite's
// `id TEXT PRIMARY KEY` is.

enum TripSchemaV1: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(1, 0, 0) }
    static var models: [any PersistentModel.Type] { [Trip.self] }

    @Model
    final class Trip {
        #Index<Trip>([\.destination])

        @Attribute(.unique) var tripID: String
        var name: String
        var destination: String
        var startDate: Date
        var price: Double
        @Attribute(.codable) var mapItem: MapItem

        init(tripID: String, name: String, destination: String, startDate: Date, price: Double, mapItem: MapItem) {
            self.tripID = tripID
            self.name = name
            self.destination = destination
            self.startDate = startDate
            self.price = price
            self.mapItem = mapItem
        }
    }
}

enum TripSchemaV2: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(2, 0, 0) }
    static var models: [any PersistentModel.Type] { [Trip.self] }

    @Model
    final class Trip {
        #Index<Trip>([\.destination], [\.startDate])

        @Attribute(.unique) var tripID: String
        var name: String
        var destination: String
        var startDate: Date
        var price: Double
        @Attribute(.codable) var mapItem: MapItem

        init(tripID: String, name: String, destination: String, startDate: Date, price: Double, mapItem: MapItem) {
            self.tripID = tripID
            self.name = name
            self.destination = destination
            self.startDate = startDate
            self.price = price
            self.mapItem = mapItem
        }
    }
}

extension TripSchemaV1.Trip {
    convenience init(_ record: TripRecord) {
        self.init(
            tripID: record.id, name: record.name, destination: record.destination,
            startDate: Date(timeIntervalSince1970: record.startDate), price: record.price,
            mapItem: MapItem(rawValue: record.mapRaw))
    }
}

extension TripSchemaV2.Trip {
    convenience init(_ record: TripRecord) {
        self.init(
            tripID: record.id, name: record.name, destination: record.destination,
            startDate: Date(timeIntervalSince1970: record.startDate), price: record.price,
            mapItem: MapItem(rawValue: record.mapRaw))
    }
}
