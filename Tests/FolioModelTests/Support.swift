import Foundation
import Folio

/// A fresh store directory under the temporary directory, removed by `cleanUp()`.
struct TemporaryStore {
    let url: URL

    init(_ name: String = #function) {
        let safe = name.filter { $0.isLetter || $0.isNumber }
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("folio-tests-\(safe)-\(UUID().uuidString)", isDirectory: true)
    }

    func container(_ types: any PersistentModel.Type...) throws -> ModelContainer {
        try ModelContainer(for: Schema(types), configurations: [ModelConfiguration(url: url)])
    }

    func cleanUp() {
        try? FileManager.default.removeItem(at: url)
    }
}

var recipeTypes: [any PersistentModel.Type] { [Recipe.self, BakedGood.self, Beverage.self, Ingredient.self, Cookbook.self] }
