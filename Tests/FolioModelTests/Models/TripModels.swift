import Folio

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
