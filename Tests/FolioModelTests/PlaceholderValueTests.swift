import Foundation
import Testing
@testable import Folio

/// A model with a required relationship and values without defaults, to read on instances that have
/// nothing to load them from.
@Model
final class Booking {
    var guest: String
    var nights: Int
    var arrival: Date
    var address: Address
    var tags: [String]
    var room: Cookbook
    var unit: Ingredient.Unit
    var difficulty: Difficulty = .hard

    init(guest: String, nights: Int, arrival: Date, address: Address, tags: [String], room: Cookbook, unit: Ingredient.Unit) {
        self.guest = guest
        self.nights = nights
        self.arrival = arrival
        self.address = address
        self.tags = tags
        self.room = room
        self.unit = unit
    }
}

@Suite("Instances with nothing to load")
struct PlaceholderValueTests {
    /// The kind of instance Folio makes as a placeholder (`model(for:)` of a missing identifier, a
    /// relationship's stand-in): new backing data, nothing loaded.
    @Test func anInstanceWithNothingToLoadReadsDefaultsAndEmptyValuesInsteadOfStopping() throws {
        let booking = try Booking(_claimed: _ClaimedBackingData(new: ModelBackingData()))
        #expect(booking.guest == "")
        #expect(booking.nights == 0)
        #expect(booking.arrival == Date(timeIntervalSinceReferenceDate: 0))
        #expect(booking.address == Address(street: "", city: "", postcode: nil))
        #expect(booking.tags.isEmpty)
        #expect(booking.unit == .gram, "a CaseIterable enum reads as its first case")
        #expect(booking.difficulty == .hard, "a declared default wins")
        #expect(booking.room.isDeleted, "a required relationship reads as a placeholder model marked deleted")
        #expect(booking.room.title == "")
        #expect(booking.room.recipes.isEmpty)
    }

    @Test func modelForAnUnknownIdentifierGivesAPlaceholderThatCanBeRead() throws {
        let container = try ModelContainer(for: Schema(recipeTypes), configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        context.insert(Recipe(name: "Soup"))
        try context.save()
        let known = try #require(try context.fetch(FetchDescriptor<Recipe>()).first)
        let json = try JSONEncoder().encode(known.persistentModelID)
        let text = String(decoding: json, as: UTF8.self).replacingOccurrences(
            of: "\"recordNumber\":\(known.persistentModelID.recordNumber ?? 0)", with: "\"recordNumber\":987654")
        let unknown = try JSONDecoder().decode(PersistentIdentifier.self, from: Data(text.utf8))
        let placeholder = try #require(context.model(for: unknown) as? Recipe)
        #expect(placeholder !== known)
        #expect(placeholder.name == "")
        #expect(placeholder.servings == 2)
        #expect(placeholder.ingredients.isEmpty)
        #expect(placeholder.cookbook == nil)
    }

    @Test func everyEmptyValueTheGeneralRuleGives() {
        #expect(PlaceholderValue.make(String?.self) == .some(nil))
        #expect(PlaceholderValue.make(Decimal.self) == 0)
        #expect(PlaceholderValue.make([String: Int].self) == [:])
        #expect(PlaceholderValue.make(Set<Int>.self) == [])
        #expect(PlaceholderValue.make(UUID.self) == UUID(uuidString: "00000000-0000-0000-0000-000000000000"))
        #expect(PlaceholderValue.make(Difficulty.self) == nil, "an Int enum without a 0 case and not CaseIterable has none")
    }
}
