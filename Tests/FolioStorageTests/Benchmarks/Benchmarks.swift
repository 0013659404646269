import Foundation
import Testing
@testable import FolioStorage

/// Throughput measurements, off by default (they print numbers and assert nothing about time).
/// Run: `FOLIO_BENCHMARKS=1 swift test -c release --filter Benchmarks`.
@Suite("Benchmarks", .serialized, .enabled(if: ProcessInfo.processInfo.environment["FOLIO_BENCHMARKS"] == "1"))
struct Benchmarks {
    struct TripRecord: Codable {
        var id: Int64
        var values: Values
        struct Values: Codable {
            var name: String
            var destination: String
            var startDate: Double
            var budget: Double
            var nights: Int
            var notes: String
            var tags: [String]
        }
    }

    static func sampleLines(count: Int) throws -> [UInt8] {
        var bytes: [UInt8] = []
        for n in 0..<count {
            let value = JSONValue.object([
                "id": .int(Int64(n)),
                "values": .object([
                    "name": .string("Trip number \(n) to somewhere nice"), "destination": .string(["Tokyo", "Paris", "Zürich", "Lima"][n % 4]),
                    "startDate": .double(1_767_225_600 + Double(n) * 86_400.5), "budget": .double(Double(n % 5000) * 1.25),
                    "nights": .int(Int64(n % 14)), "notes": .string("Pack light; \"quotes\" and é"),
                    "tags": .array([.string("work"), .string("family")]),
                ]),
            ])
            bytes += try value.canonicalBytes()
            bytes.append(0x0A)
        }
        return bytes
    }

    static func measure(_ label: String, bytes: Int, repeat times: Int = 3, _ body: () throws -> Void) rethrows {
        var best = Double.infinity
        for _ in 0..<times {
            let start = DispatchTime.now().uptimeNanoseconds
            try body()
            best = min(best, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
        }
        let mb = Double(bytes) / 1_000_000
        print("BENCH \(label): \(String(format: "%.1f", mb / best)) MB/s (\(String(format: "%.3f", best)) s for \(String(format: "%.1f", mb)) MB)")
    }

    @Test func parsing() throws {
        let bytes = try Self.sampleLines(count: 200_000)
        let lines = bytes.split(separator: 0x0A).map { Data($0) }
        let arrays = lines.map { [UInt8]($0) }
        try Self.measure("JSONReader (Folio) parse", bytes: bytes.count) {
            let reader = JSONReader()
            for line in arrays { _ = try reader.parse(line) }
        }
        try Self.measure("JSONSerialization parse", bytes: bytes.count) {
            for line in lines { _ = try JSONSerialization.jsonObject(with: line) }
        }
        try Self.measure("JSONDecoder parse (Codable struct)", bytes: bytes.count) {
            let decoder = JSONDecoder()
            for line in lines { _ = try decoder.decode(TripRecord.self, from: line) }
        }
        let values = try arrays.map { try JSONReader().parse($0) }
        try Self.measure("CanonicalJSONWriter write", bytes: bytes.count) {
            var output: [UInt8] = []
            output.reserveCapacity(bytes.count)
            for value in values { try CanonicalJSONWriter().write(value, into: &output) }
        }
        let records = try lines.map { try JSONDecoder().decode(TripRecord.self, from: $0) }
        try Self.measure("JSONEncoder write (sortedKeys)", bytes: bytes.count) {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            for record in records { _ = try encoder.encode(record) }
        }
        Self.measure("CRC-32", bytes: bytes.count) { _ = CRC32.checksum(bytes) }
    }

    @Test func openingAndWriting() throws {
        try withTemporaryDirectory { url in
            let count = 200_000
            do {
                let store = try Store.open(at: url, configuration: StoreConfiguration(durability: .none, compactionThreshold: nil))
                for batch in 0..<(count / 10_000) {
                    try store.write { tx in
                        for n in 0..<10_000 {
                            try tx.insert(
                                entity: "Trip", id: tx.allocateID(),
                                values: [
                                    "name": .string("Trip \(batch * 10_000 + n)"), "budget": .double(Double(n) * 1.5), "nights": .int(Int64(n % 14)),
                                ])
                        }
                    }
                }
                try store.compact()
                store.close()
            }
            let size = try FileManager.default.attributesOfItem(atPath: url.appending("snapshots/Trip.jsonl").path)[.size] as? Int ?? 0
            var stores: [Store] = []
            try Self.measure("open (snapshot of \(count) records)", bytes: size) {
                let store = try Store.open(at: url)
                #expect(store.count(of: "Trip") == count)
                stores.append(store)  // deallocated outside the timing
            }
            stores.removeAll()
            for (label, durability) in [("always", StoreConfiguration.Durability.always), ("none", .none)] {
                let store = try Store.open(
                    at: url.appending(label), configuration: StoreConfiguration(durability: durability, compactionThreshold: nil))
                let transactions = 300
                let start = DispatchTime.now().uptimeNanoseconds
                for n in 0..<transactions {
                    try store.write { tx in try tx.insert(entity: "Trip", id: tx.allocateID(), values: ["n": .int(Int64(n))]) }
                }
                let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
                print(
                    "BENCH single-record write transactions, durability \(label): \(String(format: "%.0f", Double(transactions) / seconds)) per second"
                )
            }
        }
    }
}
