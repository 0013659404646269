import Folio

// Apple's SampleTrips hierarchy, for containers made for the base class alone (as the sample's preview
// container is): the subclasses are never listed in a schema.

@Model
class PreviewTrip {
    #Index<PreviewTrip>([\.destination])

    var name: String
    var destination: String
    var price: Double
    var nights: Int = 1

    init(name: String, destination: String, price: Double, nights: Int = 1) {
        self.name = name
        self.destination = destination
        self.price = price
        self.nights = nights
    }
}

@Model
final class PreviewBusinessTrip: PreviewTrip {
    var perdiem: Double = 0

    init(name: String, destination: String, price: Double, perdiem: Double) {
        self.perdiem = perdiem
        super.init(name: name, destination: destination, price: price)
    }
}

@Model
final class PreviewPersonalTrip: PreviewTrip {
    enum Reason: String, Codable, CaseIterable {
        case family, reunion, wellness
    }

    var reason: Reason

    init(name: String, destination: String, price: Double, reason: Reason) {
        self.reason = reason
        super.init(name: name, destination: destination, price: price)
    }
}

/// Refers to trips: a container made for it alone takes `PreviewTrip` in through the relationship, and
/// subclasses through the trips it holds.
@Model
final class PreviewItinerary {
    var title: String
    @Relationship(deleteRule: .cascade) var trips: [PreviewTrip] = []

    init(title: String) {
        self.title = title
    }
}

/// No container in the tests lists it, and it inherits from no model: a context must refuse to store it.
@Model
final class PreviewStranger {
    var name: String
    var trip: PreviewTrip?

    init(name: String) {
        self.name = name
    }
}
