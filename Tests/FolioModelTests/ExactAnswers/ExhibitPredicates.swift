import Foundation
@testable import Folio

/// Random predicates over ``Exhibit`` that reach every access path: equalities and `IN` lists on a
/// sorted index (`text`, `number`, …), on a hash table (`tag`), ranges, ordered walks (a sort with a
/// limit), column scans (comparisons of the copies with constants) and record scans, with constants
/// drawn from the edges of each type's domain. None traps in `Predicate.evaluate` over the domain's
/// values, so each has a reference answer.
enum ExhibitPredicates {
    static let shapeCount = textShapes + numberShapes + integerAndDateShapes + mixedShapes
    static let textShapes = 16
    static let numberShapes = 14
    static let integerAndDateShapes = 13
    static let mixedShapes = 8

    static func random(_ rng: inout SplitMix64) -> (name: String, predicate: Predicate<Exhibit>) {
        let shape = Int.random(in: 0..<shapeCount, using: &rng)
        if shape < textShapes { return text(shape, &rng) }
        if shape < textShapes + numberShapes { return number(shape - textShapes, &rng) }
        if shape < textShapes + numberShapes + integerAndDateShapes {
            return integerAndDate(shape - textShapes - numberShapes, &rng)
        }
        return mixed(shape - textShapes - numberShapes - integerAndDateShapes, &rng)
    }

    static func text(_ shape: Int, _ rng: inout SplitMix64) -> (name: String, predicate: Predicate<Exhibit>) {
        let a = ValueDomain.word(&rng)
        let b = ValueDomain.word(&rng)
        let long = ValueDomain.string(&rng)
        let part = ValueDomain.fragment(of: long, &rng)
        let n = Int.random(in: 0...4, using: &rng)
        let list = [a, b, ValueDomain.word(&rng)]
        let name = "\(shape) a=\(a.debugDescription) b=\(b.debugDescription) part=\(part.debugDescription) n=\(n)"
        switch shape {
        case 0: return ("text == a \(name)", #Predicate { $0.text == a })
        case 1: return ("textCopy == a \(name)", #Predicate { $0.textCopy == a })
        case 2: return ("text != a \(name)", #Predicate { $0.text != a })
        case 3: return ("text < a \(name)", #Predicate { $0.text < a })
        case 4: return ("text >= a && text < b \(name)", #Predicate { $0.text >= a && $0.text < b })
        case 5: return ("textCopy > a \(name)", #Predicate { $0.textCopy > a })
        case 6: return ("text in (a, b) \(name)", #Predicate { $0.text == a || $0.text == b })
        case 7: return ("list.contains(text) \(name)", #Predicate { list.contains($0.text) })
        case 8: return ("text.contains(part) \(name)", #Predicate { $0.text.contains(part) })
        case 9: return ("text.starts(with: part) \(name)", #Predicate { $0.textCopy.starts(with: part) })
        case 10: return ("text.count == n \(name)", #Predicate { $0.text.count == n })
        case 11: return ("tag == a \(name)", #Predicate { $0.tag == a })
        case 12: return ("tag == a || tag == b \(name)", #Predicate { $0.tag == a || $0.tag == b })
        case 13: return ("maybeText == a \(name)", #Predicate { $0.maybeText == a })
        case 14: return ("maybeText ?? \"\" <= a \(name)", #Predicate { ($0.maybeText ?? "") <= a })
        default: return ("maybeText?.contains(part) \(name)", #Predicate { $0.maybeText?.contains(part) == true })
        }
    }

    static func number(_ shape: Int, _ rng: inout SplitMix64) -> (name: String, predicate: Predicate<Exhibit>) {
        let x = ValueDomain.double(&rng)
        let y = ValueDomain.double(&rng)
        let name = "\(shape) x=\(x) y=\(y)"
        switch shape {
        case 0: return ("number == x \(name)", #Predicate { $0.number == x })
        case 1: return ("number > x \(name)", #Predicate { $0.number > x })
        case 2: return ("number <= x \(name)", #Predicate { $0.number <= x })
        case 3: return ("number >= x && number < y \(name)", #Predicate { $0.number >= x && $0.number < y })
        case 4: return ("numberCopy < x \(name)", #Predicate { $0.numberCopy < x })
        case 5: return ("numberCopy >= x && numberCopy <= y \(name)", #Predicate { $0.numberCopy >= x && $0.numberCopy <= y })
        case 6: return ("numberCopy != x \(name)", #Predicate { $0.numberCopy != x })
        case 7: return ("!(number < x) \(name)", #Predicate { !($0.number < x) })
        case 8: return ("numberCopy * 2 > x \(name)", #Predicate { $0.numberCopy * 2 > x })
        case 9: return ("-numberCopy <= x \(name)", #Predicate { -$0.numberCopy <= x })
        case 10: return ("numberCopy - number == 0 \(name)", #Predicate { $0.numberCopy - $0.number == 0 })
        case 11: return ("maybeNumber == x \(name)", #Predicate { $0.maybeNumber == x })
        case 12: return ("maybeNumber! > x \(name)", #Predicate { $0.maybeNumber != nil && $0.maybeNumber! > x })
        default: return ("number == x || number == y \(name)", #Predicate { $0.number == x || $0.number == y })
        }
    }

    static func integerAndDate(_ shape: Int, _ rng: inout SplitMix64) -> (name: String, predicate: Predicate<Exhibit>) {
        let i = ValueDomain.integer(&rng)
        let j = ValueDomain.integer(&rng)
        let small = Int.random(in: -30...30, using: &rng)
        let divisor = [2, 3, 7, -2, -5].randomElement(using: &rng) ?? 2
        let d = ValueDomain.date(&rng)
        let e = ValueDomain.date(&rng)
        let name =
            "\(shape) i=\(i) j=\(j) small=\(small) divisor=\(divisor) d=\(d.timeIntervalSinceReferenceDate) e=\(e.timeIntervalSinceReferenceDate)"
        switch shape {
        case 0: return ("integer == i \(name)", #Predicate { $0.integer == i })
        case 1: return ("integer < i \(name)", #Predicate { $0.integer < i })
        case 2: return ("integer >= i && integer <= j \(name)", #Predicate { $0.integer >= i && $0.integer <= j })
        case 3: return ("integerCopy > i \(name)", #Predicate { $0.integerCopy > i })
        case 4: return ("integerCopy == i \(name)", #Predicate { $0.integerCopy == i })
        case 5:
            return (
                "bounded integerCopy * 3 + 1 > small \(name)",
                #Predicate { $0.integerCopy > -1_000 && $0.integerCopy < 1_000 && $0.integerCopy * 3 + 1 > small }
            )
        case 6: return ("integerCopy / divisor == small \(name)", #Predicate { $0.integerCopy / divisor == small })
        case 7: return ("integerCopy % divisor == 1 \(name)", #Predicate { $0.integerCopy % divisor == 1 })
        case 8: return ("date == d \(name)", #Predicate { $0.date == d })
        case 9: return ("date > d \(name)", #Predicate { $0.date > d })
        case 10: return ("date >= d && date < e \(name)", #Predicate { $0.date >= d && $0.date < e })
        case 11: return ("dateCopy <= d \(name)", #Predicate { $0.dateCopy <= d })
        default: return ("integer in (i, j) \(name)", #Predicate { $0.integer == i || $0.integer == j })
        }
    }

    static func mixed(_ shape: Int, _ rng: inout SplitMix64) -> (name: String, predicate: Predicate<Exhibit>) {
        let a = ValueDomain.word(&rng)
        let x = ValueDomain.double(&rng)
        let i = ValueDomain.integer(&rng)
        let d = ValueDomain.date(&rng)
        let name = "\(shape) a=\(a.debugDescription) x=\(x) i=\(i) d=\(d.timeIntervalSinceReferenceDate)"
        switch shape {
        case 0: return ("text == a && number > x \(name)", #Predicate { $0.text == a && $0.number > x })
        case 1: return ("numberCopy > x && text == a \(name)", #Predicate { $0.numberCopy > x && $0.text == a })
        case 2: return ("tag == a && integer < i \(name)", #Predicate { $0.tag == a && $0.integer < i })
        case 3: return ("date < d || text == a \(name)", #Predicate { $0.date < d || $0.text == a })
        case 4: return ("dateCopy > d && integerCopy > i \(name)", #Predicate { $0.dateCopy > d && $0.integerCopy > i })
        case 5: return ("!(text == a) && maybeNumber == nil \(name)", #Predicate { !($0.text == a) && $0.maybeNumber == nil })
        case 6: return ("everything \(name)", #Predicate { _ in true })
        default: return ("text.isEmpty || numberCopy.isNaN-free \(name)", #Predicate { $0.text.isEmpty || $0.numberCopy == $0.numberCopy })
        }
    }
}
