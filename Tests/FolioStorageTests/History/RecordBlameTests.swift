import Foundation
import Testing
@testable import FolioStorage

@Suite("Record blame")
struct RecordBlameTests {
    /// What a plain replay of the writes says of one live record: each member's last setter's sequence.
    struct Reference {
        var setters: [Int64: [String: UInt64]] = [:]
        var deleted: [Int64: UInt64] = [:]
    }

    /// Random writes of `Item` records (inserts, updates of some members, deletes, migrations that
    /// rename one member and remove another, compactions), with the reference kept beside them.
    static func randomHistory(seed: UInt64, at url: URL, retention: Int) throws -> (Reference, [UInt64: JournalTransaction]) {
        var random = SeededGenerator(seed: seed)
        var reference = Reference()
        var transactions: [UInt64: JournalTransaction] = [:]
        var renamable = "r0"
        let configuration = StoreConfiguration(compactionThreshold: nil, historyRetention: .init(maximumCount: retention))
        let store = try Store.open(at: url, configuration: configuration)
        defer { store.close() }
        for _ in 0..<Int.random(in: 30...70, using: &random) {
            if Int.random(in: 0..<10, using: &random) == 0 {
                try store.compact()
                continue
            }
            var changes: [(Int64, [String: JSONValue]?, insert: Bool)] = []
            var migration: RecordMigration? = nil
            let transaction = try store.write(author: "writer\(Int.random(in: 0..<3, using: &random))") { t in
                if Int.random(in: 0..<12, using: &random) == 0 {
                    let next = "r\(Int(renamable.dropFirst())! + 1)"
                    migration = RecordMigration(entity: "Item", renamedMembers: [renamable: next], removedMembers: ["c"])
                    try t.migrate(migration!)
                    renamable = next
                }
                let live = reference.setters.keys.sorted()
                var touched = Set<Int64>()
                for _ in 0..<Int.random(in: 1...3, using: &random) {
                    let pick = Int.random(in: 0..<10, using: &random)
                    let names = ["a", "b", "c", renamable].filter { _ in Bool.random(using: &random) }
                    let values = Dictionary(uniqueKeysWithValues: names.map { ($0, JSONValue.int(Int64.random(in: 0..<5, using: &random))) })
                    if pick < 4 || live.isEmpty {
                        let id = t.allocateID()
                        try t.insert(entity: "Item", id: id, values: values)
                        changes.append((id, values, true))
                    } else if let id = live.randomElement(using: &random), touched.insert(id).inserted {
                        if pick == 9 {
                            try t.delete(entity: "Item", id: id)
                            changes.append((id, nil, false))
                        } else if !values.isEmpty {
                            try t.update(entity: "Item", id: id, values: values)
                            changes.append((id, values, false))
                        }
                    }
                }
            }
            guard let transaction else { continue }
            transactions[transaction.sequence] = transaction
            if let migration { reference.apply(migration) }
            for (id, values, insert) in changes {
                guard let values else {
                    reference.setters[id] = nil
                    reference.deleted[id] = transaction.sequence
                    continue
                }
                if insert { reference.setters[id] = [:] }
                for name in values.keys { reference.setters[id]?[name] = transaction.sequence }
            }
        }
        return (reference, transactions)
    }

    @Test(arguments: 1...12 as ClosedRange<UInt64>)
    func blameNamesTheLastTransactionThatSetEachValueOrSaysItPredatesTheRetainedHistory(seed: UInt64) throws {
        try withTemporaryDirectory { url in
            let retention = Int(seed % 4) * 7
            let (reference, transactions) = try Self.randomHistory(seed: seed, at: url, retention: retention)
            let store = try Store.open(at: url, configuration: StoreConfiguration(readOnly: true))
            defer { store.close() }
            let oldest = store.oldestRetainedSequence
            for (id, setters) in reference.setters.sorted(by: { $0.key < $1.key }) {
                let blame = try store.blame(id: id)
                let record = try #require(store.record(id: id), "seed \(seed): record \(id)")
                #expect(blame.entity == "Item" && blame.id == id, "seed \(seed)")
                #expect(blame.members.map(\.name) == record.values.dictionary.keys.sorted(), "seed \(seed): record \(id)'s members")
                #expect(Set(setters.keys) == Set(record.values.dictionary.keys), "seed \(seed): the reference tracks record \(id)'s members")
                for member in blame.members {
                    #expect(member.value == record.values.dictionary[member.name], "seed \(seed): record \(id).\(member.name)")
                    let sequence = try #require(setters[member.name], "seed \(seed): record \(id).\(member.name)")
                    let expected: RecordBlame.Origin
                    if sequence >= oldest, let transaction = transactions[sequence] {
                        expected = .set(by: RecordBlame.Setter(transaction))
                    } else {
                        expected = .beforeRetainedHistory(atOrBefore: oldest - 1)
                    }
                    #expect(member.origin == expected, "seed \(seed): record \(id).\(member.name) set at \(sequence), oldest retained \(oldest)")
                }
            }
            for (id, sequence) in reference.deleted {
                let expected: RecordBlameError =
                    sequence >= oldest && transactions[sequence] != nil
                    ? .deleted(entity: "Item", id: id, by: RecordBlame.Setter(transactions[sequence]!))
                    : .noRecord(id: id)
                #expect(throws: expected, "seed \(seed): record \(id) deleted at \(sequence), oldest retained \(oldest)") {
                    try store.blame(id: id)
                }
            }
        }
    }

    /// A store whose records are not read answers blame from the matching lines of its history, its
    /// journal and one snapshot line, exactly as the store read in full does.
    @Test(arguments: 1...8 as ClosedRange<UInt64>)
    func blameWithoutReadingTheRecordsEqualsBlameAfterReadingThem(seed: UInt64) throws {
        try withTemporaryDirectory { url in
            let retention = Int(seed % 4) * 7
            let (reference, _) = try Self.randomHistory(seed: seed, at: url, retention: retention)
            // A compaction folds the migrations into the snapshots; then a journal to lay over them.
            var random = SeededGenerator(seed: seed &+ 1)
            let writer = try Store.open(
                at: url, configuration: StoreConfiguration(compactionThreshold: nil, historyRetention: .init(maximumCount: retention)))
            try writer.compact()
            let live = reference.setters.keys.sorted()
            for _ in 0..<3 {
                try writer.write(author: "later") { t in
                    if let id = live.randomElement(using: &random), t.record(id: id) != nil {
                        try t.update(entity: "Item", id: id, values: ["a": .int(Int64.random(in: 0..<9, using: &random))])
                    }
                    if let id = live.randomElement(using: &random), t.record(id: id) != nil, Bool.random(using: &random) {
                        try t.delete(entity: "Item", id: id)
                    }
                    try t.insert(entity: "Item", id: t.allocateID(), values: ["b": .int(1)])
                }
            }
            writer.close()
            var deferred = StoreConfiguration(readOnly: true)
            deferred.defersLoadingRecords = true
            let loaded = try Store.open(at: url, configuration: StoreConfiguration(readOnly: true))
            defer { loaded.close() }
            let ids = loaded.records(of: "Item").map(\.id) + Array(reference.deleted.keys) + [Int64.max, 0]
            for id in ids {
                let unread = try Store.open(at: url, configuration: deferred)
                defer { unread.close() }
                let expected = Result { try loaded.blame(id: id) }
                let found = Result { try unread.blame(id: id) }
                // Read from the files without opening: the journal holds no migration, so every live
                // record is answered this way, and only a record not there is left to a full open.
                let fromFiles = try Store.blame(id: id, inStoreAt: url)
                if case .success(let a) = expected {
                    #expect(fromFiles == a, "seed \(seed): record \(id) read from the files")
                } else {
                    #expect(fromFiles == nil, "seed \(seed): record \(id) is not in the store")
                }
                switch (expected, found) {
                case (.success(let a), .success(let b)):
                    #expect(a == b, "seed \(seed): record \(id)")
                    #expect(!unread.hasLoadedRecords, "seed \(seed): record \(id) was blamed without reading the records")
                case (.failure(let a as RecordBlameError), .failure(let b as RecordBlameError)):
                    #expect(a == b, "seed \(seed): record \(id)")
                default:
                    Issue.record("seed \(seed): record \(id): \(expected) but \(found)")
                }
            }
        }
    }

    @Test func aDamagedHistoryLineAnywhereIsReportedWithItsLineNumber() throws {
        try withTemporaryDirectory { url in
            let store = try Store.open(at: url, configuration: StoreConfiguration(compactionThreshold: nil))
            var id: Int64 = 0
            _ = try store.write { t in
                id = t.allocateID()
                try t.insert(entity: "Item", id: id, values: ["a": .int(0)])
            }
            for round in 1...200 {
                _ = try store.write { t in
                    try t.insert(entity: "Item", id: t.allocateID(), values: ["a": .int(Int64(round)), "b": .string("filler")])
                }
            }
            try store.compact()
            store.close()
            let history = url.appendingPathComponent("history.jsonl")
            let original = try Data(contentsOf: history)
            let starts = [0] + original.indices.filter { original[$0] == 0x0A }.map { $0 + 1 }.dropLast()
            // Lines in every part the file is read in: the first, one in the middle, the last.
            for line in [1, starts.count / 2, starts.count - 3, starts.count] {
                var damaged = original
                damaged[starts[line - 1] + 30] ^= 0x01
                try damaged.write(to: history)
                #expect(throws: StorageError.self, "line \(line)") {
                    do {
                        _ = try Store.blame(id: id, inStoreAt: url)
                    } catch let error as StorageError {
                        #expect(error.file == history.path && error.line == line && error.offset == Int64(starts[line - 1]), "\(error)")
                        throw error
                    }
                }
            }
        }
    }

    @Test func aJournalThatMigratesIsLeftToAFullOpen() throws {
        try withTemporaryDirectory { url in
            let store = try Store.open(at: url, configuration: StoreConfiguration(compactionThreshold: nil))
            var id: Int64 = 0
            _ = try store.write { t in
                id = t.allocateID()
                try t.insert(entity: "Item", id: id, values: ["old": .int(1)])
            }
            try store.compact()
            _ = try store.write { try $0.migrate(RecordMigration(entity: "Item", renamedMembers: ["old": "new"])) }
            let expected = try store.blame(id: id)
            store.close()
            #expect(try Store.blame(id: id, inStoreAt: url) == nil)
            #expect(expected.members.map(\.name) == ["new"])
        }
    }

    @Test func aRecordThatNeverExistedIsNoRecord() throws {
        let store = Store.inMemory()
        _ = try store.write { try $0.insert(entity: "Item", id: $0.allocateID(), values: ["a": .int(1)]) }
        #expect(throws: RecordBlameError.noRecord(id: 99)) { try store.blame(id: 99) }
    }

    @Test func aValueAMigrationRenamedKeepsTheTransactionThatSetIt() throws {
        let store = Store.inMemory()
        var id: Int64 = 0
        let insert = try #require(
            try store.write(author: "first") { t in
                id = t.allocateID()
                try t.insert(entity: "Item", id: id, values: ["old": .string("kept"), "other": .int(1)])
            })
        let update = try #require(try store.write(author: "second") { try $0.update(entity: "Item", id: id, values: ["other": .int(2)]) })
        _ = try store.write(author: "migration") { try $0.migrate(RecordMigration(entity: "Item", renamedMembers: ["old": "new"])) }
        let blame = try store.blame(id: id)
        #expect(blame.members.map(\.name) == ["new", "other"])
        #expect(blame.members.map(\.origin) == [.set(by: .init(insert)), .set(by: .init(update))])
        #expect(blame.insertion == RecordBlame.Setter(insert))
    }
}

extension RecordBlameTests.Reference {
    mutating func apply(_ migration: RecordMigration) {
        for (id, before) in setters {
            var after = before
            for name in migration.removedMembers { after[name] = nil }
            for (old, new) in migration.renamedMembers {
                after[new] = after[old]
                after[old] = nil
            }
            setters[id] = after
        }
    }
}
