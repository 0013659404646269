import Foundation
import Testing
@testable import Folio

@Model
final class BirdSeed {
    var name: String
    var nickname: String?
    var serial: Int

    init(name: String, nickname: String?, serial: Int) {
        self.name = name
        self.nickname = nickname
        self.serial = serial
    }
}

/// `SortDescriptor(\.name, comparator: .localizedStandard)` (Apple's Backyard Birds) and `.localized`
/// compile on every platform and sort as Foundation's localized comparisons do, in `sorted(using:)`,
/// fetches and sections.
@Suite("Localized sort descriptors")
struct LocalizedSortTests {
    static let names = ["file10", "File9", "file9", "éclair", "eclair", "Zebra", "apple", "Apple", "b", "ä", "file100", "10", "9", "Éclair"]

    /// A container holding one seed per name, in the list's order, with a nickname every other one.
    static func container() throws -> (ModelContainer, ModelContext) {
        let container = try ModelContainer(for: BirdSeed.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        for (serial, name) in names.enumerated() {
            context.insert(BirdSeed(name: name, nickname: serial % 2 == 0 ? nil : name.uppercased(), serial: serial))
        }
        try context.save()
        return (container, context)
    }

    /// The names ordered by `compare`, ties in the list's order.
    static func expected(_ compare: (String, String) -> ComparisonResult, reverse: Bool = false) -> [String] {
        names.enumerated().sorted { a, b in
            let order = compare(a.element, b.element)
            if order == .orderedSame { return a.offset < b.offset }
            return (order == .orderedAscending) != reverse
        }.map(\.element)
    }

    @Test func localizedStandardSortsAsTheFinderInFetchesAndSortedUsing() throws {
        let (_, context) = try Self.container()
        let descriptor = SortDescriptor(\BirdSeed.name, comparator: .localizedStandard)
        let fetched = try context.fetch(FetchDescriptor<BirdSeed>(sortBy: [descriptor])).map(\.name)
        let expected = Self.expected { $0.localizedStandardCompare($1) }
        #expect(fetched == expected)
        #expect(fetched.firstIndex(of: "file9") ?? 0 < fetched.firstIndex(of: "file10") ?? 0, "numbers by value: \(fetched)")
        let all = try context.fetch(FetchDescriptor<BirdSeed>())
        #expect(all.sorted(using: descriptor).map(\.name) == expected)
    }

    @Test func reverseOrderAndTheLocalizedComparatorAndTheExplicitSpelling() throws {
        let (_, context) = try Self.container()
        let reversed = try context.fetch(FetchDescriptor<BirdSeed>(sortBy: [SortDescriptor(\.name, comparator: .localizedStandard, order: .reverse)]))
        #expect(reversed.map(\.name) == Self.expected({ $0.localizedStandardCompare($1) }, reverse: true))
        let localized = try context.fetch(FetchDescriptor<BirdSeed>(sortBy: [SortDescriptor(\.name, comparator: .localized)]))
        #expect(localized.map(\.name) == Self.expected { $0.localizedCompare($1) })
        let spelled = try context.fetch(
            FetchDescriptor<BirdSeed>(sortBy: [SortDescriptor(\.name, comparator: String.StandardComparator.localizedStandard)]))
        #expect(spelled.map(\.name) == Self.expected { $0.localizedStandardCompare($1) })
    }

    @Test func anOptionalPropertySortsNilFirst() throws {
        let (_, context) = try Self.container()
        let fetched = try context.fetch(
            FetchDescriptor<BirdSeed>(sortBy: [
                SortDescriptor(\.nickname, comparator: .localizedStandard),
                SortDescriptor(\.serial),
            ]))
        let nils = fetched.prefix { $0.nickname == nil }
        #expect(nils.map(\.serial) == Array(stride(from: 0, to: Self.names.count, by: 2)))
        let named = fetched.dropFirst(nils.count).compactMap(\.nickname)
        #expect(named == named.sorted { $0.localizedStandardCompare($1) == .orderedAscending })
        #expect(named.count == Self.names.count / 2)
    }

    @Test func sectionsFollowALocalizedSortOfTheirProperty() throws {
        let (_, context) = try Self.container()
        let sections = try context.fetch(
            FetchDescriptor<BirdSeed>(sortBy: [SortDescriptor(\.name, comparator: .localizedStandard)]),
            sectionBy: \.name)
        #expect(sections.sectionTitles == Self.expected { $0.localizedStandardCompare($1) })
        let reversed = try context.fetch(
            FetchDescriptor<BirdSeed>(sortBy: [SortDescriptor(\.name, comparator: .localizedStandard, order: .reverse)]), sectionBy: \.name)
        #expect(reversed.sectionTitles == Self.expected({ $0.localizedStandardCompare($1) }, reverse: true))
        // A sort by another property leaves sections in title order.
        let byTitle = try context.fetch(FetchDescriptor<BirdSeed>(sortBy: [SortDescriptor(\.serial)]), sectionBy: \.name)
        #expect(byTitle.sectionTitles == Self.names.sorted { StringOrder.areInIncreasingOrder($0, $1) })
    }
}
