import Foundation
import Testing
@_spi(FolioEngine) @testable import FolioStorage

/// Identifiers allocated per clone: two copies of a store never hand out the same identifier.
@Suite("Identifier blocks")
struct IdentifierBlockTests {
    static func configuration(_ allocation: StoreConfiguration.IdentifierAllocation) -> StoreConfiguration {
        var configuration = StoreConfiguration(durability: .none, compactionThreshold: nil)
        configuration.identifierAllocation = allocation
        return configuration
    }

    /// Inserts `count` Notes and returns their identifiers.
    static func insert(_ count: Int, into store: Store, title: String = "n") throws -> [Int64] {
        var ids: [Int64] = []
        try store.write { transaction in
            for index in 0..<count {
                let id = transaction.allocateID()
                try transaction.insert(entity: "Note", id: id, values: ["title": .string("\(title)\(index)")])
                ids.append(id)
            }
        }
        return ids
    }

    /// A copy of the store's committed files, as `git clone` makes it: without `cache/` and `lock`.
    static func clone(_ source: URL, to destination: URL) throws {
        let manager = FileManager.default
        try manager.createDirectory(at: destination, withIntermediateDirectories: true)
        for name in try manager.contentsOfDirectory(atPath: source.path) where name != "cache" && name != "lock" {
            try manager.copyItem(at: source.appending(name), to: destination.appending(name))
        }
    }

    @Test func sequentialAllocationCountsOnFromTheHighestIdentifier() throws {
        try withTemporaryDirectory { directory in
            let store = try Store.open(at: directory.appending("S"), configuration: Self.configuration(.sequential))
            #expect(try Self.insert(3, into: store) == [1, 2, 3])
            try store.compact()
            let manifest = try String(contentsOf: directory.appending("S/manifest.json"), encoding: .utf8)
            #expect(!manifest.contains("nextIDs"), "a store using only block 0 keeps the manifest of older versions")
        }
    }

    @Test func clonesAllocatingPerCloneNeverShareAnIdentifier() throws {
        try withTemporaryDirectory { directory in
            let original = directory.appending("original")
            let base = try Store.open(at: original, configuration: Self.configuration(.sequential))
            let common = try Self.insert(2, into: base)
            base.close()
            try Self.clone(original, to: directory.appending("a"))
            try Self.clone(original, to: directory.appending("b"))

            let a = try Store.open(at: directory.appending("a"), configuration: Self.configuration(.perClone))
            let b = try Store.open(at: directory.appending("b"), configuration: Self.configuration(.perClone))
            let fromA = try Self.insert(50, into: a, title: "a") + Self.insert(50, into: a, title: "a2")
            let fromB = try Self.insert(100, into: b, title: "b")
            #expect(Set(fromA).isDisjoint(with: fromB))
            #expect(Set(fromA).isDisjoint(with: common) && Set(fromB).isDisjoint(with: common))
            let blockA = IdentifierBlocks.block(of: fromA[0])
            let blockB = IdentifierBlocks.block(of: fromB[0])
            #expect(blockA != 0 && blockB != 0 && blockA != blockB)
            #expect(fromA == (0..<100).map { IdentifierBlocks.first(in: blockA) + Int64($0) }, "dense within the clone's block")
            a.close()

            // The clone keeps its block across sessions, and counts on within it.
            let reopened = try Store.open(at: directory.appending("a"), configuration: Self.configuration(.perClone))
            #expect(try Self.insert(1, into: reopened) == [IdentifierBlocks.first(in: blockA) + 100])
        }
    }

    @Test func aDirectoryCopiedWithItsCacheDrawsABlockOfItsOwn() throws {
        try withTemporaryDirectory { directory in
            let a = try Store.open(at: directory.appending("a"), configuration: Self.configuration(.perClone))
            let first = try Self.insert(1, into: a)[0]
            a.close()
            try FileManager.default.copyItem(at: directory.appending("a"), to: directory.appending("copy"))
            let copy = try Store.open(at: directory.appending("copy"), configuration: Self.configuration(.perClone))
            let copied = try Self.insert(1, into: copy)[0]
            #expect(IdentifierBlocks.block(of: copied) != IdentifierBlocks.block(of: first))
        }
    }

    @Test func aDamagedOrMissingBlockFileIsReplacedByAFreshBlock() throws {
        try withTemporaryDirectory { directory in
            let url = directory.appending("S")
            let store = try Store.open(at: url, configuration: Self.configuration(.perClone))
            let first = try Self.insert(1, into: store)[0]
            store.close()
            let file = url.appending("cache/identifier-block")
            var bytes = try readBytes(file)
            bytes[bytes.count / 2] ^= 0x01
            try writeBytes(bytes, to: file)
            let damaged = try Store.open(at: url, configuration: Self.configuration(.perClone))
            let next = try Self.insert(1, into: damaged)[0]
            #expect(IdentifierBlocks.block(of: next) != IdentifierBlocks.block(of: first))
            #expect(damaged.recordCount == 2)
            damaged.close()
            try FileManager.default.removeItem(at: url.appending("cache"))
            let missing = try Store.open(at: url, configuration: Self.configuration(.perClone))
            #expect(!Set([first, next]).contains(try Self.insert(1, into: missing)[0]))
        }
    }

    @Test func aBlockCounterSurvivesDeletionAndCompaction() throws {
        try withTemporaryDirectory { directory in
            let url = directory.appending("S")
            let store = try Store.open(at: url, configuration: Self.configuration(.perClone))
            let ids = try Self.insert(3, into: store)
            // A record in block 0 keeps the highest counter out of the clone's block.
            try store.write { try $0.insert(entity: "Note", id: $0.allocateID(), values: [:]) }
            try store.write { transaction in
                for id in ids { try transaction.delete(entity: "Note", id: id) }
            }
            try store.compact()
            store.close()
            let manifest = try String(contentsOf: url.appending("manifest.json"), encoding: .utf8)
            #expect(manifest.contains("\"nextIDs\""))
            let reopened = try Store.open(at: url, configuration: Self.configuration(.perClone))
            let next = try Self.insert(1, into: reopened)[0]
            #expect(next == ids[2] + 2, "identifiers of deleted records are never handed out again")
        }
    }

    @Test func automaticAllocationIsPerCloneInsideAGitWorkTreeOnly() throws {
        try withTemporaryDirectory { directory in
            let outside = try Store.open(at: directory.appending("plain/S"), configuration: Self.configuration(.automatic))
            #expect(try Self.insert(1, into: outside) == [1])
            try FileManager.default.createDirectory(at: directory.appending("repo/.git"), withIntermediateDirectories: true)
            let inside = try Store.open(at: directory.appending("repo/data/S"), configuration: Self.configuration(.automatic))
            #expect(IdentifierBlocks.block(of: try Self.insert(1, into: inside)[0]) != 0)
        }
    }

    @Test func aManifestWithBadBlockCountersIsRefusedNamingIt() throws {
        try withTemporaryDirectory { directory in
            let url = directory.appending("S")
            let store = try Store.open(at: url, configuration: Self.configuration(.sequential))
            _ = try Self.insert(1, into: store)
            try store.compact()
            store.close()
            for counters in [#"[]"#, #"{"x":5}"#, #"{"3":5}"#, #"{"-1":1}"#, #"{"01":4294967297}"#] {
                var members: [String: JSONValue] = [
                    "format": .string("folio-store"), "version": .int(1), "sequence": .int(1), "nextID": .int(2),
                ]
                members["nextIDs"] = try JSONReader().parse(Array(counters.utf8))
                try writeBytes(try LineFraming.encode(members), to: url.appending("manifest.json"))
                let error = #expect(throws: StorageError.self) { try Store.open(at: url) }
                #expect(error?.code == .malformedLine && error?.file?.hasSuffix("manifest.json") == true, "\(counters)")
                #expect(error?.message.contains("nextIDs") == true)
            }
        }
    }

    @Test func aTableKeepsAHighBlockInSlots() {
        var table = DenseTable<Int>()
        let first = IdentifierBlocks.first(in: 123_456)
        for offset in 0..<5000 { table[first + Int64(offset)] = offset }
        table[7] = -7
        #expect(table.allocatedChunks > 0 && table.overflow.count == 1)
        var seen: [Int64] = []
        table.forEachInNumberOrder { number, _ in seen.append(number) }
        #expect(seen == [7] + (0..<5000).map { first + Int64($0) })
        #expect(table[first + 4999] == 4999 && table[first + 5000] == nil && table[7] == -7)
    }
}
