import Foundation
import FolioStorage

extension Filter {
    /// The filter made ready to test many records: each comparison works out what it can of its literal
    /// once, and reads the commonest values (numbers, dates, printable ASCII text) in place from the
    /// packed record, without a `JSONValue` or a `String`. Everything else goes to
    /// ``matches(_:isDate:)``'s own comparison, so the answer is always that of ``matches(_:isDate:)``.
    ///
    /// - Parameter isDate: whether a property holds dates, asked once per field here, not per record.
    /// - Returns: a test of records for one thread at a time: it keeps the last slot it looked up.
    func matcher(isDate: (String) -> Bool) -> (StoredRecord) -> Bool {
        switch self {
        case .and(let a, let b):
            let (first, second) = (a.matcher(isDate: isDate), b.matcher(isDate: isDate))
            return { first($0) && second($0) }
        case .or(let a, let b):
            let (first, second) = (a.matcher(isDate: isDate), b.matcher(isDate: isDate))
            return { first($0) || second($0) }
        case .not(let a):
            let inner = a.matcher(isDate: isDate)
            return { !inner($0) }
        case .comparison(let path, let op, let literal):
            let comparison = PreparedComparison(path: path, op: op, literal: literal, dateField: path.count == 1 && isDate(path[0]))
            // Records of one entity share a few layouts: most skip the search for the field's slot.
            var slotCache = SlotCache()
            return { comparison.matches($0, slotCache: &slotCache) }
        }
    }
}

/// One comparison of a filter with its literal read once: the date it spells, and the needle of a
/// `contains` in printable ASCII.
private struct PreparedComparison: Sendable {
    let path: [String]
    let op: Filter.Operator
    let literal: Filter.Literal
    let dateField: Bool
    /// The date a string literal spells, if it spells one.
    let literalDate: Date?
    /// A `contains` needle of printable ASCII, lowercased, if the literal is one (and not empty).
    let asciiNeedle: [UInt8]?

    init(path: [String], op: Filter.Operator, literal: Filter.Literal, dateField: Bool) {
        (self.path, self.op, self.literal, self.dateField) = (path, op, literal, dateField)
        guard case .string(let text) = literal else {
            (literalDate, asciiNeedle) = (nil, nil)
            return
        }
        literalDate = DateText.parse(text)
        let bytes = Array(text.utf8)
        asciiNeedle = op == .contains && !bytes.isEmpty && bytes.allSatisfy(Self.isPrintableASCII) ? bytes.map(Self.lowercased) : nil
    }

    func matches(_ record: StoredRecord, slotCache: inout SlotCache) -> Bool {
        var decided: Bool?
        if path.count == 1 {
            _ = record.values.withScalar(named: path[0], slotCache: &slotCache) { scalar in decided = inPlace(scalar) }
        }
        if let decided { return decided }
        return Filter.compare(Filter.value(at: path, in: record), op, literal, dateField: dateField)
    }

    /// The comparison's answer for a value read in place, nil where only ``Filter/compare(_:_:_:dateField:)``
    /// on the decoded value says (what that function answers, for the values it answers here).
    private func inPlace(_ scalar: PackedScalar) -> Bool? {
        switch (scalar, literal) {
        case (.text(let utf8, _), .string) where op == .contains:
            guard let asciiNeedle, utf8.allSatisfy(Self.isPrintableASCII) else { return nil }
            return Self.containsFolded(utf8, asciiNeedle)
        case (.text(let utf8, _), .string) where literalDate != nil:
            // A date literal compares as a date against a date field's value, or a value that reads
            // as a date; against any other text, as text.
            guard let given = literalDate else { return nil }
            let stored = DateText.parse(bytes: utf8)
            guard dateField || stored != nil else { return nil }
            guard let stored else { return op == .notEqual }
            return holds(stored < given ? .orderedAscending : (stored > given ? .orderedDescending : .orderedSame))
        case (.int(let value), .number(let number)) where op != .contains:
            return holds(Self.order(Double(value), number))
        case (.double(let value), .number(let number)) where op != .contains:
            return holds(Self.order(value, number))
        default:
            return nil
        }
    }

    /// What the operator says of an order, as ``Filter/compare(_:_:_:dateField:)`` reads it.
    private func holds(_ order: ComparisonResult) -> Bool {
        switch op {
        case .equal: order == .orderedSame
        case .notEqual: order != .orderedSame
        case .less: order == .orderedAscending
        case .lessOrEqual: order != .orderedDescending
        case .greater: order == .orderedDescending
        case .greaterOrEqual: order != .orderedAscending
        case .contains: false
        }
    }

    private static func order(_ stored: Double, _ number: Double) -> ComparisonResult {
        stored < number ? .orderedAscending : (stored > number ? .orderedDescending : .orderedSame)
    }

    /// Printable ASCII: no letter of it has a case or a diacritic but the Latin letters' case, and no
    /// two of it make one character, so a case-insensitive search is a byte search with A-Z folded.
    private static func isPrintableASCII(_ byte: UInt8) -> Bool { byte >= 0x20 && byte < 0x7F }

    private static func lowercased(_ byte: UInt8) -> UInt8 { byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte }

    /// Whether `text`, its letters folded to lowercase, holds `needle` (folded already).
    private static func containsFolded(_ text: UnsafeBufferPointer<UInt8>, _ needle: [UInt8]) -> Bool {
        guard needle.count <= text.count, let first = needle.first else { return false }
        var start = 0
        while start + needle.count <= text.count {
            if lowercased(text[start]) == first {
                var offset = 1
                while offset < needle.count, lowercased(text[start + offset]) == needle[offset] { offset += 1 }
                if offset == needle.count { return true }
            }
            start += 1
        }
        return false
    }
}
