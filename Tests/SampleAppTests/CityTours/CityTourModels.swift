import Foundation
import Folio

// An inheritance tree whose root declares the uniqueness constraint: a tour booking and a guided
// one, both unique by their booking code across the tree.

/// A place's identifier from a maps service, kept whole with `.codable`.
struct PlaceIdentifier: Codable, Hashable {
    var rawValue: String
}

@Model
class TourBooking {
    #Unique<TourBooking>([\.code])
    var code: String
    var guest: String
    var people: Int = 1
    @Attribute(.codable) var meetingPoint: PlaceIdentifier?

    init(code: String, guest: String, people: Int = 1) {
        self.code = code
        self.guest = guest
        self.people = people
    }
}

@Model
final class GuidedTourBooking: TourBooking {
    var guide: String

    init(code: String, guest: String, guide: String) {
        self.guide = guide
        super.init(code: code, guest: guest)
    }
}
