import SwiftData

/// A model declared as in an app written for Apple's SwiftData; the `import Folio` tests use it too.
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

/// A context on a store with hikes in three regions at different prices (in memory by default).
func hikeContext(_ configuration: SwiftData.ModelConfiguration = ModelConfiguration(isStoredInMemoryOnly: true)) throws
    -> SwiftData.ModelContext
{
    let container = try SwiftData.ModelContainer(for: SwiftData.Schema([Hike.self]), configurations: [configuration])
    let context = SwiftData.ModelContext(container)
    let rows: [(String, String, Int, String?)] = [
        ("Eiger", "Alps", 40, "windy"), ("Matterhorn", "Alps", 120, nil), ("Jungfrau", "Alps", 80, "busy"),
        ("Snowdon", "Wales", 20, nil), ("Tryfan", "Wales", 150, "scramble"), ("Ben Nevis", "Highlands", 60, "windy"),
    ]
    for (name, region, price, notes) in rows {
        let hike: any SwiftData.PersistentModel = Hike(name: name, region: region, price: price, notes: notes)
        context.insert(hike)
    }
    try context.save()
    return context
}
