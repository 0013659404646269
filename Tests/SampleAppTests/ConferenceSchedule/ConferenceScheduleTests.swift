import Foundation
import Testing
import Folio
import FolioStorage

@Suite("Sample app: conference schedule (let identifiers, T! properties)")
struct ConferenceScheduleTests {
    static var types: [any PersistentModel.Type] { [Session.self, ConferenceTrack.self, Speaker.self] }
    static let day = Date(timeIntervalSinceReferenceDate: 800_000_000)

    /// Writes a small schedule: two tracks, three sessions, two speakers.
    static func writeSchedule(to store: SampleStore) throws -> UUID {
        let context = ModelContext(try ModelContainer(for: Schema(types), configurations: [ModelConfiguration(url: store.url)]))
        let swift = ConferenceTrack(slug: "swift", name: "Swift")
        let data = ConferenceTrack(slug: "data", name: "Data")
        let ada = Speaker(handle: "@ada", name: "Ada")
        let lin = Speaker(handle: "@lin", name: "Lin")
        let keynote = Session(code: "K1", title: "Keynote", start: day)
        let macros = Session(code: "S2", title: "Macros without swift-syntax", start: day.addingTimeInterval(3600))
        let files = Session(code: "D1", title: "Plain files", start: day.addingTimeInterval(7200))
        for session in [keynote, macros, files] { context.insert(session) }
        keynote.track = swift
        keynote.room = "Hall A"
        macros.track = swift
        macros.room = "Room 2"
        files.track = data
        keynote.speakers = [ada, lin]
        files.speakers = [lin]
        try context.save()
        return macros.id
    }

    @Test func letIdentifiersAreStoredAndReadBackAfterReopening() throws {
        let store = SampleStore()
        defer { store.cleanUp() }
        let macrosID = try Self.writeSchedule(to: store)
        let context = ModelContext(try ModelContainer(for: Schema(Self.types), configurations: [ModelConfiguration(url: store.url)]))
        let sessions = try context.fetch(FetchDescriptor<Session>(sortBy: [SortDescriptor(\.start)]))
        #expect(sessions.map(\.code) == ["K1", "S2", "D1"])
        #expect(sessions[1].id == macrosID)
        let byID = try context.fetch(FetchDescriptor<Session>(predicate: #Predicate { $0.id == macrosID }))
        #expect(byID.map(\.title) == ["Macros without swift-syntax"])
        let byCode = try context.fetch(FetchDescriptor<Session>(predicate: #Predicate { $0.code == "D1" }))
        #expect(byCode.map(\.title) == ["Plain files"])
        #expect(try context.fetch(FetchDescriptor<ConferenceTrack>(sortBy: [SortDescriptor(\.slug)])).map(\.slug) == ["data", "swift"])
    }

    @Test func implicitlyUnwrappedOptionalsReadAsSetOrAsNil() throws {
        let store = SampleStore()
        defer { store.cleanUp() }
        _ = try Self.writeSchedule(to: store)
        let context = ModelContext(try ModelContainer(for: Schema(Self.types), configurations: [ModelConfiguration(url: store.url)]))
        let keynote = try #require(try context.fetch(FetchDescriptor<Session>(predicate: #Predicate { $0.code == "K1" })).first)
        #expect(keynote.room == "Hall A")
        #expect(keynote.track.name == "Swift", "an implicitly unwrapped relationship reads without '?'")
        let files = try #require(try context.fetch(FetchDescriptor<Session>(predicate: #Predicate { $0.code == "D1" })).first)
        #expect(files.room == nil)
        #expect(files.track.slug == "data")
        let swiftTrack = try #require(try context.fetch(FetchDescriptor<ConferenceTrack>(predicate: #Predicate { $0.slug == "swift" })).first)
        #expect(swiftTrack.sessions.map(\.code).sorted() == ["K1", "S2"])
        #expect(try context.fetchCount(FetchDescriptor<Session>(predicate: #Predicate { $0.room == nil })) == 1)
        let lin = try #require(try context.fetch(FetchDescriptor<Speaker>(predicate: #Predicate { $0.handle == "@lin" })).first)
        #expect(lin.sessions.map(\.code).sorted() == ["D1", "K1"])
    }

    @Test func deletingATrackCascadesToItsSessions() throws {
        let store = SampleStore()
        defer { store.cleanUp() }
        _ = try Self.writeSchedule(to: store)
        let context = ModelContext(try ModelContainer(for: Schema(Self.types), configurations: [ModelConfiguration(url: store.url)]))
        try context.delete(model: ConferenceTrack.self, where: #Predicate { $0.slug == "swift" })
        try context.save()
        #expect(try context.fetch(FetchDescriptor<Session>()).map(\.code) == ["D1"])
    }

    @Test func aRecordWhoseLetValueDoesNotDecodeFailsTheFetchWithATypedError() throws {
        let store = SampleStore()
        defer { store.cleanUp() }
        do {
            let context = ModelContext(try ModelContainer(for: Schema(Self.types), configurations: [ModelConfiguration(url: store.url)]))
            context.insert(ConferenceTrack(slug: "swift", name: "Swift"))
            try context.save()
        }
        // Another program, writing the store through the engine, stored a number as the identifier.
        let engine = try Store.open(at: store.url)
        _ = try engine.write { transaction in
            for record in transaction.records(of: "ConferenceTrack") {
                try transaction.update(entity: "ConferenceTrack", id: record.id, values: ["slug": .int(12)])
            }
        }
        engine.close()
        let context = ModelContext(try ModelContainer(for: Schema(Self.types), configurations: [ModelConfiguration(url: store.url)]))
        #expect {
            _ = try context.fetch(FetchDescriptor<ConferenceTrack>())
        } throws: { error in
            guard let error = error as? FolioError else { return false }
            return error.code == .modelCoding && "\(error)".contains("slug")
        }
    }
}
