import Folio
import Foundation

/// Reads `SampleData/*.jsonl` (see SampleData/README.md) into the demo's models.
struct SampleDataLoader {
    struct CookbookLine: Decodable {
        var key: String
        var title: String
    }

    struct IngredientLine: Decodable {
        var name: String
        var amount: Double
        var unit: String
    }

    struct RecipeLine: Decodable {
        var kind: String
        var name: String
        var summary: String?
        var servings: Int
        var createdAt: String
        var cookbook: String?
        var ingredients: [IngredientLine]
        var ovenTemperature: Int?
        var glutenFree: Bool?
        var caffeine: Double?
        var isAlcoholic: Bool?
    }

    struct TripLine: Decodable {
        var name: String
        var destination: String
        var startDate: String
        var price: Double
        var nights: Int
        var notes: String?
        var mapItem: String?
    }

    let directory: URL

    /// Finds `SampleData/`: the given directory, else `./SampleData`, else beside a folder above the
    /// executable (so `swift run folio demo` and the tests find the package's copy).
    static func locate(_ given: String?) throws -> SampleDataLoader {
        let manager = FileManager.default
        func valid(_ url: URL) -> Bool { manager.fileExists(atPath: url.appendingPathComponent("trips.jsonl").path) }
        if let given {
            let url = URL(fileURLWithPath: given, isDirectory: true)
            guard valid(url) else {
                throw CommandFailure(
                    "'\(given)' holds no sample data (trips.jsonl, recipes.jsonl, cookbooks.jsonl).",
                    help: "Give the package's SampleData directory.")
            }
            return SampleDataLoader(directory: url)
        }
        var candidates = [URL(fileURLWithPath: manager.currentDirectoryPath).appendingPathComponent("SampleData")]
        var folder = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        for _ in 0..<6 {
            candidates.append(folder.appendingPathComponent("SampleData"))
            folder = folder.deletingLastPathComponent()
        }
        guard let found = candidates.first(where: valid) else {
            throw CommandFailure(
                "Cannot find the SampleData directory.",
                help: "Run 'swift run folio demo' from the package directory, or pass --sample-data DIR.")
        }
        return SampleDataLoader(directory: found)
    }

    func lines<T: Decodable>(_ name: String, as type: T.Type) throws -> [T] {
        let url = directory.appendingPathComponent(name)
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw CommandFailure("Cannot read \(url.path).", help: "Regenerate it with 'python3 SampleData/generate.py'.")
        }
        let decoder = JSONDecoder()
        var result: [T] = []
        var number = 0
        for line in data.split(separator: 0x0A) where !line.isEmpty {
            number += 1
            do { result.append(try decoder.decode(T.self, from: Data(line))) } catch {
                throw CommandFailure(
                    "\(url.path):\(number) is not a valid \(T.self): \(error)",
                    help: "Regenerate it with 'python3 SampleData/generate.py'.")
            }
        }
        return result
    }

    static func date(_ text: String) throws -> Date {
        guard let date = DateText.parse(text) else { throw CommandFailure("'\(text)' is not a date like 2026-03-01T09:30:00Z.") }
        return date
    }

    /// Inserts the cookbooks, recipes (with their ingredients) into a context; returns the counts.
    func insertRecipes(into context: ModelContext) throws -> (cookbooks: Int, recipes: Int, ingredients: Int) {
        var cookbooks: [String: Cookbook] = [:]
        for line in try lines("cookbooks.jsonl", as: CookbookLine.self) {
            let cookbook = Cookbook(title: line.title)
            context.insert(cookbook)
            cookbooks[line.key] = cookbook
        }
        var ingredientCount = 0
        let recipeLines = try lines("recipes.jsonl", as: RecipeLine.self)
        for line in recipeLines {
            let recipe: Recipe
            switch line.kind {
            case "BakedGood":
                recipe = BakedGood(name: line.name, ovenTemperature: line.ovenTemperature ?? 180, glutenFree: line.glutenFree ?? false)
            case "Beverage":
                let beverage = Beverage(name: line.name, caffeine: line.caffeine ?? 0)
                beverage.isAlcoholic = line.isAlcoholic ?? false
                recipe = beverage
            default:
                recipe = Recipe(name: line.name)
            }
            recipe.summary = line.summary
            recipe.servings = line.servings
            recipe.createdAt = try Self.date(line.createdAt)
            context.insert(recipe)
            recipe.cookbook = line.cookbook.flatMap { cookbooks[$0] }
            for item in line.ingredients {
                let ingredient = Ingredient(name: item.name, amount: item.amount, unit: Ingredient.Unit(rawValue: item.unit) ?? .gram)
                context.insert(ingredient)
                ingredient.recipe = recipe
                ingredientCount += 1
            }
        }
        return (cookbooks.count, recipeLines.count, ingredientCount)
    }

    /// Inserts the trips into a context; returns how many.
    func insertTrips(into context: ModelContext) throws -> Int {
        let tripLines = try lines("trips.jsonl", as: TripLine.self)
        for line in tripLines {
            let trip = Trip(
                name: line.name, destination: line.destination, startDate: try Self.date(line.startDate), price: line.price,
                nights: line.nights, mapItem: line.mapItem.map { MapItemIdentifier(rawValue: $0) })
            trip.notes = line.notes
            context.insert(trip)
        }
        return tripLines.count
    }
}
