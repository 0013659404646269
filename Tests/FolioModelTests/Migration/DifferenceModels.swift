import Foundation
import Folio

// The "new" models of the schema difference tests. Each test records this schema, edits the record
// into the "old" schema a store would hold, and compares.

enum DifferenceModels {
    static var schema: Schema {
        Schema([Note.self, Folder.self, Label.self, Person.self, Document.self, Report.self], version: Schema.Version(2, 0, 0))
    }

    @Model
    final class Note {
        var title: String
        var pinned: Bool = false
        var subtitle: String?
        var count: Int
        @Attribute(originalName: "text") var body: String = ""
        @Attribute(.ephemeral) var isSelected: Bool = false
        var folder: Folder?
        var labels: [Label] = []
        var owner: Person

        init(title: String, count: Int, owner: Person) {
            self.title = title
            self.count = count
            self.owner = owner
        }
    }

    @Model
    final class Folder {
        var name: String

        init(name: String) {
            self.name = name
        }
    }

    @Model
    final class Label {
        var name: String

        init(name: String) {
            self.name = name
        }
    }

    @Model
    final class Person {
        @Attribute(.unique) var email: String

        init(email: String) {
            self.email = email
        }
    }

    @Model
    class Document {
        var name: String

        init(name: String) {
            self.name = name
        }
    }

    @Model
    final class Report: Document {
        var pages: Int = 1

        init(name: String, pages: Int) {
            self.pages = pages
            super.init(name: name)
        }
    }
}
