import Foundation
import Testing
@testable import Folio

@Model
final class Ticket {
    @Attribute(.preserveValueOnDeletion) var code: String
    var seat: Int
    var holder: String?
    init(code: String, seat: Int) {
        self.code = code
        self.seat = seat
    }
}

@Suite("Persistent history")
struct HistoryTests {
    @Test func historyRecordsInsertsUpdatesWithValuesAndDeletesWithTombstones() throws {
        let container = try ModelContainer(for: Ticket.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        context.author = "App"
        let ticket = Ticket(code: "A1", seat: 3)
        context.insert(ticket)
        try context.save()
        ticket.seat = 4
        try context.save()
        context.delete(ticket)
        try context.save()

        let history = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        #expect(history.count >= 3)
        let last3 = Array(history.suffix(3))
        #expect(last3.allSatisfy { $0.author == "App" })
        #expect(last3.map(\.token.sequence) == last3.map(\.token.sequence).sorted())
        guard case .insert(let insert)? = last3[0].changes.first, let typedInsert = insert as? DefaultHistoryInsert<Ticket> else {
            Issue.record("expected an insert"); return
        }
        #expect(typedInsert.values.value(for: \.code) == "A1")
        guard case .update(let update)? = last3[1].changes.first, let typedUpdate = update as? DefaultHistoryUpdate<Ticket> else {
            Issue.record("expected an update"); return
        }
        #expect(typedUpdate.updatedAttributes.count == 1)
        #expect(typedUpdate.updatedAttributes.first.map { $0 == \Ticket.seat } == true)
        #expect(typedUpdate.changedValues.value(for: \.seat) == 4)
        guard case .delete(let delete)? = last3[2].changes.first, let typedDelete = delete as? DefaultHistoryDelete<Ticket> else {
            Issue.record("expected a delete"); return
        }
        #expect(typedDelete.tombstone[\Ticket.code] as? String == "A1")
        #expect(typedDelete.tombstone[\Ticket.seat] == nil)
        #expect(typedDelete.changedPersistentIdentifier == last3[0].changes.first?.changedPersistentIdentifier)
    }

    @Test func predicatesOnTokenAuthorAndTimestampSortAndLimit() throws {
        let container = try ModelContainer(for: Ticket.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let app = ModelContext(container)
        app.author = "App"
        let widget = ModelContext(container)
        widget.author = "Widget"
        for index in 0..<4 {
            let context = index % 2 == 0 ? app : widget
            context.insert(Ticket(code: "T\(index)", seat: index))
            try context.save()
        }
        let all = try app.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        let second = all[all.count - 3].token
        let after = try app.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token > second }))
        #expect(after.count == 2)
        let widgets = try app.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.author == "Widget" }))
        #expect(widgets.count == 2)
        var newest = HistoryDescriptor<DefaultHistoryTransaction>(sortBy: [SortDescriptor(\.transactionIdentifier, order: .reverse)])
        newest.fetchLimit = 1
        #expect(try app.fetchHistory(newest).first?.token == all.last?.token)
        let cutoff = Date.distantPast
        #expect(
            try app.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.timestamp > cutoff })).count == all.count)
    }

    @Test func compactionKeepsRetainedHistoryAndAnOlderTokenGetsHistoryExpired() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        var configuration = ModelConfiguration(url: store.url)
        configuration.historyRetention = ModelConfiguration.HistoryRetention(maximumCount: 3)
        let container = try ModelContainer(for: Ticket.self, configurations: configuration)
        let context = ModelContext(container)
        for index in 0..<6 {
            context.insert(Ticket(code: "C\(index)", seat: index))
            try context.save()
        }
        let early = try #require(try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).first?.token)
        try container.compact()
        let kept = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        #expect(kept.count == 3)
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Ticket>()) == 6)
        #expect {
            _ = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token > early }))
        } throws: { error in
            (error as? FolioError)?.code == .historyExpired
        }
        let recent = try #require(kept.first?.token)
        #expect(try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token > recent })).count == 2)
    }

    @Test func compactionDropsHistoryPastMaximumBytesAndAnOlderTokenGetsHistoryExpired() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        #expect(ModelConfiguration.HistoryRetention().maximumBytes == 64 << 20)
        var configuration = ModelConfiguration(url: store.url)
        configuration.historyRetention = ModelConfiguration.HistoryRetention(maximumCount: nil, maximumBytes: 4096)
        let container = try ModelContainer(for: Ticket.self, configurations: configuration)
        let context = ModelContext(container)
        for index in 0..<6 {
            // Each save's journal line is over 1,500 bytes: at most two fit in 4,096.
            context.insert(Ticket(code: String(repeating: "C", count: 1500) + "\(index)", seat: index))
            try context.save()
        }
        let early = try #require(try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).first?.token)
        try container.compact()
        let kept = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        #expect(kept.count == 2)
        let historySize = try #require(
            try FileManager.default.attributesOfItem(atPath: store.url.appendingPathComponent("history.jsonl").path)[.size] as? Int)
        #expect(historySize > 3000 && historySize <= 4096)
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Ticket>()) == 6)
        #expect {
            _ = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token > early }))
        } throws: { error in
            (error as? FolioError)?.code == .historyExpired
        }
        let recent = try #require(kept.first?.token)
        #expect(try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token > recent })).count == 1)
    }

    @Test func aTokenWhoseSequenceNowHoldsAnotherTransactionOrIsPastTheLastGetsHistoryExpired() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let container = try ModelContainer(for: Ticket.self, configurations: ModelConfiguration(url: store.url))
        let context = ModelContext(container)
        for index in 0..<2 {
            context.insert(Ticket(code: "C\(index)", seat: index))
            try context.save()
        }
        let all = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        let first = try #require(all.first?.token)
        #expect(first.journalIdentifier == all.first?.journalIdentifier)
        #expect(
            try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token > first })).count == all.count - 1)
        // What a token taken on another branch, before a merge numbered that branch's transactions anew, looks like.
        let renumbered = DefaultHistoryToken(storeIdentifier: first.storeIdentifier, sequence: first.sequence, journalIdentifier: UUID().uuidString)
        let ahead = DefaultHistoryToken(storeIdentifier: first.storeIdentifier, sequence: first.sequence + 5)
        for token in [renumbered, ahead] {
            #expect {
                _ = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token > token }))
            } throws: { error in
                (error as? FolioError)?.code == .historyExpired
            }
        }
    }

    @Test func aSyncConsumerPersistsItsTokenRestartsAndResumesWithoutMissingOrRepeating() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        var seen: [String] = []
        var savedToken: Data?
        func consume() throws {
            let context = ModelContext(try store.container(Ticket.self))
            var descriptor = HistoryDescriptor<DefaultHistoryTransaction>()
            if let savedToken {
                let token = try JSONDecoder().decode(DefaultHistoryToken.self, from: savedToken)
                descriptor.predicate = #Predicate { $0.token > token }
            }
            for transaction in try context.fetchHistory(descriptor) {
                for change in transaction.changes {
                    if case .insert(let insert) = change, let ticket = insert as? DefaultHistoryInsert<Ticket>,
                        let code = ticket.values.value(for: \.code)
                    {
                        seen.append(code)
                    }
                }
                savedToken = try JSONEncoder().encode(transaction.token)
            }
        }
        func produce(_ codes: [String]) throws {
            let context = ModelContext(try store.container(Ticket.self))
            for code in codes {
                context.insert(Ticket(code: code, seat: 0))
                try context.save()
            }
        }
        try produce(["a", "b"])
        try consume()
        try produce(["c"])
        try consume()
        try consume()
        try produce(["d", "e"])
        try consume()
        #expect(seen == ["a", "b", "c", "d", "e"])
    }

    @Test func deleteHistoryRemovesOldTransactionsButNotModels() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let container = try store.container(Ticket.self)
        let context = ModelContext(container)
        for index in 0..<4 {
            context.insert(Ticket(code: "D\(index)", seat: index))
            try context.save()
        }
        let all = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        let cut = all[all.count - 2].token
        try context.deleteHistory(HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token <= cut }))
        #expect(try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).count == 1)
        #expect(try context.fetchCount(FetchDescriptor<Ticket>()) == 4)
    }
}
