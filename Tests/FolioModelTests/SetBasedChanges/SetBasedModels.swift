import Foundation
import Folio

/// Models for updates and deletes by predicate: attributes of each kind an update sets, a unique one,
/// a `#Unique` pair, and relationships with every delete rule.
@Model
final class BatchGadget {
    #Unique<BatchGadget>([\.maker, \.model])

    @Attribute(.unique) var serial: String
    var maker: String
    var model: Int
    var price: Double
    var stock: Int
    var note: String?
    var rating: Double = 3.0
    var added: Date
    @Attribute(.ephemeral) var scratch: Int = 0
    @Attribute(.preserveValueOnDeletion) var label: String = ""
    @Relationship(deleteRule: .nullify, inverse: \BatchShelf.gadgets) var shelf: BatchShelf?

    init(serial: String, maker: String, model: Int, price: Double, stock: Int, note: String? = nil, added: Date = Date(timeIntervalSince1970: 0)) {
        self.serial = serial
        self.maker = maker
        self.model = model
        self.price = price
        self.stock = stock
        self.note = note
        self.added = added
    }
}

@Model
class BatchShelf {
    var label: String
    var gadgets: [BatchGadget] = []

    init(label: String) { self.label = label }
}

@Model
final class BatchCornerShelf: BatchShelf {
    var corner: Int = 0

    init(label: String, corner: Int) {
        self.corner = corner
        super.init(label: label)
    }
}

/// An owner whose parts cascade (and their pieces in turn), whose tags are nullified, and whose notes
/// are left as they are.
@Model
final class BatchOwner {
    var key: Int
    var group: Int
    @Relationship(deleteRule: .cascade, inverse: \BatchPart.owner) var parts: [BatchPart] = []
    @Relationship(deleteRule: .nullify, inverse: \BatchTag.owners) var tags: [BatchTag] = []
    @Relationship(deleteRule: .nullify, inverse: \BatchTag.favourite) var favouriteOf: [BatchTag] = []
    @Relationship(deleteRule: .noAction) var memo: BatchMemo?

    init(key: Int, group: Int) {
        self.key = key
        self.group = group
    }
}

@Model
final class BatchPart {
    var key: Int
    var owner: BatchOwner?
    @Relationship(deleteRule: .cascade, inverse: \BatchPiece.part) var pieces: [BatchPiece] = []

    init(key: Int) { self.key = key }
}

@Model
final class BatchPiece {
    var key: Int
    var part: BatchPart?

    init(key: Int) { self.key = key }
}

@Model
final class BatchTag {
    var key: Int
    var owners: [BatchOwner] = []
    var favourite: BatchOwner?

    init(key: Int) { self.key = key }
}

@Model
final class BatchMemo {
    var key: Int

    init(key: Int) { self.key = key }
}

/// A vault that cannot be deleted while it holds items.
@Model
final class BatchVault {
    var key: Int
    @Relationship(deleteRule: .deny, inverse: \BatchItem.vault) var items: [BatchItem] = []

    init(key: Int) { self.key = key }
}

@Model
final class BatchItem {
    var key: Int
    var vault: BatchVault?

    init(key: Int) { self.key = key }
}
