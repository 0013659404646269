import Foundation
import Testing
@_spi(FolioEngine) @testable import FolioStorage

/// `RecordMigration`: a transaction that changes the stored shape of every record of an entity, written
/// as one declarative `"migrate"` member of its journal line and applied wherever transactions are.
@Suite("Record migrations")
struct RecordMigrationTests {
    /// Trips with a `name` and a `legacy` member, plus one `Old` record and one `Keep` record.
    private func makeStore(_ url: URL, configuration: StoreConfiguration = StoreConfiguration()) throws -> Store {
        let store = try Store.open(at: url, configuration: configuration)
        try store.write { tx in
            for n in 1...5 {
                try tx.insert(
                    entity: "Trip", id: tx.allocateID(),
                    values: [
                        "name": .string("trip \(n)"), "legacy": .int(Int64(n)), "price": .int(Int64(100 * n)),
                    ])
            }
            try tx.insert(entity: "Old", id: tx.allocateID(), values: ["gone": .bool(true)])
            try tx.insert(entity: "Keep", id: tx.allocateID(), values: ["name": .string("kept")])
        }
        return store
    }

    private static let tripMigration = RecordMigration(entity: "Trip", renamedMembers: ["name": "title"], removedMembers: ["legacy"])
    private static let oldRemoval = RecordMigration(entity: "Old", removesEntity: true)

    private func migrate(_ store: Store) throws {
        try store.write(author: "migration") { tx in
            try tx.migrate(Self.tripMigration)
            try tx.migrate(Self.oldRemoval)
        }
    }

    /// The state every test expects after ``migrate(_:)``.
    private func expectMigrated(_ store: Store, sourceLocation: SourceLocation = #_sourceLocation) {
        let trips = store.records(of: "Trip")
        #expect(trips.count == 5, sourceLocation: sourceLocation)
        for (n, trip) in zip(1..., trips) {
            #expect(trip.values.dictionary == ["title": .string("trip \(n)"), "price": .int(Int64(100 * n))], sourceLocation: sourceLocation)
        }
        #expect(store.records(of: "Old").isEmpty, sourceLocation: sourceLocation)
        #expect(store.count(of: "Old") == 0, sourceLocation: sourceLocation)
        #expect(!store.entityNames.contains("Old"), sourceLocation: sourceLocation)
        #expect(store.records(of: "Keep").map(\.values) == [["name": .string("kept")]], sourceLocation: sourceLocation)
    }

    private func journalLine(_ url: URL, sequence: Int) throws -> JSONValue {
        let lines = try readBytes(url.appending("journal.jsonl")).split(separator: 0x0A)
        return try JSONReader().parse(Array(lines[sequence - 1]))
    }

    // MARK: The line

    @Test func theLineIsCanonicalAndReadsBackEqual() throws {
        let transaction = JournalTransaction(
            sequence: 4, transactionID: "T4", timestamp: Date(timeIntervalSince1970: 1_700_000_000.5), author: "m",
            migrations: [Self.tripMigration, Self.oldRemoval, RecordMigration(entity: "Keep", removedMembers: ["b", "a"])],
            inserted: [StoredRecord(entity: "Trip", id: 9, values: ["title": .string("new")])], updated: [], deleted: [],
            schema: .string("v2"), nextID: 10)
        let line = try transaction.encodedLine()
        #expect(line == (try LineFraming.encode(transaction.jsonMembers())))
        let text = String(decoding: line, as: UTF8.self)
        #expect(
            text.contains(
                #""migrate":[{"entity":"Trip","remove":["legacy"],"rename":{"name":"title"}},{"entity":"Old","removeEntity":true},{"entity":"Keep","remove":["b","a"]}],"nextID":10"#
            ))
        let decoded = try line.dropLast().withUnsafeBufferPointer { try JournalTransaction(members: LineFraming.decode($0)) }
        #expect(decoded == transaction)
        #expect(decoded.entities == ["Trip", "Old", "Keep"])
    }

    @Test func aMigrationThatChangesNothingIsNotWrittenOrAdded() throws {
        let transaction = JournalTransaction(
            sequence: 1, transactionID: "T1", timestamp: Date(timeIntervalSince1970: 0), author: nil,
            migrations: [RecordMigration(entity: "Trip")], inserted: [], updated: [], deleted: [], nextID: 1)
        #expect(!String(decoding: try transaction.encodedLine(), as: UTF8.self).contains("migrate"))
        let store = Store.inMemory()
        let committed = try store.write { tx in try tx.migrate(RecordMigration(entity: "Trip")) }
        #expect(committed == nil)
    }

    @Test func aTransactionWithOnlyAMigrationIsCommitted() throws {
        try withTemporaryDirectory { url in
            let store = try makeStore(url)
            let committed = try store.write { tx in try tx.migrate(Self.oldRemoval) }
            #expect(committed?.migrations == [Self.oldRemoval])
            #expect(committed?.entities == ["Old"])
            #expect(
                try journalLine(url, sequence: 2).objectValue?["migrate"]
                    == .array([.object(["entity": .string("Old"), "removeEntity": .bool(true)])]))
        }
    }

    @Test(arguments: [
        #""migrate":{"entity":"Trip","remove":["a"]}"#,
        #""migrate":["Trip"]"#,
        #""migrate":[{"remove":["a"]}]"#,
        #""migrate":[{"entity":3,"remove":["a"]}]"#,
        #""migrate":[{"entity":".hidden","remove":["a"]}]"#,
        #""migrate":[{"entity":"Trip","remove":"a"}]"#,
        #""migrate":[{"entity":"Trip","remove":[1]}]"#,
        #""migrate":[{"entity":"Trip","rename":["a","b"]}]"#,
        #""migrate":[{"entity":"Trip","rename":{"a":1}}]"#,
        #""migrate":[{"entity":"Trip","rename":{"a":"c","b":"c"}}]"#,
        #""migrate":[{"entity":"Trip","rename":{"a":""}}]"#,
        #""migrate":[{"entity":"Trip","remove":[""]}]"#,
        #""migrate":[{"entity":"Trip","removeEntity":false}]"#,
        #""migrate":[{"entity":"Trip","removeEntity":"yes"}]"#,
        #""migrate":[{"entity":"Trip"}]"#,
        #""migrate":[{"entity":"Trip","remove":["a"],"renames":{"b":"c"}}]"#,
    ])
    func aMalformedMigrationIsRefusedWithItsLine(member: String) throws {
        try withTemporaryDirectory { url in
            try makeStore(url).close()
            let body = #"{"id":"X","# + member + #","nextID":8,"seq":2,"time":"2026-01-01T00:00:00.000Z"}"#
            let members = try #require(try JSONReader().parse(Array(body.utf8)).objectValue)
            let journal = url.appending("journal.jsonl")
            try writeBytes(try readBytes(journal) + LineFraming.encode(members), to: journal)
            try expectOpenFailure(url, code: .malformedLine, file: "journal.jsonl", line: 2)
        }
    }

    @Test func anUnknownTopLevelMemberIsRefusedAsFromANewerFolio() throws {
        try withTemporaryDirectory { url in
            try makeStore(url).close()
            let line = try LineFraming.encode([
                "seq": .int(2), "id": .string("x"), "time": .string("2026-01-01T00:00:00.000Z"), "nextID": .int(8),
                "reshape": .array([]),
            ])
            let journal = url.appending("journal.jsonl")
            try writeBytes(try readBytes(journal) + line, to: journal)
            try expectOpenFailure(url, code: .malformedLine, file: "journal.jsonl", line: 2)
            do {
                _ = try Store.open(at: url)
            } catch let error as StorageError {
                #expect(error.message.contains("\"reshape\""))
                #expect(error.message.contains("newer Folio"))
            }
        }
    }

    // MARK: Applying

    @Test func aMigrationIsAppliedAtCommitAndAfterReopen() throws {
        try withTemporaryDirectory { url in
            let store = try makeStore(url)
            try migrate(store)
            expectMigrated(store)
            store.close()
            let reopened = try Store.open(at: url)
            expectMigrated(reopened)
            #expect(reopened.nextID == 8)
        }
    }

    @Test func readsAndLaterChangesInTheTransactionSeeTheMigratedRecords() throws {
        try withTemporaryDirectory { url in
            let store = try makeStore(url)
            try store.write { tx in
                try tx.migrate(Self.tripMigration)
                try tx.migrate(Self.oldRemoval)
                #expect(tx.record(id: 1)?.values.dictionary == ["title": .string("trip 1"), "price": .int(100)])
                #expect(tx.records(of: "Trip").compactMap { $0.values["title"] } == (1...5).map { JSONValue.string("trip \($0)") })
                #expect(tx.records(of: "Old").isEmpty)
                #expect(tx.entity(ofRecord: 6) == nil)
                try tx.update(entity: "Trip", id: 2, values: ["title": .string("renamed later")])
                try tx.delete(entity: "Trip", id: 3)
                try tx.insert(entity: "Trip", id: tx.allocateID(), values: ["title": .string("new"), "price": .int(1)])
                #expect(throws: StorageError.self) { try tx.delete(entity: "Old", id: 6) }
            }
            let expected: [Int64: RecordValues] = [
                1: ["title": .string("trip 1"), "price": .int(100)], 2: ["title": .string("renamed later"), "price": .int(200)],
                4: ["title": .string("trip 4"), "price": .int(400)], 5: ["title": .string("trip 5"), "price": .int(500)],
                8: ["title": .string("new"), "price": .int(1)],
            ]
            func values(_ store: Store) -> [Int64: RecordValues] {
                Dictionary(uniqueKeysWithValues: store.records(of: "Trip").map { ($0.id, $0.values) })
            }
            #expect(values(store) == expected)
            store.close()
            let reopened = try Store.open(at: url)
            #expect(values(reopened) == expected)
            try reopened.compact()
            #expect(values(try Store.open(at: url)) == expected)
        }
    }

    /// A commit with migrations takes its transaction's migrated view as the store's state: every
    /// record's values, version and entity, the counts and the sequence must be what a reopen loads.
    @Test func theStateAfterAMigratingCommitIsTheStateAReopenLoads() throws {
        try withTemporaryDirectory { url in
            let store = try makeStore(url)
            try store.write { tx in
                try tx.migrate(Self.tripMigration)
                try tx.migrate(Self.oldRemoval)
                try tx.update(entity: "Trip", id: 4, values: ["price": .int(1)])
                try tx.delete(entity: "Keep", id: 7)
                try tx.insert(entity: "Trip", id: tx.allocateID(), values: ["title": .string("new")])
            }
            let committed = StagingCopyTests.snapshot(store)
            #expect(committed.contains { $0.hasPrefix("4 Trip v2 ") && $0.contains("price=int(1)") })
            #expect(!committed.contains { $0.hasPrefix("7 ") })
            store.close()
            #expect(StagingCopyTests.snapshot(try Store.open(at: url)) == committed)
        }
    }

    @Test func migrationsApplyInOrderAndARenameCanSwap() throws {
        let store = Store.inMemory()
        try store.write { tx in try tx.insert(entity: "Pair", id: tx.allocateID(), values: ["a": .int(1), "b": .int(2), "c": .int(3)]) }
        try store.write { tx in
            try tx.migrate(RecordMigration(entity: "Pair", renamedMembers: ["a": "b", "b": "a"]))
            try tx.migrate(RecordMigration(entity: "Pair", renamedMembers: ["c": "d"], removedMembers: ["a"]))
        }
        #expect(store.record(id: 1)?.values.dictionary == ["b": .int(1), "d": .int(3)])
    }

    @Test func aMigrationAfterAnInsertUpdateOrDeleteIsRefused() throws {
        try withTemporaryDirectory { url in
            let store = try makeStore(url)
            let changes: [(inout WriteTransaction) throws -> Void] = [
                { tx in try tx.insert(entity: "Keep", id: tx.allocateID(), values: [:]) },
                { tx in try tx.update(entity: "Keep", id: 7, values: ["name": .string("x")]) },
                { tx in try tx.delete(entity: "Keep", id: 7) },
            ]
            for change in changes {
                do {
                    try store.write { tx in
                        try change(&tx)
                        try tx.migrate(Self.tripMigration)
                    }
                    Issue.record("a migration after a change was accepted")
                } catch let error as StorageError {
                    #expect(error.code == .invalidTransaction)
                    #expect(error.message.contains("must come first"))
                }
            }
            #expect(store.lastSequence == 1)
        }
    }

    @Test func invalidMigrationsAreRefused() throws {
        try withTemporaryDirectory { url in
            let store = try makeStore(url)
            func refusal(_ migration: RecordMigration) -> StorageError? {
                do {
                    try store.write { tx in try tx.migrate(migration) }
                    return nil
                } catch {
                    return error as? StorageError
                }
            }
            // Onto a member some record has.
            let collision = refusal(RecordMigration(entity: "Trip", renamedMembers: ["name": "price"]))
            #expect(collision?.code == .invalidTransaction)
            #expect(collision?.message.contains("Trip 1") == true)
            #expect(collision?.message.contains("\"price\"") == true)
            // Two members onto one name.
            let twoOntoOne = refusal(RecordMigration(entity: "Trip", renamedMembers: ["name": "title", "legacy": "title"]))
            #expect(twoOntoOne?.code == .invalidTransaction)
            #expect(twoOntoOne?.message.contains("\"title\"") == true)
            #expect(refusal(RecordMigration(entity: "Trip", renamedMembers: ["name": ""]))?.code == .invalidTransaction)
            #expect(refusal(RecordMigration(entity: "Trip", removedMembers: [""]))?.code == .invalidTransaction)
            #expect(refusal(RecordMigration(entity: "../Trip", removedMembers: ["name"]))?.code == .invalidEntityName)
            #expect(store.lastSequence == 1)
            // Onto a member that the migration removes or renames away: accepted.
            try store.write { tx in
                try tx.migrate(RecordMigration(entity: "Trip", renamedMembers: ["name": "price", "price": "cost"], removedMembers: ["legacy"]))
            }
            #expect(store.record(id: 1)?.values.dictionary == ["price": .string("trip 1"), "cost": .int(100)])
        }
    }

    @Test func knownEntitiesApplyUnlessTheEntityIsRemoved() throws {
        try withTemporaryDirectory { url in
            try makeStore(url).close()
            var configuration = StoreConfiguration()
            configuration.knownEntities = ["Trip", "Keep", "Old"]
            let store = try Store.open(at: url, configuration: configuration)
            #expect(throws: StorageError.self) {
                try store.write { tx in try tx.migrate(RecordMigration(entity: "Stranger", removedMembers: ["x"])) }
            }
            try store.write { tx in try tx.migrate(RecordMigration(entity: "Stranger", removesEntity: true)) }
            #expect(store.lastSequence == 2)
        }
    }

    // MARK: Compaction

    @Test func compactionWritesTheNewNamesAndHistoryKeepsTheOldValues() throws {
        try withTemporaryDirectory { url in
            let store = try makeStore(url)
            try store.compact()
            #expect(FileManager.default.fileExists(atPath: url.appending("snapshots/Old.jsonl").path))
            try migrate(store)
            try store.compact()
            expectMigrated(store)
            let trips = String(decoding: try readBytes(url.appending("snapshots/Trip.jsonl")), as: UTF8.self)
            #expect(trips.contains("\"title\":\"trip 3\""))
            #expect(!trips.contains("\"name\""))
            #expect(!trips.contains("legacy"))
            #expect(!FileManager.default.fileExists(atPath: url.appending("snapshots/Old.jsonl").path))
            let history = try store.history(after: 0)
            #expect(history.first?.inserted.first?.values["legacy"] == .int(1))
            #expect(history.last?.migrations == [Self.tripMigration, Self.oldRemoval])
            store.close()
            let reopened = try Store.open(at: url)
            expectMigrated(reopened)
            #expect(try reopened.history(after: 0).first?.inserted.last?.entity == "Keep")
        }
    }

    @Test func insertsBeforeAMigrationInTheSameJournalCompactToTheNewNames() throws {
        try withTemporaryDirectory { url in
            // Inserted, migrated and compacted with no compaction in between: the inserted records'
            // bytes are in the journal under the old names.
            let store = try makeStore(url)
            try store.write { tx in
                try tx.migrate(Self.tripMigration)
                try tx.insert(entity: "Trip", id: tx.allocateID(), values: ["title": .string("after"), "price": .int(1)])
            }
            try store.compact()
            let trips = String(decoding: try readBytes(url.appending("snapshots/Trip.jsonl")), as: UTF8.self)
            #expect(!trips.contains("\"name\""))
            #expect(!trips.contains("legacy"))
            var records: [Int64: RecordValues] = [:]
            for record in store.records(of: "Trip") { records[record.id] = record.values }
            let header = try readBytes(url.appending("snapshots/Trip.jsonl")).split(separator: 0x0A)[0]
            let sequence = try Array(header).withUnsafeBufferPointer { try SnapshotFile.decodeHeader(LineFraming.decode($0)).sequence }
            #expect(try readBytes(url.appending("snapshots/Trip.jsonl")) == SnapshotFile.encode(entity: "Trip", sequence: sequence, records: records))
            #expect(records[8] == ["title": .string("after"), "price": .int(1)])
            #expect(records.count == 6)
        }
    }

    @Test func recordsInsertedBeforeAMigrationOfTheirEntityAreNotCopiedFromTheJournal() throws {
        try withTemporaryDirectory { url in
            let store = try makeStore(url)
            // Removes a member no Keep record has: the values stay equal, the entity is still rewritten.
            try store.write { tx in
                try tx.migrate(RecordMigration(entity: "Keep", removedMembers: ["absent"]))
                try tx.insert(entity: "Keep", id: tx.allocateID(), values: ["name": .string("after")])
            }
            let paths = try #require(store.paths)
            let (transactions, spans, end) = store.withReadState { ($0.retained, $0.insertedSpans, $0.journalEnd) }
            let copier = JournalRecordCopies(
                transactions: transactions, spans: spans, storedLines: store.storedLines(paths, journalLimit: end),
                fileSystem: PosixFileSystem(), journalPath: paths.journal)
            var line: [UInt8] = []
            #expect(!copier.appendLine(id: 7, values: ["name": .string("kept")], to: &line))
            #expect(copier.appendLine(id: 8, values: ["name": .string("after")], to: &line))
            #expect(copier.appendLine(id: 1, values: store.record(id: 1)?.values ?? [:], to: &line))
        }
    }

    // MARK: Other processes and deferred loading

    @Test func anotherStoreOnTheDirectoryCatchesUpWithAMigration() throws {
        try withTemporaryDirectory { url in
            let writer = try makeStore(url)
            let reader = try Store.open(at: url)
            #expect(reader.records(of: "Trip").first?.values["name"] == .string("trip 1"))
            try migrate(writer)
            let fresh = try reader.refresh()
            #expect(fresh.map(\.migrations) == [[Self.tripMigration, Self.oldRemoval]])
            expectMigrated(reader)
            // And a write by the other store, which catches up first.
            let other = try Store.open(at: url)
            try writer.write { tx in try tx.update(entity: "Trip", id: 1, values: ["title": .string("changed")]) }
            try other.write { tx in
                #expect(tx.record(id: 1)?.values["title"] == .string("changed"))
                #expect(tx.record(id: 1)?.values["name"] == nil)
            }
        }
    }

    @Test func deferredLoadingCountsAreRightAfterAMigration() throws {
        try withTemporaryDirectory { url in
            let store = try makeStore(url)
            try store.compact()
            try migrate(store)
            store.close()
            var deferring = StoreConfiguration()
            deferring.defersLoadingRecords = true
            let reopened = try Store.open(at: url, configuration: deferring)
            #expect(try reopened.recordCounts() == ["Trip": 5, "Keep": 1])
            expectMigrated(reopened)
            try reopened.compact()
            reopened.close()
            let compacted = try Store.open(at: url, configuration: deferring)
            #expect(try compacted.recordCounts() == ["Trip": 5, "Keep": 1])
            #expect(!compacted.hasLoadedRecords)
            expectMigrated(compacted)
        }
    }

    // MARK: Merge

    @Test func aMergeOfAMigratedJournalIsRefusedNamingTheLine() throws {
        func transaction(_ sequence: UInt64, _ id: String, migrations: [RecordMigration] = []) -> JournalTransaction {
            JournalTransaction(
                sequence: sequence, transactionID: id, timestamp: Date(timeIntervalSince1970: 0), author: nil, migrations: migrations,
                inserted: [], updated: [StoredRecord(entity: "Trip", id: 1, values: ["title": .string(id)])], deleted: [], nextID: 2)
        }
        let common = transaction(1, "common")
        for journal in [
            [common, transaction(2, "ours", migrations: [Self.tripMigration]), transaction(2, "theirs")],
            [common, transaction(2, "ours"), transaction(2, "theirs", migrations: [Self.oldRemoval])],
        ] {
            let line = journal.firstIndex { !$0.migrations.isEmpty }.map { $0 + 1 } ?? 0
            let entity = journal.first { !$0.migrations.isEmpty }?.migrations.first?.entity ?? ""
            #expect(throws: JournalMergeFailure.migratedStore(line: line, entity: entity)) {
                try JournalMerge.merge(ConflictedJournal(transactions: journal), base: JournalMergeBase())
            }
        }
        #expect(JournalMergeFailure.migratedStore(line: 2, entity: "Trip").description.contains("a migrated store cannot be merged yet"))
        // The diff3 ancestor section counts too.
        let lines = try [
            [UInt8]("<<<<<<< ours".utf8), transaction(1, "ours").encodedLine().dropLast().map { $0 },
            [UInt8]("||||||| base".utf8), transaction(1, "base", migrations: [Self.tripMigration]).encodedLine().dropLast().map { $0 },
            [UInt8]("=======".utf8), transaction(1, "theirs").encodedLine().dropLast().map { $0 }, [UInt8](">>>>>>> theirs".utf8),
        ]
        #expect(throws: JournalMergeFailure.migratedStore(line: 4, entity: "Trip")) {
            try JournalMerge.merge(ConflictedJournal(lines: lines), base: JournalMergeBase())
        }
    }
}
