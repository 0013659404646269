import Folio
import Testing

// Predicates are built inside functions: in top-level code the compiler can give two predicate
// closures one symbol (see docs/swiftdata-compatibility.md).
@Suite("Nested predicates with import Folio")
struct NestedPredicateTests {
    private func names(_ predicate: Predicate<Hike>, in context: ModelContext) throws -> [String] {
        try context.fetch(FetchDescriptor(predicate: predicate, sortBy: [SortDescriptor(\.name)])).map(\.name)
    }

    @Test func aConjunctionOfNestedPredicatesSelectsWhatBothSelect() throws {
        let context = try hikeContext()
        let cheap = #Predicate<Hike> { $0.price < 100 }
        let alpine = #Predicate<Hike> { $0.region == "Alps" }
        let both = #Predicate<Hike> { cheap.evaluate($0) && alpine.evaluate($0) }
        #expect(try names(both, in: context) == ["Eiger", "Jungfrau"])
    }

    @Test func negatedAndDisjoinedNestedPredicatesAgreeWithEvaluatingModels() throws {
        let context = try hikeContext()
        let cheap = #Predicate<Hike> { $0.price < 100 }
        let alpine = #Predicate<Hike> { $0.region == "Alps" }
        let either = #Predicate<Hike> { !cheap.evaluate($0) || alpine.evaluate($0) }
        let all = try context.fetch(FetchDescriptor<Hike>())
        let expected = try all.filter { try either.evaluate($0) }.map(\.name).sorted()
        #expect(expected == ["Eiger", "Jungfrau", "Matterhorn", "Tryfan"])
        #expect(try names(either, in: context) == expected)
    }

    @Test func aNestedPredicateMayItselfNestOneAndSitBesideAnOptionalComparison() throws {
        let context = try hikeContext()
        let cheap = #Predicate<Hike> { $0.price < 100 }
        let cheapAlpine = #Predicate<Hike> { cheap.evaluate($0) && $0.region == "Alps" }
        let windy = #Predicate<Hike> { $0.notes == "windy" && cheapAlpine.evaluate($0) }
        #expect(try names(windy, in: context) == ["Eiger"])
        let named = #Predicate<Hike> { hike in cheapAlpine.evaluate(hike) || hike.name.starts(with: "Tr") }
        #expect(try names(named, in: context) == ["Eiger", "Jungfrau", "Tryfan"])
    }

    @Test func aNestedPredicateOverAPropertyIsTranslatedWithThatProperty() throws {
        let context = try hikeContext()
        let short = #Predicate<String> { $0.count < 7 }
        let descriptor = FetchDescriptor<Hike>(predicate: #Predicate { short.evaluate($0.name) })
        #expect(try context.fetch(descriptor).map(\.name).sorted() == ["Eiger", "Tryfan"])
        #if !canImport(Darwin)
            #expect(try context.queryPlan(for: descriptor).filtersRecords)
        #endif
    }

    // On Apple platforms Foundation builds its own nested-predicate node, which Folio evaluates on
    // models; the planner inlines the node Folio builds on Linux.
    #if !canImport(Darwin)
        @Test func anIndexedConditionInsideANestedPredicateUsesItsIndex() throws {
            let context = try hikeContext()
            let cheap = #Predicate<Hike> { $0.price < 100 }
            let alpine = #Predicate<Hike> { $0.region == "Alps" }
            let descriptor = FetchDescriptor<Hike>(predicate: #Predicate { cheap.evaluate($0) && alpine.evaluate($0) })
            let plan = try context.queryPlan(for: descriptor)
            #expect(plan.access == .index("region"))
            #expect(plan.filtersRecords)
            let unindexed = FetchDescriptor<Hike>(predicate: #Predicate { cheap.evaluate($0) })
            #expect(try context.queryPlan(for: unindexed).access == .scan)
        }
    #endif
}
