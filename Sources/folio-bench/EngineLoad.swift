import Foundation
import FolioStorage

/// `load-engine`: the W1 records written through the storage engine alone (`FolioStorage.Store`), with
/// no models, contexts or index. Not a workload of the SQLite peer: it is the yardstick for the model
/// layer's import speed ("the storage engine's speed"), so the two rows can be compared.
enum EngineLoad {
    static func run(_ path: String, n: Int, sync: String, batch: Int) {
        let url = Workloads.storeURL(path)
        try? FileManager.default.removeItem(at: url)
        let batch = max(batch, 1)

        // The stored values the model layer writes for a Trip (untimed).
        let g0 = now()
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let values: [RecordValues] = (0..<n).map { index in
            let trip = TripGenerator.record(index)
            return [
                "tripID": .string(trip.id), "name": .string(trip.name), "destination": .string(trip.destination),
                "startDate": .string(formatter.string(from: Date(timeIntervalSince1970: trip.startDate))),
                "price": .double(trip.price), "mapItem": .object(["rawValue": .string(trip.mapRaw)]),
            ]
        }
        let genSeconds = now() - g0

        var configuration = StoreConfiguration()
        configuration.durability = sync == "FULL" ? .always : .batched(1.0)
        let store: Store
        do { store = try Store.open(at: url, configuration: configuration) } catch { fail("open \(url.path)", error) }
        Workloads.keepAlive.append(store)
        let usage = StepUsage()
        let t0 = now()
        var start = 0
        while start < n {
            let end = min(start + batch, n)
            do {
                try store.write { transaction in
                    for k in start..<end { try transaction.insert(entity: "Trip", id: transaction.allocateID(), values: values[k]) }
                }
            } catch { fail("write", error) }
            start = end
        }
        let seconds = now() - t0
        let spent = usage.spent()
        var row = Row("W1")
        row.add("variant", "storage_engine_only")
        row.add("sync", sync)
        row.add("n", n)
        row.add("batch", batch)
        row.add("seconds", seconds, decimals: 4)
        row.add("records_per_s", Double(n) / seconds, decimals: 1)
        row.add("gen_seconds", genSeconds, decimals: 4)
        addDiskUsage(&row, "store_after_load", url)
        spent.add(to: &row, prefix: "insert_")
        row.emit()
    }
}
