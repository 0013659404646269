import Folio

// The demo's models: written exactly as for SwiftData, with `import Folio`.
// The same shapes as Folio's model tests (Recipe → BakedGood / Beverage inheritance, Trip with an index and a
// `.codable` attribute).

@Model
class Recipe {
    #Index<Recipe>([\.name], [\.createdAt, \.servings])
    #Unique<Recipe>([\.name])

    @Attribute(.unique) var name: String
    var summary: String?
    var servings: Int = 2
    var createdAt: Date = Date(timeIntervalSince1970: 0)
    @Relationship(deleteRule: .cascade, inverse: \Ingredient.recipe) var ingredients: [Ingredient] = []
    var cookbook: Cookbook?

    init(name: String, summary: String? = nil) {
        self.name = name
        self.summary = summary
    }
}

@Model
class BakedGood: Recipe {
    var ovenTemperature: Int = 180
    var glutenFree: Bool

    init(name: String, ovenTemperature: Int, glutenFree: Bool = false) {
        self.ovenTemperature = ovenTemperature
        self.glutenFree = glutenFree
        super.init(name: name)
    }
}

@Model
final class Beverage: Recipe {
    var caffeine: Double = 0
    var isAlcoholic = false

    init(name: String, caffeine: Double) {
        self.caffeine = caffeine
        super.init(name: name)
    }
}

@Model
final class Ingredient {
    var name: String
    var amount: Double
    var unit: Unit = Unit.gram
    var recipe: Recipe?

    enum Unit: String, Codable, CaseIterable {
        case gram, milliliter, piece
    }

    init(name: String, amount: Double, unit: Unit = .gram) {
        self.name = name
        self.amount = amount
        self.unit = unit
    }
}

@Model
final class Cookbook {
    var title: String
    @Relationship(inverse: \Recipe.cookbook) var recipes: [Recipe] = []

    init(title: String) {
        self.title = title
    }
}

/// A value owned by another library (think MapKit's `MKMapItem.Identifier`), stored as an opaque value.
struct MapItemIdentifier: Codable, Hashable, CustomStringConvertible {
    var rawValue: String
    var description: String { rawValue }
}

@Model
final class Trip {
    #Index<Trip>([\.destination], [\.startDate])

    var name: String
    var destination: String
    var startDate: Date
    var price: Double
    var nights: Int = 1
    var notes: String?
    @Attribute(.codable) var mapItem: MapItemIdentifier?

    init(
        name: String, destination: String, startDate: Date, price: Double, nights: Int = 1,
        mapItem: MapItemIdentifier? = nil
    ) {
        self.name = name
        self.destination = destination
        self.startDate = startDate
        self.price = price
        self.nights = nights
        self.mapItem = mapItem
    }
}

/// Every model type of the demo.
// Sendable: an immutable list of metatypes, which are never changed.
nonisolated(unsafe) let demoModelTypes: [any PersistentModel.Type] = [
    Recipe.self, BakedGood.self, Beverage.self, Ingredient.self, Cookbook.self, Trip.self,
]
