import Foundation
import Testing
@testable import Folio

/// Contexts of one container used on different threads at once, as `ModelActor`s use them.
@Suite("Contexts on several threads")
struct ConcurrentContextTests {
    /// One thread saves batches while another fetches, reads and groups models: the index the two
    /// share is only read under the container's lock, so neither sees it half-changed.
    @Test func fetchingWhileAnotherThreadSavesSeesWholeSaves() throws {
        let container = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let batches = 60
        let perBatch = 200
        let finished = Flag()
        let writer = Thread {
            let context = ModelContext(container)
            for batch in 0..<batches {
                for index in 0..<perBatch {
                    context.insert(
                        Trip(
                            name: "T\(batch)-\(index)", destination: "City\(index % 7)",
                            startDate: Date(timeIntervalSince1970: Double(index)), price: Double(index)))
                }
                try? context.save()
            }
            finished.set()
        }
        writer.start()
        let reader = ModelContext(container)
        var rounds = 0
        repeat {
            let trips = try reader.fetch(FetchDescriptor<Trip>())
            // Saves are whole: the reader sees a multiple of a batch, never part of one.
            #expect(trips.count % perBatch == 0)
            #expect(trips.allSatisfy { $0.name.hasPrefix("T") })
            let sections = try reader.fetch(FetchDescriptor<Trip>(), sectionBy: \.destination)
            #expect(sections.reduce(0) { $0 + $1.count } % perBatch == 0)
            _ = try reader.fetchIdentifiers(FetchDescriptor<Trip>(predicate: #Predicate { $0.price < 10 }))
            _ = try reader.sum(\Trip.price)
            rounds += 1
        } while !finished.value
        #expect(try reader.fetchCount(FetchDescriptor<Trip>()) == batches * perBatch)
        #expect(rounds > 0)
    }
}
