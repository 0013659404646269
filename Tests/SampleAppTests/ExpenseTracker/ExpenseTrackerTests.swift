import Foundation
import Testing
import Folio

@MainActor
@Suite("Sample app: expense tracker (context, fetch, history, observers)")
struct ExpenseTrackerTests {
    static let day = Date(timeIntervalSinceReferenceDate: 780_000_000)

    static func seed(_ context: ModelContext) throws {
        let rows: [(String, Double, String)] = [
            ("Coffee", 3.5, "Food"), ("Train", 12, "Travel"), ("Lunch", 14, "Food"),
            ("Taxi", 25, "Travel"), ("Book", 18, "Leisure"), ("Dinner", 40, "Food"),
        ]
        for (offset, row) in rows.enumerated() {
            context.insert(Expense(title: row.0, amount: row.1, category: row.2, date: day.addingTimeInterval(Double(offset) * 3600)))
        }
        try context.save()
    }

    @Test func unsavedChangesAreTrackedRolledBackAndSavedInATransaction() throws {
        let container = try ModelContainer(for: Expense.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        let snack = Expense(title: "Snack", amount: 2, category: "Food", date: Self.day)
        context.insert(snack)
        #expect(context.hasChanges)
        #expect(context.insertedModelsArray.count == 1)
        context.rollback()
        #expect(!context.hasChanges)
        #expect(try context.fetchCount(FetchDescriptor<Expense>()) == 0)
        try context.transaction {
            context.insert(Expense(title: "Snack", amount: 2, category: "Food", date: Self.day))
        }
        #expect(!context.hasChanges, "transaction(block:) saved")
        let stored = try #require(try context.fetch(FetchDescriptor<Expense>()).first)
        stored.isExpanded = true
        #expect(!context.hasChanges, "a @Transient property is not a change to save")
        stored.amount = 2.5
        #expect(context.changedModelsArray.count == 1)
        context.delete(stored)
        #expect(context.deletedModelsArray.count == 1)
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<Expense>()) == 0)
    }

    @Test func theMainContextAutosaves() async throws {
        let container = try ModelContainer(for: Expense.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        #expect(container.mainContext.autosaveEnabled)
        container.mainContext.insert(Expense(title: "Tea", amount: 3, category: "Food", date: Self.day))
        let reader = ModelContext(container)
        #expect(await eventually { (try? reader.fetchCount(FetchDescriptor<Expense>())) == 1 })
    }

    @Test func fetchesInBatchesEnumerateCountAndIdentifiers() throws {
        let container = try ModelContainer(for: Expense.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        try Self.seed(context)
        let food = FetchDescriptor<Expense>(predicate: #Predicate { $0.category == "Food" }, sortBy: [SortDescriptor(\.amount)])
        let batched = try context.fetch(food, batchSize: 2)
        #expect(batched.map(\.title) == ["Coffee", "Lunch", "Dinner"])
        var total = 0.0
        try context.enumerate(FetchDescriptor<Expense>(), batchSize: 4) { total += $0.amount }
        #expect(total == 112.5)
        #expect(try context.fetchCount(food) == 3)
        #expect(try context.fetchIdentifiers(food).count == 3)
        var page = FetchDescriptor<Expense>(sortBy: [SortDescriptor(\.date, order: .reverse)])
        page.fetchLimit = 2
        page.fetchOffset = 1
        #expect(try context.fetch(page).map(\.title) == ["Book", "Taxi"])
        try context.delete(model: Expense.self, where: #Predicate { $0.category == "Leisure" })
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<Expense>()) == 5)
    }

    @Test func sectionsAndTotalsByCategory() throws {
        let container = try ModelContainer(for: Expense.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        try Self.seed(context)
        let sections = try context.fetch(
            FetchDescriptor<Expense>(sortBy: [SortDescriptor(\.category), SortDescriptor(\.amount)]),
            sectionBy: \.category)
        #expect(sections.map(\.title) == ["Food", "Leisure", "Travel"])
        #expect(sections.first?.map(\.title) == ["Coffee", "Lunch", "Dinner"])
        #expect(try context.sum(\Expense.amount, groupedBy: \.category) == ["Food": 57.5, "Travel": 37, "Leisure": 18])
        #expect(try context.count(Expense.self, groupedBy: \.category) == ["Food": 3, "Travel": 2, "Leisure": 1])
        #expect(try context.maximum(\Expense.amount) == 40)
    }

    @Test func historyTellsWhoChangedWhatSinceAToken() throws {
        let container = try ModelContainer(for: Expense.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let importer = ModelContext(container)
        importer.author = "importer"
        try Self.seed(importer)
        let start = try #require(try importer.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).last?.token)
        let editor = ModelContext(container)
        editor.author = "editor"
        let taxi = try #require(try editor.fetch(FetchDescriptor<Expense>(predicate: #Predicate { $0.title == "Taxi" })).first)
        taxi.amount = 27
        taxi.receiptNumber = "R-17"
        try editor.save()
        editor.delete(taxi)
        try editor.save()
        let since = try editor.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token > start }))
        #expect(since.count == 2)
        #expect(since.allSatisfy { $0.author == "editor" })
        guard case .update(let update as DefaultHistoryUpdate<Expense>)? = since.first?.changes.first else {
            Issue.record("expected an update first: \(since)")
            return
        }
        #expect(update.updatedAttributes.map { "\($0)" }.count == 2)
        guard case .delete(let deletion as DefaultHistoryDelete<Expense>)? = since.last?.changes.first else {
            Issue.record("expected a delete last: \(since)")
            return
        }
        #expect(deletion.tombstone[\Expense.receiptNumber] as? String == "R-17")
        try editor.deleteHistory(HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token <= start }))
        #expect(try editor.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).count == 2)
    }

    @Test func observersFollowSavesFromAnotherContext() async throws {
        let container = try ModelContainer(for: Expense.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let bigOnes = try ResultsObserver<Expense, Never>(
            filterBy: #Predicate { $0.amount >= 20 }, sortBy: [SortDescriptor(\.amount)],
            modelContainer: container)
        let history = try HistoryObserver(observedModels: [Expense.self], modelContainer: container)
        let before = history.eventCounter
        try Self.seed(ModelContext(container))
        #expect(await eventually { bigOnes.results.map(\.title) == ["Taxi", "Dinner"] })
        #expect(await eventually { history.eventCounter > before })
        try container.erase()
        #expect(await eventually { bigOnes.results.isEmpty })
    }
}
