import Folio
import FolioStorage
import Foundation

/// The steps of `folio demo`, each printing the Swift it runs and what it returned.
struct DemoTour {
    let store: URL
    let sample: SampleDataLoader
    let console: Console
    private var step = 0

    init(store: URL, sample: SampleDataLoader, console: Console) {
        self.store = store
        self.sample = sample
        self.console = console
    }

    private mutating func heading(_ title: String) {
        step += 1
        console.print()
        console.print(console.styled("\(step). \(title)", .bold))
    }

    private func code(_ text: String) {
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            console.print(console.styled("   │ " + line, .cyan))
        }
    }

    private func say(_ text: String) {
        console.print("   " + text)
    }

    private func money(_ value: Double) -> String { String(format: "%.2f", value) }

    private func day(_ date: Date) -> String { String(DateText.format(date).prefix(10)) }

    mutating func run() throws {
        console.print(console.styled("Folio demo", .bold) + ": SwiftData's programming model, with the data in plain JSON-lines files.")
        console.print("Store: \(store.path)")

        // 1. Build the store.
        heading("Build a store from SampleData/")
        code(
            """
            let container = try ModelContainer(for: Recipe.self, BakedGood.self, Beverage.self, Ingredient.self,
                                               Cookbook.self, Trip.self,
                                               configurations: ModelConfiguration(url: storeURL))
            let context = ModelContext(container)
            context.insert(recipe) …; try context.save()
            """)
        let start = Date()
        let container = try ModelContainer(for: Schema(demoModelTypes), configurations: [ModelConfiguration(url: store)])
        let loading = ModelContext(container)
        loading.author = "sample-data"
        let recipeCounts = try sample.insertRecipes(into: loading)
        try loading.save()
        let tripCount = try sample.insertTrips(into: loading)
        try loading.save()
        say(
            "Saved \(recipeCounts.cookbooks) cookbooks, \(recipeCounts.recipes) recipes with \(recipeCounts.ingredients) ingredients, and \(tripCount) trips in \(String(format: "%.1f", Date().timeIntervalSince(start))) s (two transactions)."
        )
        say("Read from \(sample.directory.path)")

        let context = ModelContext(container)

        // 2. Polymorphic fetch.
        heading("Recipes, baked goods and beverages: one fetch returns every subclass")
        code("let recipes = try context.fetch(FetchDescriptor<Recipe>(sortBy: [SortDescriptor(\\.name)]))")
        let recipes = try context.fetch(FetchDescriptor<Recipe>(sortBy: [SortDescriptor(\.name)]))
        let kinds = Dictionary(grouping: recipes) { String(describing: type(of: $0)) }.mapValues(\.count)
        say("\(recipes.count) recipes: " + kinds.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", "))
        for recipe in recipes.prefix(4) {
            var detail = ""
            if let baked = recipe as? BakedGood { detail = " — bake at \(baked.ovenTemperature) °C" }
            // The amount is read from the sample files, which may hold any double: no `Int(_:)` of it.
            if let drink = recipe as? Beverage { detail = " — \(Filter.formatNumber(drink.caffeine)) mg caffeine" }
            say(
                "  \(String(describing: type(of: recipe)).padding(toLength: 9, withPad: " ", startingAt: 0)) \(recipe.name), \(recipe.ingredients.count) ingredients, in \(recipe.cookbook?.title ?? "no cookbook")\(detail)"
            )
        }
        code(
            """
            let glutenFree = try context.fetch(FetchDescriptor<BakedGood>(
                predicate: #Predicate { $0.glutenFree && $0.ovenTemperature >= 180 },
                sortBy: [SortDescriptor(\\.ovenTemperature, order: .reverse), SortDescriptor(\\.name)]))
            """)
        let glutenFree = try context.fetch(
            FetchDescriptor<BakedGood>(
                predicate: #Predicate { $0.glutenFree && $0.ovenTemperature >= 180 },
                sortBy: [SortDescriptor(\.ovenTemperature, order: .reverse), SortDescriptor(\.name)]))
        say(
            "\(glutenFree.count) gluten-free baked goods at 180 °C or more; the hottest: "
                + glutenFree.prefix(3).map { "\($0.name) (\($0.ovenTemperature) °C)" }.joined(separator: ", "))
        code("let caffeinated = try context.fetchCount(FetchDescriptor<Beverage>(predicate: #Predicate { $0.caffeine > 0 }))")
        let caffeinated = try context.fetchCount(FetchDescriptor<Beverage>(predicate: #Predicate { $0.caffeine > 0 }))
        say("\(caffeinated) of \(kinds["Beverage"] ?? 0) beverages have caffeine")

        // 3. Trips: predicate, sort, sections.
        heading("Trips filtered with #Predicate, sorted, and grouped by destination")
        code(
            """
            var rome = FetchDescriptor<Trip>(predicate: #Predicate { $0.destination == "Rome" && $0.price < 600 },
                                             sortBy: [SortDescriptor(\\.startDate)])
            rome.fetchLimit = 5
            """)
        var rome = FetchDescriptor<Trip>(
            predicate: #Predicate { $0.destination == "Rome" && $0.price < 600 },
            sortBy: [SortDescriptor(\.startDate)])
        rome.fetchLimit = 5
        for trip in try context.fetch(rome) {
            say(
                "  \(day(trip.startDate))  \(trip.name.padding(toLength: 26, withPad: " ", startingAt: 0)) \(trip.nights) night\(trip.nights == 1 ? " " : "s") \(money(trip.price).leftPadded(8))"
            )
        }
        say("query plan: \(try context.queryPlan(for: rome))")
        let summerStart = try SampleDataLoader.date("2026-07-01T00:00:00Z")
        let summerEnd = try SampleDataLoader.date("2026-08-01T00:00:00Z")
        code(
            """
            let july = try context.fetch(FetchDescriptor<Trip>(
                predicate: #Predicate { $0.startDate >= julyFirst && $0.startDate < augustFirst },
                sortBy: [SortDescriptor(\\.price)]), sectionBy: \\.destination)
            """)
        let july = try context.fetch(
            FetchDescriptor<Trip>(
                predicate: #Predicate { $0.startDate >= summerStart && $0.startDate < summerEnd },
                sortBy: [SortDescriptor(\.price)]), sectionBy: \.destination)
        say("\(july.reduce(0) { $0 + $1.count }) trips in July 2026, in \(july.count) sections:")
        for section in july.prefix(6) {
            let cheapest = section.first.map { "cheapest \(money($0.price)) on \(day($0.startDate))" } ?? ""
            say("  \(section.title.padding(toLength: 13, withPad: " ", startingAt: 0)) \(String(section.count).leftPadded(3)) trips, \(cheapest)")
        }
        if july.count > 6 { say("  … \(july.count - 6) more sections") }

        // 4. The .codable attribute.
        heading("A .codable attribute round-trips as an opaque value")
        code(
            """
            @Attribute(.codable) var mapItem: MapItemIdentifier?
            let withItem = try context.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.mapItem != nil },
                                                                   sortBy: [SortDescriptor(\\.startDate)]))
            """)
        var withItemDescriptor = FetchDescriptor<Trip>(predicate: #Predicate { $0.mapItem != nil }, sortBy: [SortDescriptor(\.startDate)])
        withItemDescriptor.fetchLimit = 1
        let withoutCount = try context.fetchCount(FetchDescriptor<Trip>(predicate: #Predicate { $0.mapItem == nil }))
        guard let first = try context.fetch(withItemDescriptor).first, let item = first.mapItem else {
            throw CommandFailure("The sample data has no trip with a map item.", help: "Regenerate it with 'python3 SampleData/generate.py'.")
        }
        say("\(first.name) has mapItem \(item) (\(withoutCount) trips have none)")
        let tripID = first.persistentModelID
        let fresh = ModelContext(try ModelContainer(for: Schema(demoModelTypes), configurations: [ModelConfiguration(url: store, allowsSave: false)]))
        let reread = fresh.model(for: tripID) as? Trip
        let storedForm = Store.storedValue(of: first.persistentModelID.recordNumber ?? 0, key: "mapItem", in: store)
        say("stored as \(storedForm); read back by a new container: \(reread?.mapItem.map { "\($0)" } ?? "nil") — equal: \(reread?.mapItem == item)")
        code("try context.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\\.mapItem?.rawValue)]))")
        do {
            _ = try context.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.mapItem?.rawValue)]))
            say("unexpectedly succeeded")
        } catch let error as FolioError {
            say("throws FolioError.\(error.code.rawValue):")
            say("  \"\(error.message)\"")
        }
        code("try context.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.mapItem?.rawValue == \"\(item)\" }))")
        let raw = item.rawValue
        do {
            _ = try context.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.mapItem?.rawValue == raw }))
            say("unexpectedly succeeded")
        } catch let error as FolioError {
            say("throws FolioError.\(error.code.rawValue) too")
        }

        // 5. Aggregates.
        heading("Aggregates over stored values, without creating models")
        code(
            """
            let averages = try context.average(\\Trip.price, groupedBy: \\.destination)
            let romeNights = try context.sum(\\Trip.nights, where: #Predicate { $0.destination == "Rome" })
            """)
        let averages = try context.average(\Trip.price, groupedBy: \.destination)
        let counts = try context.count(Trip.self, groupedBy: \.destination)
        for (city, average) in averages.sorted(by: { $0.value > $1.value }).prefix(5) {
            say(
                "  \(city.padding(toLength: 13, withPad: " ", startingAt: 0)) average \(money(average).leftPadded(8)) over \(counts[city] ?? 0) trips"
            )
        }
        let romeNights = try context.sum(\Trip.nights, where: #Predicate { $0.destination == "Rome" })
        let latest = try context.maximum(\Trip.startDate)
        say("\(romeNights) nights booked in Rome; the last trip starts on \(latest.map(day) ?? "-")")

        // 6. A saved change in history.
        heading("A saved change, read back from the history")
        code(
            """
            context.author = "demo"
            trip.price += 50; trip.notes = "Upgraded to a room with a view"
            try context.save()
            """)
        context.author = "demo"
        let oldPrice = first.price
        first.price += 50
        first.notes = "Upgraded to a room with a view"
        try context.save()
        say("\(first.name): price \(money(oldPrice)) → \(money(first.price))")
        try showHistory(container: container, context: context)

        // 7. What to try next.
        heading("Try the offline commands on the store this demo left")
        let path = store.path.contains(" ") ? "'\(store.path)'" : store.path
        for line in [
            "folio info \(path)",
            "folio log \(path) -n 3 --stat",
            "folio log \(path) --author demo -p",
            "folio cat \(path) Trip --where 'destination == Rome and price < 600' --sort startDate --limit 5",
            "folio cat \(path) Recipe --where 'name contains tart' --fields name,servings --table",
            "folio show \(path) \(first.persistentModelID.recordNumber ?? 1)",
            "folio verify \(path)",
            "folio export \(path) --format csv --entity Trip --exact -o trips.csv",
            "folio compact \(path)",
        ] {
            console.print("   " + line)
        }
        console.print()
        console.print("(Inside this package, prefix them with 'swift run': swift run folio info \(path).)")
    }

    private static func updatedAttributeCount<U: HistoryUpdate>(_ update: U) -> Int { update.updatedAttributes.count }

    /// Reads the saved change back from the persistent history, as SwiftData's `fetchHistory` gives it.
    private func showHistory(container: ModelContainer, context: ModelContext) throws {
        code(
            """
            let history = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
            for case .update(let update as DefaultHistoryUpdate<Trip>) in history.last!.changes { … }
            """)
        let history = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        say("\(history.count) transactions in the store's history; the last one:")
        guard let last = history.last else { return }
        say("  token \(last.token), author \(last.author ?? "nobody"), at \(DateText.format(last.timestamp, milliseconds: true))")
        for change in last.changes {
            switch change {
            case .insert(let insert):
                say("  insert \(insert.changedPersistentIdentifier)")
            case .update(let update):
                let count = Self.updatedAttributeCount(update)
                var line = "  update \(update.changedPersistentIdentifier): \(count) updatedAttributes"
                if let trip = update as? DefaultHistoryUpdate<Trip> {
                    let price = trip.changedValues.value(for: \Trip.price).map(money) ?? "?"
                    let notes = trip.changedValues.value(for: \Trip.notes).flatMap { $0 } ?? "nil"
                    line += " (changedValues: price = \(price), notes = \"\(notes)\")"
                }
                say(line)
            case .delete(let delete):
                say("  delete \(delete.changedPersistentIdentifier)")
            }
        }
    }
}

extension Store {
    /// The stored JSON of one value of a record, read with the storage engine alone (no model types).
    static func storedValue(of id: Int64, key: String, in directory: URL) -> String {
        guard let store = try? Store.open(at: directory, configuration: StoreConfiguration(compactionThreshold: nil, readOnly: true)) else {
            return "?"
        }
        defer { store.close() }
        return store.record(id: id)?.values[key].map(ValueFormatting.json) ?? "nothing"
    }
}

extension String {
    func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
