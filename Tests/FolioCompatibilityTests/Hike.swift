import Folio

/// A model declared as in an app that imports Folio; the SwiftData-spelled tests use it too.
@Model
final class Hike {
    #Index<Hike>([\.region])

    var name: String
    var region: String
    var price: Int
    var notes: String?

    init(name: String, region: String, price: Int, notes: String? = nil) {
        self.name = name
        self.region = region
        self.price = price
        self.notes = notes
    }
}

/// A container in memory with hikes in three regions at different prices.
func hikeContext() throws -> ModelContext {
    let container = try ModelContainer(for: Hike.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
    let context = ModelContext(container)
    let rows: [(String, String, Int, String?)] = [
        ("Eiger", "Alps", 40, "windy"), ("Matterhorn", "Alps", 120, nil), ("Jungfrau", "Alps", 80, "busy"),
        ("Snowdon", "Wales", 20, nil), ("Tryfan", "Wales", 150, "scramble"), ("Ben Nevis", "Highlands", 60, "windy"),
    ]
    for (name, region, price, notes) in rows {
        context.insert(Hike(name: name, region: region, price: price, notes: notes))
    }
    try context.save()
    return context
}
