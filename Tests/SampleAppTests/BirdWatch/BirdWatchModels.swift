import Foundation
import Folio

// The shapes of Apple's Backyard Birds sample: feeders with visits, each visit of one bird, the
// relationship set from both ends.

@Model
final class Feeder {
    @Attribute(.unique) var name: String
    var food: String
    @Relationship(deleteRule: .cascade, inverse: \FeederVisit.feeder)
    var visits: [FeederVisit] = []

    init(name: String, food: String) {
        self.name = name
        self.food = food
    }
}

@Model
final class Bird {
    var species: String
    var visits: [FeederVisit] = []

    init(species: String) {
        self.species = species
    }
}

@Model
final class FeederVisit {
    var start: Date
    var duration: TimeInterval
    var feeder: Feeder?
    @Relationship(inverse: \Bird.visits) var bird: Bird?

    init(start: Date, duration: TimeInterval) {
        self.start = start
        self.duration = duration
    }
}
