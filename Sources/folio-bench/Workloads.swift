import Foundation
import Folio

typealias TripV1 = TripSchemaV1.Trip
typealias TripV2 = TripSchemaV2.Trip

enum Workloads {
    /// Containers and contexts kept until the process exits, as an app keeps its container: the
    /// operating system reclaims their memory at exit, and the harness does not spend the process's
    /// wall time (W2 measures it) freeing a million records one by one.
    // Sendable: the benchmark runs its workloads on the main thread only.
    nonisolated(unsafe) static var keepAlive: [AnyObject] = []

    static func storeURL(_ path: String) -> URL {
        URL(fileURLWithPath: path, isDirectory: true)
    }

    /// Opens a container. Unless `readingRecords` is false, it also reads the records now (what the
    /// first fetch or save would do), so that the steps timed after opening measure the queries and
    /// saves alone.
    static func container<T: PersistentModel>(
        _ type: T.Type, _ url: URL, durability: ModelConfiguration.Durability = .always,
        readingRecords: Bool = true
    ) -> ModelContainer {
        var configuration = ModelConfiguration(url: url)
        configuration.durability = durability
        do {
            let container = try ModelContainer(for: type, configurations: configuration)
            if readingRecords { try container.loadRecords() }
            return container
        } catch {
            fail("open \(url.path)", error)
        }
    }

    static func cities(_ first: Int) -> [String] {
        (first..<first + 20).map { "City\($0)" }
    }

    // MARK: gen

    static func gen(_ n: Int) {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        var priceSum = 0.0
        for i in 0..<max(n, 0) {
            let t = TripGenerator.record(i)
            hash = TripGenerator.fnv(hash, t.id)
            hash = TripGenerator.fnv(hash, "|")
            hash = TripGenerator.fnv(hash, t.name)
            hash = TripGenerator.fnv(hash, "|")
            hash = TripGenerator.fnv(hash, t.destination)
            hash = TripGenerator.fnv(hash, "|")
            hash = TripGenerator.fnv(hash, t.mapRaw)
            hash = TripGenerator.fnv(hash, "\n")
            priceSum += t.price
            if i == 0 || i == n - 1 {
                print(
                    "record \(i): id=\(t.id) name=\(t.name) destination=\(t.destination) startDate="
                        + cformat("%.3f", t.startDate) + " price=" + cformat("%.2f", t.price) + " mapItem=\(t.mapRaw)")
            }
        }
        print("n=\(n) fnv=" + cformat("%016llx", hash) + " price_sum=" + cformat("%.2f", priceSum))
    }

    // MARK: W1 bulk load

    static func load(_ path: String, n: Int, sync: String, batch: Int) {
        let url = storeURL(path)
        try? FileManager.default.removeItem(at: url)
        let (policy, policyName) = durability(for: sync)
        let batch = max(batch, 1)

        let g0 = now()
        let records = (0..<n).map(TripGenerator.record)
        let genSeconds = now() - g0

        let container = container(TripV1.self, url, durability: policy)
        let context = ModelContext(container)
        keepAlive += [container, context]
        let usage = StepUsage()
        let t0 = now()
        measuredStep(settle: { waitForIndex(context, TripV1.self) }) {
            var start = 0
            while start < n {
                let end = min(start + batch, n)
                for k in start..<end {
                    context.insert(TripV1(records[k]))
                }
                do { try context.save() } catch { fail("save", error) }
                start = end
            }
        }
        let seconds = now() - t0
        let insertSpent = usage.spent()

        var row = Row("W1")
        row.add("sync", sync)
        row.add("durability", policyName)
        row.add("n", n)
        row.add("batch", batch)
        row.add("seconds", seconds, decimals: 4)
        row.add("records_per_s", Double(n) / seconds, decimals: 1)
        row.add("gen_seconds", genSeconds, decimals: 4)
        addDiskUsage(&row, "store_after_load", url)
        // The counterpart of SQLite's checkpoint at close: fold the journal into the snapshots.
        let c0 = now()
        do { try container.compact() } catch { fail("compact", error) }
        row.add("compact_seconds", now() - c0, decimals: 4)
        addDiskUsage(&row, "store_after_compact", url)
        insertSpent.add(to: &row, prefix: "insert_")
        row.add("maxrss_kib", peakRSSKiB())
        row.emit()
    }

    // MARK: W2 open + count

    static func count(_ path: String) {
        let url = storeURL(path)
        let t0 = now()
        // As a process that only counts would: the count comes from the files' headers.
        let container = container(TripV1.self, url, readingRecords: false)
        let context = ModelContext(container)
        keepAlive += [container, context]
        let count: Int
        do { count = try context.fetchCount(FetchDescriptor<TripV1>()) } catch { fail("count", error) }
        let seconds = now() - t0
        var row = Row("W2")
        row.add("count", count)
        row.add("open_count_seconds", seconds, decimals: 6)
        row.add("maxrss_kib", peakRSSKiB())
        addDiskUsage(&row, "store", url)
        row.emit()
    }

    // MARK: W3, W4, W5 reads

    static func read(_ path: String) {
        let url = storeURL(path)
        readWithoutStartDateIndex(url)
        readWithStartDateIndex(url)
    }

    /// W3 and W4 without the startDate index, on the model as loaded (V1).
    static func readWithoutStartDateIndex(_ url: URL) {
        var usage = StepUsage()
        let o0 = now()
        let context = measuredStep { ModelContext(Self.container(TripV1.self, url)) }
        let openSeconds = now() - o0
        let openSpent = usage.spent()

        // W3: indexed equality, models out.
        usage = StepUsage()
        var rows = 0
        let t0 = now()
        measuredStep {
            for q in 0..<100 {
                let city = "City\((q * 7) % 200)"
                let descriptor = FetchDescriptor<TripV1>(predicate: #Predicate { $0.destination == city })
                do { rows += try context.fetch(descriptor).count } catch { fail("W3 fetch", error) }
            }
        }
        let seconds = now() - t0
        let spent = usage.spent()
        var row = Row("W3")
        row.add("queries", 100)
        row.add("rows_total", rows)
        row.add("mean_ms", seconds * 1000 / 100, decimals: 4)
        row.add("open_seconds", openSeconds, decimals: 4)
        openSpent.add(to: &row, prefix: "open_")
        let city = "City0"
        row.add("plan", planDescription(context, FetchDescriptor<TripV1>(predicate: #Predicate { $0.destination == city })))
        spent.add(to: &row)
        row.add("maxrss_kib", peakRSSKiB())
        row.emit()

        rangeSortLimit(context, variant: "no_startDate_index", createIndexSeconds: 0, extra: [:]) { low, high in
            var descriptor = FetchDescriptor<TripV1>(
                predicate: #Predicate { $0.price >= low && $0.price <= high },
                sortBy: [SortDescriptor(\.startDate, order: .reverse)])
            descriptor.fetchLimit = 20
            return descriptor
        }
    }

    /// W4 with the startDate index, then W5, on the model that declares it (V2).
    static func readWithStartDateIndex(_ url: URL) {
        // Folio's indexes live in memory and come from the model's #Index: "CREATE INDEX" is opening the
        // store with the V2 model (which also records the new schema in the manifest).
        var usage = StepUsage()
        let i0 = now()
        let (container, context): (ModelContainer, ModelContext) = measuredStep {
            let opened = Self.container(TripV2.self, url)
            return (opened, ModelContext(opened))
        }
        keepAlive += [container, context]
        let createIndexSeconds = now() - i0
        let openPeak = usage.peakKiB

        rangeSortLimit(
            context, variant: "with_startDate_index", createIndexSeconds: createIndexSeconds,
            extra: [
                "create_index_how": "open ModelContainer with #Index on startDate (V2 model)",
                "open_peak_rss_kib": String(openPeak),
            ]
        ) { low, high in
            var descriptor = FetchDescriptor<TripV2>(
                predicate: #Predicate { $0.price >= low && $0.price <= high },
                sortBy: [SortDescriptor(\.startDate, order: .reverse)])
            descriptor.fetchLimit = 20
            return descriptor
        }

        // W5: counts per destination, then every model grouped into sections by destination.
        usage = StepUsage()
        let t0 = now()
        var countSeconds = 0.0
        var fetchSeconds = 0.0
        let (counts, sections): ([String: Int], SectionedResults<TripV2, String>) = measuredStep {
            let counts: [String: Int]
            do { counts = try context.count(TripV2.self, groupedBy: \.destination) } catch { fail("W5 count", error) }
            countSeconds = now() - t0

            let f0 = now()
            let sections: SectionedResults<TripV2, String>
            do { sections = try context.fetch(FetchDescriptor<TripV2>(), sectionBy: \.destination) } catch { fail("W5 fetch", error) }
            fetchSeconds = now() - f0
            return (counts, sections)
        }
        let rowsCounted = counts.values.reduce(0, +)
        let spent = usage.spent()
        let rowsFetched = sections.reduce(0) { $0 + $1.count }

        var row = Row("W5")
        row.add("groups", counts.count)
        row.add("rows_counted", rowsCounted)
        row.add("count_group_seconds", countSeconds, decimals: 4)
        row.add("sections", sections.count)
        row.add("rows_fetched", rowsFetched)
        row.add("grouped_fetch_seconds", fetchSeconds, decimals: 4)
        row.add("total_seconds", countSeconds + fetchSeconds, decimals: 4)
        spent.add(to: &row)
        row.add("maxrss_kib", peakRSSKiB())
        row.emit()
        withExtendedLifetime(sections) {}
    }

    /// W4: 100 range + sort + limit 20 queries.
    static func rangeSortLimit<T: PersistentModel>(
        _ context: ModelContext, variant: String, createIndexSeconds: Double,
        extra: [String: String],
        descriptor: (Double, Double) -> FetchDescriptor<T>
    ) {
        let usage = StepUsage()
        var rows = 0
        let t0 = now()
        measuredStep {
            for q in 0..<100 {
                let low = 45.0 * Double(q)
                do { rows += try context.fetch(descriptor(low, low + 500.0)).count } catch { fail("W4 fetch", error) }
            }
        }
        let seconds = now() - t0
        let spent = usage.spent()
        var row = Row("W4")
        row.add("variant", variant)
        row.add("queries", 100)
        row.add("rows_total", rows)
        row.add("mean_ms", seconds * 1000 / 100, decimals: 4)
        row.add("create_index_seconds", createIndexSeconds, decimals: 4)
        for (key, value) in extra.sorted(by: { $0.key < $1.key }) {
            if let number = Int(value) { row.add(key, number) } else { row.add(key, value) }
        }
        row.add("plan", planDescription(context, descriptor(0, 500)))
        spent.add(to: &row)
        row.add("maxrss_kib", peakRSSKiB())
        row.emit()
    }

    static func planDescription<T: PersistentModel>(_ context: ModelContext, _ descriptor: FetchDescriptor<T>) -> String {
        (try? context.queryPlan(for: descriptor).description) ?? "?"
    }

    // MARK: W6 single durable saves

    static func single(_ path: String, base: Int, sync: String, count: Int) {
        let url = storeURL(path)
        let (policy, policyName) = durability(for: sync)
        let count = max(count, 1)
        let container = container(TripV2.self, url, durability: policy)
        let context = ModelContext(container)
        keepAlive += [container, context]
        let usage = StepUsage()
        var latencies: [Double] = []
        latencies.reserveCapacity(count)
        let t0 = now()
        measuredStep {
            for k in 0..<count {
                let record = TripGenerator.record(base + k)
                let s = now()
                context.insert(TripV2(record))
                do { try context.save() } catch { fail("save", error) }
                latencies.append((now() - s) * 1000)
            }
        }
        let seconds = now() - t0
        let spent = usage.spent()
        let first = latencies[0]
        latencies.sort()
        let mean = latencies.reduce(0, +) / Double(count)
        var row = Row("W6")
        row.add("sync", sync)
        row.add("durability", policyName)
        row.add("inserts", count)
        row.add("mean_ms", mean, decimals: 4)
        row.add("median_ms", latencies[count / 2], decimals: 4)
        row.add("p99_ms", latencies[Int(Double(count) * 0.99)], decimals: 4)
        row.add("max_ms", latencies[count - 1], decimals: 4)
        row.add("total_seconds", seconds, decimals: 4)
        row.add("first_ms", first, decimals: 4)
        spent.add(to: &row)
        row.add("maxrss_kib", peakRSSKiB())
        addDiskUsage(&row, "store", url)
        row.emit()
    }

    // MARK: W7, W8 update and delete 10 %

    /// Waits until the container's index has the changes of the last save (see ``measuredStep(settle:_:)``):
    /// a fetch that does not load anything.
    static func waitForIndex<T: PersistentModel>(_ context: ModelContext, _ type: T.Type) {
        var first = FetchDescriptor<T>()
        first.fetchLimit = 1
        do { _ = try context.fetchIdentifiers(first) } catch { fail("settle", error) }
    }

    static func modify(_ path: String, sync: String) {
        let url = storeURL(path)
        let (policy, policyName) = durability(for: sync)
        let container = container(TripV2.self, url, durability: policy)
        let context = ModelContext(container)
        keepAlive += [container, context]

        func emit(_ workload: String, _ variant: String, _ api: String, rows: Int, seconds: Double, spent: StepUsage.Spent) {
            var row = Row(workload)
            row.add("variant", variant)
            row.add("sync", sync)
            row.add("durability", policyName)
            row.add("rows", rows)
            row.add("seconds", seconds, decimals: 4)
            row.add("folio_api", api)
            spent.add(to: &row)
            row.add("maxrss_kib", peakRSSKiB())
            row.emit()
        }

        // W7a: the set-based update of the API, update(model:where:), which makes no model.
        do {
            let usage = StepUsage()
            let names = cities(0)
            let t0 = now()
            let changed = try measuredStep(settle: { waitForIndex(context, TripV2.self) }) {
                try context.update(model: TripV2.self, where: #Predicate { names.contains($0.destination) }, .set(\.price) { $0 + 1 })
            }
            emit(
                "W7", "set_based_sql", "update(model:where: names.contains(destination), .set(\\.price) { $0 + 1 })",
                rows: changed, seconds: now() - t0, spent: usage.spent())
        } catch { fail("W7a", error) }

        // W7b: object style: fetch the models of City60..City79, change each, save once.
        do {
            let usage = StepUsage()
            let names = cities(60)
            let t0 = now()
            let trips = try measuredStep(settle: { waitForIndex(context, TripV2.self) }) {
                let trips = try context.fetch(FetchDescriptor<TripV2>(predicate: #Predicate { names.contains($0.destination) }))
                for trip in trips { trip.price += 1 }
                try context.save()
                return trips
            }
            emit(
                "W7", "object_fetch_then_update_by_id", "fetch(#Predicate names.contains(destination)), price += 1, save()",
                rows: trips.count, seconds: now() - t0, spent: usage.spent())
        } catch { fail("W7b", error) }

        // W8a: the bulk delete of the API, delete(model:where:), then save.
        do {
            let usage = StepUsage()
            let names = cities(20)
            let predicate = #Predicate<TripV2> { names.contains($0.destination) }
            let rows = try context.fetchCount(FetchDescriptor<TripV2>(predicate: predicate))  // untimed
            let t0 = now()
            try measuredStep(settle: { waitForIndex(context, TripV2.self) }) {
                try context.delete(model: TripV2.self, where: predicate)
                try context.save()
            }
            emit(
                "W8", "set_based_sql", "delete(model:where: names.contains(destination)), save()",
                rows: rows, seconds: now() - t0, spent: usage.spent())
        } catch { fail("W8a", error) }

        // W8b: object style: fetch the models of City40..City59, delete each, save once.
        do {
            let usage = StepUsage()
            let names = cities(40)
            let t0 = now()
            let trips = try measuredStep(settle: { waitForIndex(context, TripV2.self) }) {
                let trips = try context.fetch(FetchDescriptor<TripV2>(predicate: #Predicate { names.contains($0.destination) }))
                for trip in trips { context.delete(trip) }
                try context.save()
                return trips
            }
            emit(
                "W8", "object_fetch_then_delete_by_id", "fetch(#Predicate names.contains(destination)), delete(each), save()",
                rows: trips.count, seconds: now() - t0, spent: usage.spent())
        } catch { fail("W8b", error) }

        var row = Row("W8-check")
        do { row.add("remaining_rows", try context.fetchCount(FetchDescriptor<TripV2>())) } catch { fail("count", error) }
        row.add("plan_in_predicate", planDescription(context, FetchDescriptor<TripV2>(predicate: #Predicate { ["City1"].contains($0.destination) })))
        addDiskUsage(&row, "store", url)
        let c0 = now()
        do { try container.compact() } catch { fail("compact", error) }
        row.add("compact_seconds", now() - c0, decimals: 4)
        addDiskUsage(&row, "store_after_compact", url)
        row.add("maxrss_kib", peakRSSKiB())
        row.emit()
    }
}
