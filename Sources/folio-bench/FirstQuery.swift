import Folio
import Foundation

extension Workloads {
    /// W9: what a tool or an app does at launch, in a process of its own: open the store and read the
    /// ~5,000 trips of one city into models, every property of each, as the SQLite peer reads rows into
    /// structs. The store is the one W1 wrote with the V1 model.
    static func first(_ path: String) {
        let url = storeURL(path)
        let t0 = now()
        let container = container(TripV1.self, url, readingRecords: false)
        let context = ModelContext(container)
        keepAlive += [container, context]
        let trips: [TripV1]
        do {
            trips = try context.fetch(FetchDescriptor<TripV1>(predicate: #Predicate { $0.destination == "City0" }))
        } catch {
            fail("first", error)
        }
        var checksum = 0.0
        for trip in trips {
            checksum += trip.price + trip.startDate.timeIntervalSince1970
            checksum += Double(
                trip.tripID.utf8.count + trip.name.utf8.count + trip.destination.utf8.count
                    + trip.mapItem.rawValue.utf8.count)
        }
        let seconds = now() - t0
        var row = Row("W9")
        row.add("rows", trips.count)
        row.add("first_query_seconds", seconds, decimals: 6)
        row.add("maxrss_kib", peakRSSKiB())
        row.add("checksum", checksum, decimals: 3)
        row.emit()
    }
}
