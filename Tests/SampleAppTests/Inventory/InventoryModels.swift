import Foundation
import Folio

// A stock-keeping app: shelves that must not be deleted while they hold items, items that keep a
// renamed property's old values, a selection flag that is never stored, and a bin of labels that
// needs at least one.

@Model
final class Shelf {
    var code: String
    @Relationship(deleteRule: .deny, inverse: \StockItem.shelf) var items: [StockItem] = []
    @Relationship(deleteRule: .noAction) var labels: [ShelfLabel] = []

    init(code: String) {
        self.code = code
    }
}

@Model
final class StockItem {
    @Attribute(originalName: "name") var title: String
    var count: Int
    var shelf: Shelf?
    @Attribute(.ephemeral) var isSelected = false

    init(title: String, count: Int) {
        self.title = title
        self.count = count
    }
}

@Model
final class ShelfLabel {
    var text: String
    @Relationship(minimumModelCount: 1) var colours: [LabelColour] = []

    init(text: String) {
        self.text = text
    }
}

@Model
final class LabelColour {
    var name: String

    init(name: String) {
        self.name = name
    }
}
