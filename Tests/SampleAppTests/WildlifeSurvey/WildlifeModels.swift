import Foundation
import Folio

// A model set written the way CloudKit-ready SwiftData apps must write it: every relationship
// optional, to-many relationships as optional arrays with an empty default, every attribute with a
// default.

@Model
final class Habitat {
    var name: String = ""
    var area: Double = 0
    @Relationship(deleteRule: .cascade, inverse: \Animal.habitat) var animals: [Animal]? = []
    @Relationship(deleteRule: .nullify, maximumModelCount: 3) var rangers: [Ranger]? = []

    init(name: String, area: Double) {
        self.name = name
        self.area = area
    }
}

@Model
final class Animal {
    var name: String = ""
    var species: String = ""
    var habitat: Habitat?
    @Relationship(inverse: \Sighting.animal) var sightings: [Sighting]? = []

    init(name: String, species: String) {
        self.name = name
        self.species = species
    }
}

@Model
final class Sighting {
    var date: Date = Date(timeIntervalSinceReferenceDate: 0)
    var animal: Animal?

    init(date: Date) {
        self.date = date
    }
}

/// A group the survey counts only from two animals up.
@Model
final class Herd {
    var label: String = ""
    @Relationship(minimumModelCount: 2) var members: [Animal]? = []

    init(label: String) {
        self.label = label
    }
}

@Model
final class Ranger {
    var name: String = ""
    @Relationship(inverse: \Habitat.rangers) var habitats: [Habitat]? = []

    init(name: String) {
        self.name = name
    }
}
