import Foundation
import Folio

/// A model whose every kind of stored value is reachable by every access path: each value has an
/// indexed property (`#Index`: sorted pairs; `#Unique`: a hash table) and a copy without an index
/// (record and column scans).
@Model
final class Exhibit {
    #Index<Exhibit>([\.text], [\.number], [\.integer], [\.date], [\.maybeText])
    #Unique<Exhibit>([\.tag, \.serial])

    var text: String
    var textCopy: String
    var number: Double
    var numberCopy: Double
    var integer: Int
    var integerCopy: Int
    var date: Date
    var dateCopy: Date
    var maybeText: String?
    var maybeNumber: Double?
    /// Indexed for the `#Unique` group only: the index keeps a hash table, with repeated keys.
    var tag: String
    /// Unique across the test's exhibits, so that no insert is an upsert.
    var serial: Int

    init(
        serial: Int, text: String, number: Double, integer: Int, date: Date, maybeText: String?,
        maybeNumber: Double?, tag: String
    ) {
        self.serial = serial
        self.text = text
        self.textCopy = text
        self.number = number
        self.numberCopy = number
        self.integer = integer
        self.integerCopy = integer
        self.date = date
        self.dateCopy = date
        self.maybeText = maybeText
        self.maybeNumber = maybeNumber
        self.tag = tag
    }
}
