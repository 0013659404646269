import Testing
@testable import Folio

@Suite("Model declarations")
struct ModelDeclarationTests {
    @Test func entityNamesAreClassNames() {
        #expect(Recipe._folioEntityName == "Recipe")
        #expect(BakedGood._folioEntityName == "BakedGood")
        #expect(BakedGood._folioSuperclass == Recipe.self)
        #expect(Recipe._folioSuperclass == nil)
    }

    @Test func schemaMetadataListsPersistedProperties() {
        let names = Recipe.schemaMetadata.map(\.name)
        #expect(names == ["name", "summary", "servings", "createdAt", "ingredients", "cookbook"])
        #expect(BakedGood.schemaMetadata.map(\.name) == ["ovenTemperature", "glutenFree"])
    }
}
