import Foundation
import Testing
@testable import Folio
@_spi(FolioEngine) import FolioStorage

/// An amount of money: `Decimal` is compared by evaluating models, so predicates on it are not
/// translated and run through `Predicate.evaluate`.
@Model
final class LedgerEntry {
    #Index<LedgerEntry>([\.account])

    var account: String
    var amount: Decimal

    init(account: String, amount: Decimal) {
        self.account = account
        self.amount = amount
    }
}

@Suite("Query pipeline")
struct QueryPipelineTests {
    static func ledger(saved: Int, unsaved: Int) throws -> (ModelContainer, ModelContext) {
        let container = try ModelContainer(for: LedgerEntry.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        for number in 0..<saved { context.insert(LedgerEntry(account: "A\(number % 7)", amount: Decimal(number))) }
        try context.save()
        for number in 0..<unsaved { context.insert(LedgerEntry(account: "U\(number % 5)", amount: Decimal(saved + number))) }
        return (container, context)
    }

    @Test func queryPlanEvaluatesNoPredicate() throws {
        // `notes!` fails on every trip without notes: running the query throws, planning it must not.
        let (_, context) = try QueryTests.tripContainer()
        let unwrapping = FetchDescriptor<Trip>(predicate: #Predicate { $0.notes! == "note 1" })
        #expect(throws: FolioError.self) { try context.fetch(unwrapping) }
        let plan = try context.queryPlan(for: unwrapping)
        #expect(plan.access == .scan)
        #expect(plan.filtersRecords)

        var walking = FetchDescriptor<Trip>(predicate: #Predicate { $0.notes! == "note 1" }, sortBy: [SortDescriptor(\.startDate)])
        walking.fetchLimit = 3
        #expect(throws: FolioError.self) { try context.fetch(walking) }
        #expect(try context.queryPlan(for: walking).access == .orderedIndex("startDate"))
    }

    @Test func queryPlanMakesNoModelsForAPredicateEvaluatedOnModels() throws {
        let (container, _) = try Self.ledger(saved: 50, unsaved: 0)
        let context = ModelContext(container)
        let large = FetchDescriptor<LedgerEntry>(predicate: #Predicate { $0.amount >= 40 }, sortBy: [SortDescriptor(\.amount)])
        let plan = try context.queryPlan(for: large)
        #expect(!plan.filtersRecords)
        #expect(plan.access == .scan)
        #expect(context.registered.count == 0)
        // Running it does make them, which is what the count above would have seen.
        #expect(try context.fetch(large).map(\.amount) == (40..<50).map { Decimal($0) })
        #expect(context.registered.count > 0)
    }

    @Test func unsavedModelsAreFoundByIdentifierOncePerRow() throws {
        let pending = 3_000
        let (_, context) = try Self.ledger(saved: 200, unsaved: pending)
        let threshold = Decimal(150)
        let descriptor = FetchDescriptor<LedgerEntry>(
            predicate: #Predicate { $0.amount >= threshold },
            sortBy: [SortDescriptor(\.amount, order: .reverse)])
        let (rows, executor) = try context.runQuery(descriptor)
        // Each pending model is read once to make the overlay, and each unsaved row's model is looked
        // up by identifier once to filter it and once more to sort it if it passed: linear, not the
        // rows times the pending models a search per row would take.
        #expect(executor.overlay.modelsRead == pending)
        #expect(executor.statistics.pendingModelLookups <= 2 * pending)
        let expected = (150..<(200 + pending)).reversed().map { Decimal($0) }
        #expect(try context.fetch(descriptor).map(\.amount) == expected)
        #expect(rows.count == expected.count)
        #expect(try context.fetchIdentifiers(descriptor).count == expected.count)
    }

    @Test func enumerationVisitsEachUnsavedModelOnceAndSkipsOneTheBlockDeleted() throws {
        let (_, context) = try Self.ledger(saved: 20, unsaved: 300)
        let doomedAmount = Decimal(250)
        var visited: [Decimal] = []
        try context.enumerate(
            FetchDescriptor<LedgerEntry>(sortBy: [SortDescriptor(\.amount)]), batchSize: 64,
            allowEscapingMutations: true
        ) { entry in
            visited.append(entry.amount)
            guard visited.count == 1 else { return }
            // An unsaved model deleted by the block before its row comes up is not visited.
            let doomed = try context.fetch(FetchDescriptor<LedgerEntry>(predicate: #Predicate { $0.amount == doomedAmount }))
            #expect(doomed.count == 1)
            doomed.forEach(context.delete)
        }
        #expect(visited == (0..<320).filter { $0 != 250 }.map { Decimal($0) })
    }

    @Test func pendingInsertsChangesAndDeletesAreOverlaidOnAnIndexLookup() throws {
        let (_, context) = try Self.ledger(saved: 70, unsaved: 10)
        let stored = try context.fetch(FetchDescriptor<LedgerEntry>(predicate: #Predicate { $0.account == "A1" }))
        #expect(stored.count == 10)
        let moved = try #require(stored.first)
        moved.account = "A2"  // leaves A1 before the save
        let gone = try #require(stored.last)
        context.delete(gone)
        let joining = try #require(try context.fetch(FetchDescriptor<LedgerEntry>(predicate: #Predicate { $0.account == "A3" })).first)
        joining.account = "A1"  // joins A1 before the save
        let inserted = LedgerEntry(account: "A1", amount: 1_000)
        context.insert(inserted)

        let descriptor = FetchDescriptor<LedgerEntry>(predicate: #Predicate { $0.account == "A1" })
        #expect(try context.queryPlan(for: descriptor).access == .index("account"))
        let found = try context.fetch(descriptor)
        let expected = stored.filter { $0 !== moved && $0 !== gone } + [joining, inserted]
        #expect(Set(found.map(ObjectIdentifier.init)) == Set(expected.map(ObjectIdentifier.init)))
        #expect(found.count == expected.count)
        #expect(found.allSatisfy { $0.account == "A1" })

        var ignoring = descriptor
        ignoring.includePendingChanges = false
        #expect(try context.fetch(ignoring).count == 10)
    }
}
