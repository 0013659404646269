import Foundation
import Testing
import Folio

@Suite("Sample app: city tours (#Unique across an inheritance tree)")
struct CityToursTests {
    static var types: [any PersistentModel.Type] { [TourBooking.self, GuidedTourBooking.self] }

    @Test func insertingAParentWhoseUniqueKeyMatchesAStoredSubclassUpdatesThatRecord() throws {
        let store = SampleStore()
        defer { store.cleanUp() }
        do {
            let context = ModelContext(try ModelContainer(for: Schema(Self.types), configurations: [ModelConfiguration(url: store.url)]))
            context.insert(GuidedTourBooking(code: "B-7", guest: "Mara", guide: "Teo"))
            try context.save()
            let rebooked = TourBooking(code: "B-7", guest: "Mara Lind", people: 3)
            context.insert(rebooked)
            try context.save()
            #expect(rebooked.persistentModelID.isTemporary == false, "the inserted model identifies the record it updated")
        }
        let context = ModelContext(try ModelContainer(for: Schema(Self.types), configurations: [ModelConfiguration(url: store.url)]))
        let bookings = try context.fetch(FetchDescriptor<TourBooking>())
        #expect(bookings.count == 1)
        let booking = try #require(bookings.first as? GuidedTourBooking, "the record keeps its class")
        #expect(booking.guest == "Mara Lind")
        #expect(booking.people == 3)
        #expect(booking.guide == "Teo", "the subclass's own values are kept")
    }

    @Test func insertingASubclassWhoseUniqueKeyMatchesAStoredParentIsRefusedWithWhatToDo() throws {
        let container = try ModelContainer(for: Schema(Self.types), configurations: [ModelConfiguration(isStoredInMemoryOnly: true)])
        let context = ModelContext(container)
        context.insert(TourBooking(code: "C-1", guest: "Ines"))
        try context.save()
        context.insert(GuidedTourBooking(code: "C-1", guest: "Ines", guide: "Ola"))
        #expect {
            try context.save()
        } throws: { error in
            guard let error = error as? FolioError else { return false }
            return error.code == .invalidModel && error.message.contains("GuidedTourBooking") && error.message.contains("delete it first")
        }
        #expect(try ModelContext(container).fetch(FetchDescriptor<TourBooking>()).map(\.guest) == ["Ines"], "nothing was saved")
    }

    @Test func sortingInsideACodableAttributeOfASubclassThrowsNamingTheKeyPath() throws {
        let container = try ModelContainer(for: Schema(Self.types), configurations: [ModelConfiguration(isStoredInMemoryOnly: true)])
        let context = ModelContext(container)
        context.insert(GuidedTourBooking(code: "D-1", guest: "Kai", guide: "Noor"))
        try context.save()
        for fetch in [
            { _ = try context.fetch(FetchDescriptor<GuidedTourBooking>(sortBy: [SortDescriptor(\GuidedTourBooking.meetingPoint?.rawValue)])) },
            { _ = try context.fetch(FetchDescriptor<TourBooking>(sortBy: [SortDescriptor(\TourBooking.meetingPoint?.rawValue)])) },
        ] as [() throws -> Void] {
            #expect {
                try fetch()
            } throws: { error in
                guard let error = error as? FolioError else { return false }
                return error.code == .invalidFetchDescriptor && error.message.contains("'\\.meetingPoint?.rawValue'")
            }
        }
        // The whole value compared with nil is allowed.
        #expect(try context.fetchCount(FetchDescriptor<GuidedTourBooking>(predicate: #Predicate { $0.meetingPoint == nil })) == 1)
    }
}
