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
