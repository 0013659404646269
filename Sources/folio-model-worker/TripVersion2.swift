import Folio
import Foundation

/// The worker's `Trip` as the app's next version declares it: `name` renamed to `title` through
/// `originalName:`, `notes` removed. Opening a store of the first version with it migrates the store.
enum TripVersion2 {
    @Model
    final class Trip {
        #Index<Trip>([\.destination], [\.startDate])

        @Attribute(originalName: "name") var title: String
        var destination: String
        var startDate: Date
        var price: Double
        var nights: Int = 1
        @Attribute(.codable) var mapItem: MapItemIdentifier?

        init(title: String, destination: String, startDate: Date, price: Double) {
            self.title = title
            self.destination = destination
            self.startDate = startDate
            self.price = price
        }
    }
}

/// Opens the store at `url` with version 2 of `Trip`, which migrates it, and prints "migrated N".
func migrateToVersion2(_ url: URL) throws {
    let container = try ModelContainer(for: TripVersion2.Trip.self, configurations: ModelConfiguration(url: url))
    print("migrated \(try ModelContext(container).fetchCount(FetchDescriptor<TripVersion2.Trip>()))")
}

/// The worker's first `Trip` as a versioned schema (stores it writes record version 1.0.0).
enum TripWorkerSchemaV1: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(1, 0, 0) }
    static var models: [any PersistentModel.Type] { [Trip.self] }
}

enum TripWorkerSchemaV2: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(2, 0, 0) }
    static var models: [any PersistentModel.Type] { [TripVersion2.Trip.self] }
}

/// Version 1 to 2 as a custom stage whose `didMigrate` sets every trip's nights to 7.
enum TripWorkerPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [TripWorkerSchemaV1.self, TripWorkerSchemaV2.self] }
    static var stages: [MigrationStage] {
        [
            .custom(
                fromVersion: TripWorkerSchemaV1.self, toVersion: TripWorkerSchemaV2.self, willMigrate: nil,
                didMigrate: { context in
                    for trip in try context.fetch(FetchDescriptor<TripVersion2.Trip>()) { trip.nights = 7 }
                    try context.save()
                })
        ]
    }
}

/// Opens the store at `url` with version 2 through ``TripWorkerPlan``, whose custom stage migrates it,
/// and prints "migrated N".
func migrateToVersion2WithCustomStage(_ url: URL) throws {
    let container = try ModelContainer(
        for: Schema(versionedSchema: TripWorkerSchemaV2.self), migrationPlan: TripWorkerPlan.self,
        configurations: [ModelConfiguration(url: url)])
    print("migrated \(try ModelContext(container).fetchCount(FetchDescriptor<TripVersion2.Trip>()))")
}
