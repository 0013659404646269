import Foundation
import Folio

// The shapes of a well-known SwiftData tutorial's travel app, and of Xcode's SwiftData template:
// types inferred from initial values, a Codable enum attribute with a default, external storage,
// an inverse-less cascade to-many declared as `[Sight]()`.

@Model
final class Destination {
    var name: String
    var details: String
    var date: Date
    var priority: Int
    var status: TripStatus = TripStatus.planned
    @Attribute(.externalStorage) var photo: Data?
    @Relationship(deleteRule: .cascade) var sights = [Sight]()

    init(name: String = "", details: String = "", date: Date = .now, priority: Int = 2) {
        self.name = name
        self.details = details
        self.date = date
        self.priority = priority
    }
}

enum TripStatus: String, Codable, CaseIterable {
    case planned, booked, done
}

@Model
final class Sight {
    var name: String
    var rating = 0

    init(name: String) {
        self.name = name
    }
}

@Model
final class Item {
    @Attribute(.unique) var id: UUID = UUID()
    var timestamp: Date

    init(timestamp: Date) {
        self.timestamp = timestamp
    }
}
