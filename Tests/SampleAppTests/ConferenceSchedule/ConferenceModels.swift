import Foundation
import Folio

// A conference schedule in the shapes podcast and conference apps use: identifiers declared with
// `let` and set once by the initializer, implicitly unwrapped optionals for an attribute and for
// relationships that are always set after the model is made.

@Model
final class Session {
    #Index<Session>([\.code], [\.start])
    let code: String
    let id: UUID
    var title: String
    var start: Date
    var room: String!
    var track: ConferenceTrack!
    var speakers: [Speaker] = []

    init(code: String, id: UUID = UUID(), title: String, start: Date) {
        self.code = code
        self.id = id
        self.title = title
        self.start = start
    }
}

@Model
final class ConferenceTrack {
    let slug: String
    var name: String
    @Relationship(deleteRule: .cascade, inverse: \Session.track) var sessions: [Session] = []

    init(slug: String, name: String) {
        self.slug = slug
        self.name = name
    }
}

@Model
final class Speaker {
    let handle: String
    var name: String
    @Relationship(inverse: \Session.speakers) var sessions: [Session] = []

    init(handle: String, name: String) {
        self.handle = handle
        self.name = name
    }
}
