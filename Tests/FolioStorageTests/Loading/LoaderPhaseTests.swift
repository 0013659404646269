import Foundation
import Testing
@testable import FolioStorage

/// Each phase of ``StoreLoader`` run alone, on files written for it.
@Suite("The loader's phases, each alone")
struct LoaderPhaseTests {
    static let configuration = StoreConfiguration(compactionThreshold: nil)

    static func context(_ url: URL, configuration: StoreConfiguration = configuration) -> LoadContext {
        LoadContext(paths: StorePaths(directory: url.path), configuration: configuration, checkingBlobReferences: false, unsafePaths: [])
    }

    static func transaction(
        _ sequence: UInt64, inserted: [StoredRecord] = [], updated: [StoredRecord] = [], deleted: [DeletedRecord] = [], nextID: Int64
    ) -> JournalTransaction {
        JournalTransaction(
            sequence: sequence, transactionID: "T\(sequence)", timestamp: Date(timeIntervalSince1970: 1_700_000_000), author: nil,
            inserted: inserted, updated: updated, deleted: deleted, nextID: nextID)
    }

    static func writeLines(_ transactions: [JournalTransaction], to url: URL) throws {
        try writeBytes(try transactions.flatMap { try $0.encodedLine() }, to: url)
    }

    /// Every record of a state, in number order, for comparisons.
    static func records(_ state: StoreState) -> [StoredRecord] {
        var result: [StoredRecord] = []
        state.forEachRecord { id, entity, values in result.append(StoredRecord(entity: entity, id: id, values: values)) }
        return result
    }

    // MARK: Manifest

    @Test func theManifestPhaseRefusesAManifestThatIsNotJSONNamingTheFile() throws {
        try withTemporaryDirectory { url in
            try writeBytes(Array("{\"format\":\"folio-store\",".utf8) + [0x0A], to: url.appending("manifest.json"))
            let error = #expect(throws: StorageError.self) {
                _ = try ManifestPhase.read(Self.context(url), report: { Issue.record("reported \($0)") })
            }
            #expect(error?.code == .invalidJSON)
            #expect(error?.file == url.appending("manifest.json").path)
            #expect(error?.line == 1)
        }
    }

    @Test func theManifestPhaseRefusesANewerFormatWhateverReportDoes() throws {
        try withTemporaryDirectory { url in
            var manifest = Manifest()
            manifest.version = Manifest.currentVersion + 1
            try writeBytes(try manifest.encoded(), to: url.appending("manifest.json"))
            let error = #expect(throws: StorageError.self) { _ = try ManifestPhase.read(Self.context(url), report: { _ in }) }
            #expect(error?.code == .newerFormatVersion)
            #expect(error?.file == url.appending("manifest.json").path)
        }
    }

    @Test func aMissingManifestBesideAJournalIsReportedAndAnEmptyFolderIsNot() throws {
        try withTemporaryDirectory { url in
            var reported: [StorageError] = []
            #expect(try ManifestPhase.read(Self.context(url), report: { reported.append($0) }) == nil)
            #expect(reported.isEmpty)
            try Self.writeLines([Self.transaction(1, nextID: 1)], to: url.appending("journal.jsonl"))
            #expect(try ManifestPhase.read(Self.context(url), report: { reported.append($0) }) == nil)
            #expect(reported.map(\.code) == [.missingManifest])
            #expect(reported.first?.file == url.appending("manifest.json").path)
            #expect(reported.first?.message.contains("journal.jsonl") == true)
        }
    }

    @Test func theManifestStartsTheStateAtItsSequenceCounterAndSchema() throws {
        try withTemporaryDirectory { url in
            var manifest = Manifest()
            manifest.sequence = 7
            manifest.counters.note(42)
            manifest.schema = .string("v3")
            try writeBytes(try manifest.encoded(), to: url.appending("manifest.json"))
            let read = try #require(try ManifestPhase.read(Self.context(url), report: { throw $0 }))
            let state = ManifestPhase.initialState(read)
            #expect(state.lastSequence == 7 && state.nextID == 42 && state.schema == .string("v3"))
            #expect(state.recordCounts.isEmpty)
        }
    }

    // MARK: Snapshots

    @Test func theSnapshotPhaseReadsWhatACompactionWrote() throws {
        try withTemporaryDirectory { url in
            let store = try Store.open(at: url, configuration: Self.configuration)
            try writeSampleTransactions(store, count: 40)
            try store.compact()
            let expected = StoreContent(store).records
            store.close()
            let context = Self.context(url)
            let manifest = try #require(try ManifestPhase.read(context, report: { throw $0 }))
            var state = ManifestPhase.initialState(manifest)
            let snapshots = try SnapshotPhase.read(into: &state, context, report: { throw $0 })
            #expect(Self.records(state).sorted { $0.id < $1.id } == expected.sorted { $0.id < $1.id })
            #expect(Set(snapshots.bases.keys) == Set(state.recordCounts.keys))
            #expect(snapshots.bases.values.allSatisfy { $0 <= manifest.sequence })
            #expect(snapshots.sizes.keys.sorted() == snapshots.bases.keys.sorted())
            #expect(try #require(snapshots.highestID).id == expected.map(\.id).max())
        }
    }

    @Test func theSnapshotPhaseReportsARecordOutOfOrderByFileAndLineAndKeepsTheRest() throws {
        try withTemporaryDirectory { url in
            let store = try Store.open(at: url, configuration: Self.configuration)
            try store.write { tx in
                for id in Int64(1)...3 { try tx.insert(entity: "Item", id: id, values: ["n": .int(id)]) }
            }
            try store.compact()
            store.close()
            let path = url.appending("snapshots/Item.jsonl")
            var lines = try readBytes(path).split(separator: 0x0A, omittingEmptySubsequences: false).map(Array.init)
            lines.swapAt(2, 3)  // records 1, 3, 2
            try writeBytes(Array(lines.joined(separator: [0x0A])), to: path)
            let context = Self.context(url)
            let manifest = try #require(try ManifestPhase.read(context, report: { throw $0 }))
            var state = ManifestPhase.initialState(manifest)
            var reported: [StorageError] = []
            _ = try SnapshotPhase.read(into: &state, context, report: { reported.append($0) })
            #expect(reported.map(\.code) == [.inconsistentStore])
            #expect(reported.first?.file == path.path && reported.first?.line == 4)
            #expect(state.count(of: "Item") == 2 && state.record(id: 2) == nil)
        }
    }

    // MARK: History

    @Test func theHistoryPhaseReportsAGapNamingTheFileAndLine() throws {
        try withTemporaryDirectory { url in
            try Self.writeLines(
                [Self.transaction(1, nextID: 1), Self.transaction(2, nextID: 1), Self.transaction(5, nextID: 1)],
                to: url.appending("history.jsonl"))
            var reported: [StorageError] = []
            let read = try HistoryPhase.read(StorePaths(directory: url.path), configuration: Self.configuration, report: { reported.append($0) })
            #expect(read.map(\.sequence) == [1, 2, 5])
            #expect(reported.map(\.code) == [.missingSequence])
            #expect(reported.first?.file == url.appending("history.jsonl").path && reported.first?.line == 3)
        }
    }

    @Test func historyAndJournalCombineAscendingWithTheJournalsCopyOfASequenceInBoth() {
        let history = [Self.transaction(1, nextID: 1), Self.transaction(2, nextID: 1)]
        var journalTwo = Self.transaction(2, nextID: 9)
        journalTwo.author = "journal"
        let combined = HistoryPhase.combining(history: history, journal: [journalTwo, Self.transaction(3, nextID: 9)])
        #expect(combined.map(\.sequence) == [1, 2, 3])
        #expect(combined[1].author == "journal")
    }

    // MARK: Journal

    @Test func theJournalPhaseReplaysLinesOntoAGivenState() throws {
        try withTemporaryDirectory { url in
            var manifest = Manifest()
            manifest.sequence = 1
            var state = ManifestPhase.initialState(manifest)
            _ = state.insert(id: 1, entity: state.position(ofEntity: "Item"), values: ["n": .int(1)])
            try Self.writeLines(
                [
                    Self.transaction(2, inserted: [StoredRecord(entity: "Item", id: 2, values: ["n": .int(2)])], nextID: 3),
                    Self.transaction(3, updated: [StoredRecord(entity: "Item", id: 1, values: ["n": .int(10)])], nextID: 3),
                    Self.transaction(4, deleted: [DeletedRecord(entity: "Item", id: 2)], nextID: 3),
                ], to: url.appending("journal.jsonl"))
            let journal = try JournalPhase.replay(onto: &state, manifest: manifest, bases: ["Item": 1], Self.context(url), report: { throw $0 })
            #expect(Self.records(state) == [StoredRecord(entity: "Item", id: 1, values: ["n": .int(10)])])
            #expect(state.lastSequence == 4 && state.nextID == 3 && state.lastModified["Item"] == 4)
            #expect(journal.transactions.map(\.sequence) == [2, 3, 4])
            #expect(journal.lineCount == 3 && journal.tailLength == 0 && journal.status != nil)
            #expect(journal.validEnd == Int64(try readBytes(url.appending("journal.jsonl")).count))
        }
    }

    @Test func theJournalPhaseLeavesAnEntityAloneUpToItsSnapshotsBase() throws {
        try withTemporaryDirectory { url in
            var manifest = Manifest()
            manifest.sequence = 2
            var state = ManifestPhase.initialState(manifest)
            _ = state.insert(id: 1, entity: state.position(ofEntity: "Item"), values: ["n": .int(2)])
            // An interrupted compaction left lines 1 and 2, which the snapshot already holds.
            try Self.writeLines(
                [
                    Self.transaction(1, inserted: [StoredRecord(entity: "Item", id: 1, values: ["n": .int(1)])], nextID: 2),
                    Self.transaction(2, updated: [StoredRecord(entity: "Item", id: 1, values: ["n": .int(2)])], nextID: 2),
                    Self.transaction(3, updated: [StoredRecord(entity: "Item", id: 1, values: ["n": .int(3)])], nextID: 2),
                ], to: url.appending("journal.jsonl"))
            let journal = try JournalPhase.replay(onto: &state, manifest: manifest, bases: ["Item": 2], Self.context(url), report: { throw $0 })
            #expect(Self.records(state) == [StoredRecord(entity: "Item", id: 1, values: ["n": .int(3)])])
            #expect(journal.transactions.map(\.sequence) == [1, 2, 3])
        }
    }

    @Test func theJournalPhaseSkipsALineWhoseSequenceDoesNotRiseAndNamesIt() throws {
        try withTemporaryDirectory { url in
            var state = StoreState()
            try Self.writeLines(
                [
                    Self.transaction(1, inserted: [StoredRecord(entity: "Item", id: 1, values: ["n": .int(1)])], nextID: 2),
                    Self.transaction(1, inserted: [StoredRecord(entity: "Item", id: 5, values: ["n": .int(5)])], nextID: 6),
                ], to: url.appending("journal.jsonl"))
            var reported: [StorageError] = []
            let journal = try JournalPhase.replay(
                onto: &state, manifest: Manifest(), bases: [:], Self.context(url), report: { reported.append($0) })
            #expect(reported.map(\.code) == [.duplicateSequence])
            #expect(reported.first?.file == url.appending("journal.jsonl").path && reported.first?.line == 2)
            #expect(journal.transactions.map(\.sequence) == [1])
            #expect(state.record(id: 5) == nil && state.count(of: "Item") == 1)
        }
    }

    @Test func theJournalPhaseWarnsOfATornLastLineAndStopsBeforeIt() throws {
        try withTemporaryDirectory { url in
            var state = StoreState()
            let line = try Self.transaction(1, inserted: [StoredRecord(entity: "Item", id: 1, values: ["n": .int(1)])], nextID: 2).encodedLine()
            try writeBytes(line + Array("{\"seq\":2,".utf8), to: url.appending("journal.jsonl"))
            let journal = try JournalPhase.replay(onto: &state, manifest: Manifest(), bases: [:], Self.context(url), report: { throw $0 })
            #expect(journal.validEnd == Int64(line.count) && journal.tailLength == 9 && journal.lineCount == 1)
            #expect(journal.warnings.count == 1 && journal.warnings[0].contains("incomplete last line"))
            #expect(state.lastSequence == 1)
        }
    }

    // MARK: Merge mend

    @Test func theMergeMendLeavesALoadWhoseManifestAsksForNoMendAsItIs() throws {
        try withTemporaryDirectory { url in
            try CrossFileReconciliationTests.makeMergedStore(at: url)
            try CrossFileReconciliationTests.mark(url, reconcile: false)
            let paths = StorePaths(directory: url.path)
            var loaded = try StoreLoader.load(paths, configuration: Self.configuration, report: { throw $0 })
            let before = Self.records(loaded.state)
            try loaded.mendMerge(paths, configuration: Self.configuration, historyFileRead: true, report: { throw $0 })
            #expect(Self.records(loaded.state) == before)
            #expect(!loaded.mend.isPending && loaded.mend.note == nil && loaded.warnings.isEmpty)
        }
    }

    @Test func theMergeMendLeavesAWritableLoadPendingAndMendsAReadOnlyOneInMemory() throws {
        try withTemporaryDirectory { url in
            try CrossFileReconciliationTests.makeMergedStore(at: url)
            let paths = StorePaths(directory: url.path)
            let files = try directoryContents(url)
            let writable = try StoreLoader.load(paths, configuration: Self.configuration, report: { throw $0 })
            #expect(writable.mend.isPending && writable.mend.note == nil)
            #expect(writable.state.record(id: 22) != nil, "a writable load leaves the mend to Store.open's transaction")
            var readOnly = Self.configuration
            readOnly.readOnly = true
            var mended = writable
            try mended.mendMerge(paths, configuration: readOnly, historyFileRead: true, report: { throw $0 })
            #expect(mended.state.record(id: 22) == nil, "the second a@x became the first")
            #expect(mended.state.record(id: 20)?.values.dictionary["name"] == .string("Annie"))
            #expect(mended.mend.note != nil && mended.warnings == [mended.mend.note])
            #expect(try directoryContents(url) == files, "the mend writes nothing")
        }
    }
}
