import Foundation
import Folio

// The migration measurements of issue "Schema evolution": a lightweight migration (a rename and an
// added property with a default) and a custom stage that touches every record, each beside what it is
// measured against: one compaction of the same store, and an object-style update of every record.
// Each step is a process of its own, so that its peak RSS is its own.

/// V3: `name` renamed to `title`, a `rating` added with a default. Lightweight from V1 and V2.
enum TripSchemaV3: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(3, 0, 0) }
    static var models: [any PersistentModel.Type] { [Trip.self] }

    @Model
    final class Trip {
        #Index<Trip>([\.destination], [\.startDate])

        @Attribute(.unique) var tripID: String
        @Attribute(originalName: "name") var title: String
        var destination: String
        var startDate: Date
        var price: Double
        @Attribute(.codable) var mapItem: MapItem
        var rating: Int = 0

        init(tripID: String, title: String, destination: String, startDate: Date, price: Double, mapItem: MapItem) {
            self.tripID = tripID
            self.title = title
            self.destination = destination
            self.startDate = startDate
            self.price = price
            self.mapItem = mapItem
        }
    }
}

/// V4: a `priceBand` that a custom stage computes from every trip's price.
enum TripSchemaV4: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(4, 0, 0) }
    static var models: [any PersistentModel.Type] { [Trip.self] }

    @Model
    final class Trip {
        #Index<Trip>([\.destination], [\.startDate])

        @Attribute(.unique) var tripID: String
        @Attribute(originalName: "name") var title: String
        var destination: String
        var startDate: Date
        var price: Double
        @Attribute(.codable) var mapItem: MapItem
        var rating: Int = 0
        var priceBand: Int = 0

        init(tripID: String, title: String, destination: String, startDate: Date, price: Double, mapItem: MapItem) {
            self.tripID = tripID
            self.title = title
            self.destination = destination
            self.startDate = startDate
            self.price = price
            self.mapItem = mapItem
        }
    }
}

enum TripMigrationPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] {
        [TripSchemaV1.self, TripSchemaV2.self, TripSchemaV3.self, TripSchemaV4.self]
    }

    static var stages: [MigrationStage] {
        [
            .lightweight(fromVersion: TripSchemaV1.self, toVersion: TripSchemaV2.self),
            .lightweight(fromVersion: TripSchemaV2.self, toVersion: TripSchemaV3.self),
            .custom(
                fromVersion: TripSchemaV3.self, toVersion: TripSchemaV4.self, willMigrate: nil,
                didMigrate: { context in
                    for trip in try context.fetch(FetchDescriptor<TripSchemaV4.Trip>()) { trip.priceBand = Int(trip.price / 100) }
                    try context.save()
                }),
        ]
    }
}

/// The plan without its last stage: what opening with V3 runs.
enum TripLightweightPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [TripSchemaV1.self, TripSchemaV2.self, TripSchemaV3.self] }
    static var stages: [MigrationStage] { Array(TripMigrationPlan.stages.prefix(2)) }
}

enum MigrationBench {
    /// `folio-bench migrate STORE compact|lightweight|custom|update-all`: one step, one JSON row.
    static func run(_ path: String, step: String) {
        let url = Workloads.storeURL(path)
        let usage = StepUsage()
        let t0 = now()
        var rows = 0
        var api = ""
        // Each step's time is taken before it counts its rows, which only show that it worked.
        var seconds = 0.0
        do {
            switch step {
            case "compact":
                // What the lightweight migration is measured against: one compaction of the store as it is.
                let container = try ModelContainer(
                    for: Schema(versionedSchema: TripSchemaV2.self),
                    configurations: [ModelConfiguration(url: url)])
                try measuredStep { try container.compact() }
                seconds = now() - t0
                rows = try ModelContext(container).fetchCount(FetchDescriptor<TripV2>())
                api = "ModelContainer(V2).compact()"
            case "lightweight":
                let container = try measuredStep {
                    try ModelContainer(
                        for: Schema(versionedSchema: TripSchemaV3.self), migrationPlan: TripLightweightPlan.self,
                        configurations: [ModelConfiguration(url: url)])
                }
                seconds = now() - t0
                rows = try ModelContext(container).fetchCount(FetchDescriptor<TripSchemaV3.Trip>())
                api = "ModelContainer(V3, migrationPlan:): rename name → title, add rating = 0"
            case "custom":
                let container = try measuredStep {
                    try ModelContainer(
                        for: Schema(versionedSchema: TripSchemaV4.self), migrationPlan: TripMigrationPlan.self,
                        configurations: [ModelConfiguration(url: url)])
                }
                seconds = now() - t0
                rows = try ModelContext(container).fetchCount(FetchDescriptor<TripSchemaV4.Trip>(predicate: #Predicate { $0.priceBand > 0 }))
                api = "ModelContainer(V4, migrationPlan:): custom stage, didMigrate sets priceBand on every trip"
            case "update-all":
                // What the custom stage is measured against: W7's object style, over every record.
                let container = try ModelContainer(
                    for: Schema(versionedSchema: TripSchemaV4.self), migrationPlan: TripMigrationPlan.self,
                    configurations: [ModelConfiguration(url: url)])
                let context = ModelContext(container)
                rows = try measuredStep {
                    let trips = try context.fetch(FetchDescriptor<TripSchemaV4.Trip>())
                    for trip in trips { trip.priceBand += 1 }
                    try context.save()
                    return trips.count
                }
                seconds = now() - t0
                api = "fetch every trip, priceBand += 1, save()"
            default:
                usageExit()
            }
        } catch {
            fail("migrate \(step)", error)
        }
        var row = Row("M1")
        row.add("step", step)
        row.add("rows", rows)
        row.add("seconds", seconds, decimals: 4)
        row.add("folio_api", api)
        usage.spent().add(to: &row)
        row.add("maxrss_kib", peakRSSKiB())
        addDiskUsage(&row, "store", url)
        row.emit()
    }
}
