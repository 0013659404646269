import Foundation
import Testing
@testable import FolioStorage

/// Numbers a caller gives the storage engine at the ends of their types (`Int.min`, `UInt64.max`, NaN,
/// infinities): each is a typed error or a defined result, never a trap.
@Suite("Extreme values from the storage engine's callers")
struct ExtremeCallerValueTests {
    static func withStore<T>(
        _ configuration: StoreConfiguration = StoreConfiguration(compactionThreshold: nil),
        _ body: (Store, URL) throws -> T
    ) throws -> T {
        try withTemporaryDirectory { directory in
            let store = try Store.open(at: directory, configuration: configuration)
            defer { store.close() }
            return try body(store, directory)
        }
    }

    static func writeItems(_ store: Store, count: Int) throws {
        for n in 0..<count {
            try store.write(author: "tests") { tx in try tx.insert(entity: "Item", id: tx.allocateID(), values: ["n": .int(Int64(n))]) }
        }
    }

    @Test func historyAfterTheLargestSequencesIsEmptyAndAfterZeroIsEverything() throws {
        try Self.withStore { store, _ in
            try Self.writeItems(store, count: 3)
            #expect(try store.history(after: .max).isEmpty)
            #expect(try store.history(after: .max - 1).isEmpty)
            #expect(try store.history(after: 0).map(\.sequence) == [1, 2, 3])
            try store.deleteHistory(through: .max)
            #expect(throws: StorageError.self) { try store.history(after: 0) }
            #expect(try store.history(after: .max).isEmpty)
            #expect(store.records(of: "Item").count == 3)
        }
    }

    @Test(arguments: [Double.nan, .infinity, -.infinity, -1, 0, 1e-300, 1e300, .greatestFiniteMagnitude, 9.3e9])
    func aBatchedDurabilityOfAnyIntervalOpensWritesAndSyncs(interval: Double) throws {
        try withTemporaryDirectory { directory in
            let configuration = StoreConfiguration(durability: .batched(interval), compactionThreshold: nil)
            var store = try Store.open(at: directory, configuration: configuration)
            try Self.writeItems(store, count: 2)
            try store.sync()
            let monitor = try store.monitorChanges(interval: interval) {}
            monitor.cancel()
            store.close()
            store = try Store.open(at: directory, configuration: configuration)
            defer { store.close() }
            #expect(store.records(of: "Item").count == 2)
        }
    }

    @Test func timerIntervalsAreClampedToWholeNanosecondsAnIntHolds() {
        let maximum = TimerInterval.maximumNanoseconds
        let cases: [(Double, Int, Int)] = [
            (.nan, 1, 1), (-.nan, 1_000_000, 1_000_000), (-.infinity, 1, 1), (-1, 1, 1), (0, 1, 1), (1e-12, 1, 1),
            (0.25, 1_000_000, 250_000_000), (1e-4, 1_000_000, 1_000_000), (3e-9, 1, 3),
            (.infinity, 1, maximum), (.greatestFiniteMagnitude, 1, maximum), (9.3e9, 1, maximum), (4.6e9, 1, 4_600_000_000_000_000_000),
        ]
        for (seconds, minimum, expected) in cases {
            #expect(TimerInterval.nanoseconds(seconds: seconds, minimum: minimum) == expected, "\(seconds) s, at least \(minimum) ns")
        }
    }

    @Test(arguments: [Int.max, Int.max - 1, Int.max - 2, Int(Int32.max) + 1])
    func aLineLimitAtTheEndOfIntReadsAndWritesAsUsual(limit: Int) throws {
        try withTemporaryDirectory { directory in
            var configuration = StoreConfiguration(compactionThreshold: nil)
            configuration.maximumLineBytes = limit
            configuration.maximumTornTailBytes = .max
            var store = try Store.open(at: directory, configuration: configuration)
            try Self.writeItems(store, count: 2)
            try store.compact()
            try Self.writeItems(store, count: 1)
            store.close()
            store = try Store.open(at: directory, configuration: configuration)
            defer { store.close() }
            #expect(store.records(of: "Item").count == 3)
        }
    }

    @Test func aLineLimitBelowOneRefusesEveryLineWithATypedError() throws {
        try withTemporaryDirectory { directory in
            var store = try Store.open(at: directory, configuration: StoreConfiguration(compactionThreshold: nil))
            try Self.writeItems(store, count: 1)
            store.close()
            var configuration = StoreConfiguration(compactionThreshold: nil)
            configuration.maximumLineBytes = .min
            configuration.maximumTornTailBytes = .min
            #expect { _ = try Store.open(at: directory, configuration: configuration) } throws: { error in
                (error as? StorageError)?.code == .lineTooLong && (error as? StorageError)?.line == 1
            }
            configuration.maximumLineBytes = 1 << 20
            store = try Store.open(at: directory, configuration: configuration)
            defer { store.close() }
            #expect(store.records(of: "Item").count == 1)
        }
    }

    @Test(arguments: [Int64.min, .min + 1, -1, 0, .max, .max - 1, 1 << 62])
    func identifiersOutsideTheRangeAreRefusedWithATypedError(id: Int64) throws {
        try Self.withStore { store, _ in
            try Self.writeItems(store, count: 1)
            #expect(store.record(id: id) == nil)
            for change in 0..<3 {
                #expect(throws: StorageError.self, "change \(change) of \(id)") {
                    try store.write(author: "tests") { tx in
                        switch change {
                        case 0: try tx.insert(entity: "Item", id: id, values: ["n": .int(id)])
                        case 1: try tx.update(entity: "Item", id: id, values: ["n": .int(id)])
                        default: try tx.delete(entity: "Item", id: id)
                        }
                    }
                }
            }
            #expect(throws: StorageError.self) { try store.reserveIDs(.max) }
            #expect(throws: StorageError.self) { try store.reserveIDs(.min) }
            #expect(store.records(of: "Item").count == 1)
        }
    }

    @Test func retentionLimitsAtTheEndsOfTheirTypesCompactWithoutATrap() throws {
        let policies: [(StoreConfiguration.HistoryRetention, kept: Int?)] = [
            (.init(maximumCount: .max, maximumAge: .infinity, maximumBytes: .max), 3),
            (.init(maximumCount: .min, maximumAge: nil, maximumBytes: nil), 0),
            (.init(maximumCount: nil, maximumAge: -.infinity, maximumBytes: nil), 0),
            (.init(maximumCount: nil, maximumAge: .greatestFiniteMagnitude, maximumBytes: .min), 0),
            (.init(maximumCount: nil, maximumAge: -.greatestFiniteMagnitude, maximumBytes: nil), 0),
            (.init(maximumCount: nil, maximumAge: .nan, maximumBytes: nil), nil),
        ]
        for (policy, kept) in policies {
            var configuration = StoreConfiguration(compactionThreshold: .min)
            configuration.historyRetention = policy
            configuration.compactsInBackground = false
            try Self.withStore(configuration) { store, directory in
                try Self.writeItems(store, count: 3)
                try store.compact()
                if let kept { #expect(try store.history(after: 3 - UInt64(kept)).count == kept, "\(policy)") }
                let reopened = try Store.open(at: directory, configuration: StoreConfiguration(readOnly: true))
                defer { reopened.close() }
                #expect(reopened.records(of: "Item").count == 3, "\(policy)")
            }
        }
    }
}
