import Foundation
import Folio

// A background importer in the shape SwiftData apps use: a model actor that inserts a feed's
// entries off the main actor and hands back identifiers, which are Sendable, for the UI's context.

@Model
final class Quake {
    @Attribute(.unique) var code: String
    var magnitude: Double
    var place: String
    var time: Date

    init(code: String, magnitude: Double, place: String, time: Date) {
        self.code = code
        self.magnitude = magnitude
        self.place = place
        self.time = time
    }
}

/// One entry of the feed, as the network layer decodes it: a plain Sendable value.
struct QuakeEntry: Sendable {
    var code: String
    var magnitude: Double
    var place: String
    var time: Date
}

@ModelActor
actor QuakeImporter {
    /// Inserts (or, for a known code, updates) every entry and saves once; returns the identifiers.
    func importEntries(_ entries: [QuakeEntry]) throws -> [PersistentIdentifier] {
        let quakes = entries.map { Quake(code: $0.code, magnitude: $0.magnitude, place: $0.place, time: $0.time) }
        for quake in quakes { modelContext.insert(quake) }
        try modelContext.save()
        return quakes.map(\.persistentModelID)
    }

    /// The strongest stored quake's place, read on the actor.
    func strongestPlace() throws -> String? {
        var descriptor = FetchDescriptor<Quake>(sortBy: [SortDescriptor(\.magnitude, order: .reverse)])
        descriptor.fetchLimit = 1
        return try modelContext.fetch(descriptor).first?.place
    }

    /// The magnitude of the quake with this identifier, looked up through the actor's subscript.
    func magnitude(of identifier: PersistentIdentifier) -> Double? {
        self[identifier, as: Quake.self]?.magnitude
    }
}

/// A model actor with its own initializer, as apps write one to take extra settings.
@ModelActor
actor QuakePruner {
    let threshold: Double

    init(container: ModelContainer, threshold: Double) {
        self.modelContainer = container
        self.modelExecutor = DefaultSerialModelExecutor(modelContext: ModelContext(container))
        self.threshold = threshold
    }

    /// Deletes every quake weaker than the threshold; returns how many.
    func prune() throws -> Int {
        let threshold = threshold
        let weak = try modelContext.fetch(FetchDescriptor<Quake>(predicate: #Predicate { $0.magnitude < threshold }))
        for quake in weak { modelContext.delete(quake) }
        try modelContext.save()
        return weak.count
    }
}
