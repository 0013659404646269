import Foundation
import Testing
@testable import Folio

/// The edges of the value domain that once stopped the process or gave a silent wrong answer: each
/// now answers as Swift does, or throws a typed error where Swift's own operator would trap.
@Suite("Edges of the value domain")
struct ValueDomainEdgeTests {
    static func context(integers: [Int], numbers: [Double] = []) throws -> ModelContext {
        let container = try ModelContainer(for: Exhibit.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        let count = max(integers.count, numbers.count)
        for serial in 0..<count {
            context.insert(
                Exhibit(
                    serial: serial, text: "t\(serial)", number: serial < numbers.count ? numbers[serial] : 0,
                    integer: serial < integers.count ? integers[serial] : 0, date: .distantPast,
                    maybeText: nil, maybeNumber: nil, tag: "x"))
        }
        try context.save()
        return context
    }

    static func serials(_ context: ModelContext, _ descriptor: FetchDescriptor<Exhibit>) throws -> [Int] {
        try context.fetch(descriptor).map(\.serial)
    }

    @Test func intMinInAnIndexedFieldSortsAndScansWithoutStopping() throws {
        let context = try Self.context(integers: [5, .min, .max, 0, .min + 1, -(1 << 53) - 1])
        var sorted = FetchDescriptor<Exhibit>(sortBy: [SortDescriptor(\.integer)])
        sorted.fetchLimit = 3
        #expect(try Self.serials(context, sorted) == [1, 4, 5])
        sorted.sortBy = [SortDescriptor(\.integerCopy, order: .reverse)]
        #expect(try Self.serials(context, sorted) == [2, 0, 3])
        #expect(try Self.serials(context, FetchDescriptor(predicate: #Predicate { $0.integerCopy < -9_007_199_254_740_992 })) == [1, 4, 5])
        let least = Int.min
        #expect(try Self.serials(context, FetchDescriptor(predicate: #Predicate { $0.integer == least })) == [1])
    }

    /// Each predicate overflows `Int` on one of the stored values, where Swift would stop the program.
    @Test(arguments: 0..<6)
    func integerOverflowInAPredicateThrowsATypedError(_ shape: Int) throws {
        let context = try Self.context(integers: [1, .min, .max])
        let predicate: Predicate<Exhibit>
        switch shape {
        case 0: predicate = #Predicate { $0.integerCopy + 1 > 0 }
        case 1: predicate = #Predicate { $0.integerCopy - 1 < 0 }
        case 2: predicate = #Predicate { $0.integerCopy * 2 > 0 }
        case 3: predicate = #Predicate { -$0.integerCopy > 0 }
        case 4: predicate = #Predicate { $0.integerCopy / -1 > 0 }
        default: predicate = #Predicate { $0.integerCopy % -1 == 0 }
        }
        let error = #expect(throws: FolioError.self) { try context.fetch(FetchDescriptor(predicate: predicate)) }
        #expect(error?.code == .invalidFetchDescriptor)
        #expect(error?.message.contains("overflows Int") == true, "\(String(describing: error))")
    }

    @Test func divisionByZeroInAPredicateThrowsATypedError() throws {
        let context = try Self.context(integers: [1, 2])
        let zero = 0
        let predicate = #Predicate<Exhibit> { $0.integerCopy / zero == 1 }
        let error = #expect(throws: FolioError.self) { try context.fetch(FetchDescriptor(predicate: predicate)) }
        #expect(error?.message.contains("division by zero") == true)
    }

    @Test func anIntegerSumThatOverflowsThrowsInsteadOfStopping() throws {
        let context = try Self.context(integers: [.max, 1])
        let error = #expect(throws: FolioError.self) { try context.sum(\Exhibit.integer) }
        #expect(error?.code == .invalidFetchDescriptor)
        #expect(error?.message.contains("overflows Int") == true)
        #expect(throws: FolioError.self) { try context.sum(\Exhibit.integer, groupedBy: \.tag) }
        #expect(try context.sum(\Exhibit.integer, where: #Predicate { $0.integer > 1 }) == .max)
    }

    @Test func infinitiesAndNaNAreNumbersInComparisonsSortsAndAggregates() throws {
        let context = try Self.context(integers: [], numbers: [1, .infinity, -.infinity, .nan, -0.0, 0])
        #expect(try Self.serials(context, FetchDescriptor(predicate: #Predicate { $0.number > 0 })) == [0, 1])
        #expect(try Self.serials(context, FetchDescriptor(predicate: #Predicate { $0.numberCopy < 0 })) == [2])
        #expect(try Self.serials(context, FetchDescriptor(predicate: #Predicate { $0.number * 2 > 0 })) == [0, 1])
        #expect(try Self.serials(context, FetchDescriptor(predicate: #Predicate { $0.number == 0 })) == [4, 5])
        let nan = Double.nan
        #expect(try Self.serials(context, FetchDescriptor(predicate: #Predicate { $0.number == nan })) == [])
        #expect(try Self.serials(context, FetchDescriptor(predicate: #Predicate { $0.numberCopy != nan })) == [0, 1, 2, 3, 4, 5])
        // NaN sorts after every number, -0.0 with 0.0 in record order.
        #expect(try Self.serials(context, FetchDescriptor(sortBy: [SortDescriptor(\.number)])) == [2, 4, 5, 0, 1, 3])
        #expect(try Self.serials(context, FetchDescriptor(sortBy: [SortDescriptor(\.numberCopy, order: .reverse)])) == [3, 1, 0, 4, 5, 2])
        let finiteSum = try context.sum(\Exhibit.number, where: #Predicate { $0.number > -1 && $0.number == $0.number })
        #expect(finiteSum == .infinity)
        #expect(try context.minimum(\Exhibit.number, where: #Predicate { $0.number == $0.number }) == -.infinity)
        #expect(try context.maximum(\Exhibit.number, where: #Predicate { $0.number == $0.number }) == .infinity)
    }

    @Test func extremeWindowsNeitherTrapNorCutTheResults() throws {
        let context = try Self.context(integers: [3, 1, 2, 5, 4])
        func fetch(limit: Int?, offset: Int?) throws -> [Int] {
            var descriptor = FetchDescriptor<Exhibit>(sortBy: [SortDescriptor(\.integer)])
            descriptor.fetchLimit = limit
            descriptor.fetchOffset = offset
            return try Self.serials(context, descriptor)
        }
        #expect(try fetch(limit: .max, offset: 1) == [2, 0, 4, 3])
        #expect(try fetch(limit: .max, offset: .max) == [])
        #expect(try fetch(limit: -1, offset: nil) == [1, 2, 0, 4, 3], "a negative limit is none")
        #expect(try fetch(limit: 2, offset: -5) == [1, 2], "a negative offset is none")
        #expect(try fetch(limit: 2, offset: .min) == [1, 2])
        #expect(try fetch(limit: .min, offset: 4) == [3])
    }
}

/// A glaze whose encoding fails once it cracks: a value the store cannot take.
struct Glaze: Codable, Hashable {
    var cracked: Bool

    struct Cracked: Error {}

    init(cracked: Bool) { self.cracked = cracked }

    init(from decoder: any Decoder) throws {
        cracked = try decoder.singleValueContainer().decode(Bool.self)
    }

    func encode(to encoder: any Encoder) throws {
        if cracked { throw Cracked() }
        var container = encoder.singleValueContainer()
        try container.encode(cracked)
    }
}

@Model
final class Vase {
    var name: String
    var glaze: Glaze

    init(name: String, glaze: Glaze) {
        self.name = name
        self.glaze = glaze
    }
}

@Suite("Unsaved models a fetch cannot encode")
struct UnencodableUnsavedModelTests {
    @Test func aFetchThrowsRatherThanHideAnUnsavedModelItCannotEncode() throws {
        let context = ModelContext(try ModelContainer(for: Vase.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true)))
        context.insert(Vase(name: "Whole", glaze: Glaze(cracked: false)))
        try context.save()
        context.insert(Vase(name: "Cracked", glaze: Glaze(cracked: true)))
        let error = #expect(throws: FolioError.self) {
            try context.fetch(FetchDescriptor<Vase>(predicate: #Predicate { $0.name != "" }))
        }
        #expect(error?.code == .modelCoding, "\(String(describing: error))")
        #expect(throws: (any Error).self) { try context.save() }
        // Without the unsaved models the fetch answers as before.
        var saved = FetchDescriptor<Vase>(predicate: #Predicate { $0.name != "" })
        saved.includePendingChanges = false
        #expect(try context.fetch(saved).map(\.name) == ["Whole"])
    }
}

@Model
final class Tally {
    #Index<Tally>([\.count])
    var count: UInt64
    var serial: Int

    init(count: UInt64, serial: Int) {
        self.count = count
        self.serial = serial
    }
}

@Suite("Unsigned 64-bit values")
struct UnsignedValueTests {
    /// Values above `Int64.max`, stored as text, compare and sort as numbers: on models, with
    /// `Predicate.evaluate` and the descriptor.
    @Test func valuesAboveInt64MaxCompareAndSortAsNumbers() throws {
        let context = ModelContext(try ModelContainer(for: Tally.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true)))
        let counts: [UInt64] = [.max, 5, UInt64(Int64.max) + 1, 0, UInt64(Int64.max)]
        for (serial, count) in counts.enumerated() { context.insert(Tally(count: count, serial: serial)) }
        try context.save()
        let bound = UInt64(Int64.max)
        let above = try context.fetch(FetchDescriptor<Tally>(predicate: #Predicate { $0.count > bound }))
        #expect(above.map(\.serial) == [0, 2])
        let sorted = try context.fetch(FetchDescriptor<Tally>(sortBy: [SortDescriptor(\.count)]))
        #expect(sorted.map(\.serial) == [3, 1, 4, 2, 0])
        let big = UInt64.max
        #expect(try context.fetch(FetchDescriptor<Tally>(predicate: #Predicate { $0.count == big })).map(\.serial) == [0])
    }
}
