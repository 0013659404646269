import Foundation
@testable import FolioStorage

/// A fresh temporary directory, removed when the test's closure returns.
func withTemporaryDirectory<T>(_ body: (URL) throws -> T) throws -> T {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("folio-tests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: url) }
    return try body(url)
}

/// A reproducible random generator (SplitMix64), so failures can be replayed from a seed.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

extension URL {
    func appending(_ component: String) -> URL { appendingPathComponent(component) }
}

func readBytes(_ url: URL) throws -> [UInt8] { [UInt8](try Data(contentsOf: url)) }
func writeBytes(_ bytes: [UInt8], to url: URL) throws { try Data(bytes).write(to: url) }

/// Every file under a directory with its bytes (to check that a failed open modified nothing).
func directoryContents(_ url: URL) throws -> [String: [UInt8]] {
    var result: [String: [UInt8]] = [:]
    guard let enumerator = FileManager.default.enumerator(at: url, includingPropertiesForKeys: nil) else { return result }
    for case let file as URL in enumerator {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: file.path, isDirectory: &isDirectory), !isDirectory.boolValue {
            result[String(file.path.dropFirst(url.path.count))] = try readBytes(file)
        }
    }
    return result
}

/// The logical content of a store, for comparisons.
struct StoreContent: Equatable, CustomStringConvertible {
    var records: [StoredRecord]
    var lastSequence: UInt64
    var nextID: Int64
    var schema: JSONValue?

    init(_ store: Store) {
        records = store.entityNames.flatMap { store.records(of: $0) }
        lastSequence = store.lastSequence
        nextID = store.nextID
        schema = store.schema
    }

    var description: String { "seq \(lastSequence), nextID \(nextID), \(records.count) records" }
}

/// Writes `count` simple transactions: inserts, then some updates and deletes.
@discardableResult
func writeSampleTransactions(_ store: Store, count: Int, seed: UInt64 = 1) throws -> [JournalTransaction] {
    var random = SeededGenerator(seed: seed)
    var committed: [JournalTransaction] = []
    for n in 0..<count {
        let transaction = try store.write(author: "tests") { tx in
            let live = tx.records(of: "Item")
            switch Int.random(in: 0..<4, using: &random) {
            case 0 where !live.isEmpty:
                let victim = live[Int.random(in: 0..<live.count, using: &random)]
                try tx.delete(entity: "Item", id: victim.id, tombstone: ["title": victim.values["title"] ?? .null])
            case 1 where !live.isEmpty:
                let target = live[Int.random(in: 0..<live.count, using: &random)]
                try tx.update(entity: "Item", id: target.id, values: ["title": .string("updated \(n)"), "score": .double(Double(n) / 4)])
            default:
                let id = tx.allocateID()
                try tx.insert(
                    entity: n % 3 == 0 ? "Tag" : "Item", id: id,
                    values: [
                        "title": .string("item \(n) \u{2028} é"), "count": .int(Int64(n)), "flag": .bool(n % 2 == 0),
                        "list": .array([.int(1), .null]),
                    ])
            }
        }
        if let transaction { committed.append(transaction) }
    }
    return committed
}

/// The worker executable built next to the test bundle.
func workerExecutable() throws -> URL {
    var candidates: [URL] = []
    let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
    var directory = executable.deletingLastPathComponent()
    for _ in 0..<4 {
        candidates.append(directory.appending("folio-storage-worker"))
        directory = directory.deletingLastPathComponent()
    }
    if let link = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
        candidates.append(URL(fileURLWithPath: link).deletingLastPathComponent().appending("folio-storage-worker"))
    }
    for bundle in Bundle.allBundles {
        candidates.append(bundle.bundleURL.deletingLastPathComponent().appending("folio-storage-worker"))
    }
    guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) else {
        throw StorageError(.ioFailure, "folio-storage-worker not found near \(executable.path); run `swift build` first")
    }
    return found
}

/// The store the damage tests start from: 15 sample transactions compacted into snapshots and
/// history, then 10 more in the journal.
func makeDamageTemplate(at url: URL) throws {
    let store = try Store.open(at: url)
    defer { store.close() }
    try writeSampleTransactions(store, count: 15)
    try store.compact()
    try writeSampleTransactions(store, count: 10, seed: 8)
}
