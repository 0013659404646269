import Folio

// The inheritance sample: written exactly as for SwiftData, with `import Folio`.

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
    @Transient var isExpanded = false

    var displayName: String { name.capitalized }

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
    @Attribute(originalName: "name") var title: String
    @Relationship(inverse: \Recipe.cookbook) var recipes: [Recipe] = []

    init(title: String) {
        self.title = title
    }
}
