import Foundation
@testable import Folio

/// A exhibit's values kept in plain Swift, beside the store: the reference the answers are checked
/// against, independent of anything Folio stores, indexes or fetches.
struct ExhibitValues: Equatable {
    var serial: Int
    var text: String
    var number: Double
    var integer: Int
    var date: Date
    var maybeText: String?
    var maybeNumber: Double?
    var tag: String

    static func == (lhs: ExhibitValues, rhs: ExhibitValues) -> Bool {
        lhs.serial == rhs.serial
    }

    static func random(serial: Int, _ rng: inout SplitMix64) -> ExhibitValues {
        ExhibitValues(
            serial: serial, text: ValueDomain.string(&rng), number: ValueDomain.double(&rng), integer: ValueDomain.integer(&rng),
            date: ValueDomain.date(&rng), maybeText: Bool.random(using: &rng) ? nil : ValueDomain.word(&rng),
            maybeNumber: Int.random(in: 0..<3, using: &rng) == 0 ? nil : ValueDomain.double(&rng), tag: ValueDomain.word(&rng))
    }

    /// A model of these values in no context, for `Predicate.evaluate`.
    func detached() -> Exhibit {
        Exhibit(
            serial: serial, text: text, number: number, integer: integer, date: date, maybeText: maybeText,
            maybeNumber: maybeNumber, tag: tag)
    }

    /// Sets every property of `model` to these values.
    func apply(to model: Exhibit) {
        model.text = text
        model.textCopy = text
        model.number = number
        model.numberCopy = number
        model.integer = integer
        model.integerCopy = integer
        model.date = date
        model.dateCopy = date
        model.maybeText = maybeText
        model.maybeNumber = maybeNumber
        model.tag = tag
    }

    /// A random change of some of the values.
    mutating func change(_ rng: inout SplitMix64) {
        switch Int.random(in: 0..<6, using: &rng) {
        case 0: text = ValueDomain.string(&rng)
        case 1: number = ValueDomain.double(&rng)
        case 2: integer = ValueDomain.integer(&rng)
        case 3: date = ValueDomain.date(&rng)
        case 4: maybeText = Bool.random(using: &rng) ? nil : ValueDomain.word(&rng)
        default:
            maybeNumber = Bool.random(using: &rng) ? nil : ValueDomain.double(&rng)
            tag = ValueDomain.word(&rng)
        }
    }
}

/// The store's contents as the test expects them: exhibits in the order they were inserted, which is
/// the order Folio keeps records in, and so the order of ties in a sort.
struct ExhibitMirror {
    private(set) var exhibits: [ExhibitValues] = []
    private(set) var nextSerial = 0

    mutating func insert(_ rng: inout SplitMix64) -> ExhibitValues {
        let values = ExhibitValues.random(serial: nextSerial, &rng)
        nextSerial += 1
        exhibits.append(values)
        return values
    }

    mutating func update(_ values: ExhibitValues) {
        guard let position = exhibits.firstIndex(where: { $0.serial == values.serial }) else { return }
        exhibits[position] = values
    }

    mutating func remove(serial: Int) {
        exhibits.removeAll { $0.serial == serial }
    }
}
