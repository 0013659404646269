import Foundation
import Testing
@testable import Folio

/// A seeded generator, so that a failing case can be replayed.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// The planner's results must equal `Predicate.evaluate` over models followed by `sorted(using:)`, for
/// random data, predicates, sort orders and windows.
@Suite("Query planner differential test")
struct PlannerDifferentialTests {
    static let cities = ["Rome", "Paris", "Tokyo", "Lima", "Oslo", "Évian", "rome", "Zürich", ""]
    static let words = ["alpha", "Beta", "gamma", "Delta", "épée", "a b", "zeta", "Alpha", "beta"]

    static func randomTrip(_ rng: inout SplitMix64, index: Int) -> Trip {
        let trip = Trip(
            name: "\(words.randomElement(using: &rng) ?? "x") \(Int.random(in: 0..<40, using: &rng))",
            destination: cities.randomElement(using: &rng) ?? "Rome",
            startDate: Date(
                timeIntervalSinceReferenceDate: Double(Int.random(in: 0..<200, using: &rng)) * 3600 + (Bool.random(using: &rng) ? 0.25 : 0)),
            price: Double(Int.random(in: -50..<500, using: &rng)) / 4,
            nights: Int.random(in: 0..<12, using: &rng))
        trip.notes = Bool.random(using: &rng) ? nil : words.randomElement(using: &rng)
        return trip
    }

    /// Predicate shapes with random constants: every node family the planner translates, plus forms it
    /// leaves to `Predicate.evaluate`.
    static func randomPredicate(_ rng: inout SplitMix64) -> (String, Predicate<Trip>) {
        let city = cities.randomElement(using: &rng) ?? "Rome"
        let other = cities.randomElement(using: &rng) ?? "Paris"
        let word = String((words.randomElement(using: &rng) ?? "a").prefix(Int.random(in: 1...3, using: &rng)))
        let price = Double(Int.random(in: -50..<500, using: &rng)) / 4
        let nights = Int.random(in: 0..<12, using: &rng)
        let date = Date(timeIntervalSinceReferenceDate: Double(Int.random(in: 0..<200, using: &rng)) * 3600)
        switch Int.random(in: 0..<26, using: &rng) {
        case 0: return ("destination == \(city)", #Predicate { $0.destination == city })
        case 1: return ("destination != \(city)", #Predicate { $0.destination != city })
        case 2: return ("destination in", #Predicate { $0.destination == city || $0.destination == other })
        case 3: return ("price < \(price)", #Predicate { $0.price < price })
        case 4: return ("price >= \(price)", #Predicate { $0.price >= price })
        case 5: return ("startDate <= date", #Predicate { $0.startDate <= date })
        case 6: return ("startDate > date && nights", #Predicate { $0.startDate > date && $0.nights < nights })
        case 7: return ("name contains \(word)", #Predicate { $0.name.contains(word) })
        case 8: return ("name starts \(word)", #Predicate { $0.name.starts(with: word) })
        case 9: return ("notes == nil", #Predicate { $0.notes == nil })
        case 10: return ("notes ?? \(word)", #Predicate { ($0.notes ?? "") == word })
        case 11: return ("notes?.contains", #Predicate { $0.notes?.contains(word) == true })
        case 12: return ("!(dest == city)", #Predicate { !($0.destination == city) })
        case 13: return ("arithmetic", #Predicate { $0.price * 2 + 1 > price && $0.nights % 3 == nights % 3 })
        case 14: return ("int division", #Predicate { $0.nights / 2 == nights / 2 })
        case 15: return ("ternary", #Predicate { ($0.nights > nights ? $0.price : -$0.price) > price })
        case 16: return ("localizedStandardContains", #Predicate { $0.destination.localizedStandardContains(word) })
        case 17: return ("name.isEmpty || count", #Predicate { $0.destination.isEmpty || $0.destination.count > nights })
        case 18:
            return ("and/or mix", #Predicate { ($0.destination == city && $0.price > price) || ($0.nights == nights && $0.destination != other) })
        case 19: return ("forced unwrap guarded", #Predicate { $0.notes != nil && $0.notes!.count > 3 })
        case 20: return ("range on index", #Predicate { $0.startDate >= date && $0.destination == city })
        case 21: return ("flatMap", #Predicate { $0.notes.flatMap { $0.count } ?? -1 > nights })
        case 22: return ("constant true", #Predicate { _ in true })
        case 23: return ("dates equal", #Predicate { $0.startDate == date })
        case 24: return ("prices equal or below", #Predicate { $0.price == price || $0.price <= price - 100 })
        default: return ("reversed comparison", #Predicate { price < $0.price })
        }
    }

    static func randomSort(_ rng: inout SplitMix64) -> [SortDescriptor<Trip>] {
        let all: [SortDescriptor<Trip>] = [
            SortDescriptor(\.destination), SortDescriptor(\.destination, order: .reverse),
            SortDescriptor(\.price), SortDescriptor(\.price, order: .reverse),
            SortDescriptor(\.startDate), SortDescriptor(\.startDate, order: .reverse),
            SortDescriptor(\.nights), SortDescriptor(\.notes), SortDescriptor(\.notes, order: .reverse),
            SortDescriptor(\.name),
        ]
        return (0..<Int.random(in: 0...3, using: &rng)).compactMap { _ in all.randomElement(using: &rng) }
    }

    @Test func plannerAgreesWithPredicateEvaluateAndSortedUsing() throws {
        let iterations = ProcessInfo.processInfo.environment["FOLIO_LONG_TESTS"] == "1" ? 20_000 : 2_500
        var rng = SplitMix64(state: 20_261_129)
        var container = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        var context = ModelContext(container)
        var failures = 0
        var stored: [Trip] = []
        for iteration in 0..<iterations {
            if iteration % 500 == 0 {
                // New data every 500 cases.
                container = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
                context = ModelContext(container)
                for index in 0..<250 { context.insert(Self.randomTrip(&rng, index: index)) }
                try context.save()
                stored = try context.fetch(FetchDescriptor<Trip>())
            }
            // Sometimes leave unsaved changes in the context.
            let pending = iteration % 7 == 0
            if pending {
                context.insert(Self.randomTrip(&rng, index: -1))
                if let victim = stored.randomElement(using: &rng) {
                    victim.price = Double(Int.random(in: -50..<500, using: &rng)) / 4
                }
            }
            let (name, predicate) = Self.randomPredicate(&rng)
            var descriptor = FetchDescriptor<Trip>(predicate: predicate, sortBy: Self.randomSort(&rng))
            if Bool.random(using: &rng) { descriptor.fetchLimit = Int.random(in: 0..<30, using: &rng) }
            if Int.random(in: 0..<4, using: &rng) == 0 { descriptor.fetchOffset = Int.random(in: 0..<20, using: &rng) }

            let everything = pending ? try context.fetch(FetchDescriptor<Trip>()) : stored
            var expected = try everything.filter { try predicate.evaluate($0) }
            if !descriptor.sortBy.isEmpty { expected = expected.sorted(using: descriptor.sortBy) }
            let offset = min(descriptor.fetchOffset ?? 0, expected.count)
            expected = Array(expected[offset...])
            if let limit = descriptor.fetchLimit { expected = Array(expected.prefix(limit)) }

            let actual = try context.fetch(descriptor)
            if actual.map(ObjectIdentifier.init) != expected.map(ObjectIdentifier.init) {
                failures += 1
                if failures <= 5 {
                    Issue.record(
                        """
                        case \(iteration) '\(name)' sort \(descriptor.sortBy.map { "\($0.keyPath.map { "\($0)" } ?? "?") \($0.order)" }) \
                        limit \(descriptor.fetchLimit.map(String.init) ?? "-") offset \(descriptor.fetchOffset.map(String.init) ?? "-") \
                        plan \((try? context.queryPlan(for: descriptor))?.description ?? "?"):
                        expected \(expected.map(\.name))
                        actual   \(actual.map(\.name))
                        """)
                }
            }
            if iteration % 10 == 0 {
                #expect(try context.fetchCount(FetchDescriptor(predicate: predicate)) == (try everything.filter { try predicate.evaluate($0) }.count))
            }
            if pending { context.rollback() }
        }
        #expect(failures == 0)
    }
}
