import Foundation
import FolioStorage

/// The `--where` filter of `folio cat`: a small expression language over stored values.
///
/// ```
/// destination == Rome and price < 1200
/// (destination = "New York" or destination = Lima) and not notes == null
/// name contains "tart" and servings >= 4
/// startDate >= 2026-06-01 and startDate < 2026-07-01
/// ingredients contains 12          (a to-many relationship holding record 12)
/// ```
///
/// - Fields are property names; `id` and `entity` are the record's identifier and entity; `a.b` reads
///   inside an object value.
/// - Operators: `==` (or `=`), `!=`, `<`, `<=`, `>`, `>=`, `contains` (case-insensitive substring of a
///   string, or an element of an array), combined with `and`, `or`, `not` and parentheses. `and` binds
///   tighter than `or`. Parentheses and `not` nest at most ``FilterParser/maximumDepth`` deep.
/// - Values: numbers, `true`, `false`, `null`, quoted strings (`"…"` or `'…'`), or bare words (strings).
///   A value that looks like a date (`2026-06-01`, `2026-06-01T09:30:00Z`) compares as a date against
///   date properties.
/// - A missing property is `null`; `<`, `>` and friends are false when either side is `null`.
indirect enum Filter: Equatable, Sendable {
    case comparison(field: [String], op: Operator, value: Literal)
    case and(Filter, Filter)
    case or(Filter, Filter)
    case not(Filter)

    enum Operator: String, Sendable {
        case equal = "==", notEqual = "!=", less = "<", lessOrEqual = "<=", greater = ">", greaterOrEqual = ">="
        case contains
    }

    enum Literal: Equatable, Sendable {
        case null
        case bool(Bool)
        case number(Double)
        case string(String)
    }

    /// Parses a filter.
    ///
    /// - Throws: ``FilterSyntaxError`` saying what was expected where.
    static func parse(_ text: String) throws(FilterSyntaxError) -> Filter {
        var parser = FilterParser(tokens: try FilterLexer.tokens(text), source: text)
        return try parser.parseAll()
    }

    /// The fields the filter reads.
    var fields: [String] {
        switch self {
        case .comparison(let field, _, _): return [field[0]]
        case .and(let a, let b), .or(let a, let b): return a.fields + b.fields
        case .not(let a): return a.fields
        }
    }

    /// Whether a record matches. `isDate` says whether a property holds dates (from the schema).
    func matches(_ record: StoredRecord, isDate: (String) -> Bool) -> Bool {
        switch self {
        case .and(let a, let b): return a.matches(record, isDate: isDate) && b.matches(record, isDate: isDate)
        case .or(let a, let b): return a.matches(record, isDate: isDate) || b.matches(record, isDate: isDate)
        case .not(let a): return !a.matches(record, isDate: isDate)
        case .comparison(let path, let op, let literal):
            let value = Filter.value(at: path, in: record)
            return Filter.compare(value, op, literal, dateField: path.count == 1 && isDate(path[0]))
        }
    }

    static func value(at path: [String], in record: StoredRecord) -> JSONValue {
        var current: JSONValue
        switch path[0] {
        case "id" where record.values["id"] == nil: current = .int(record.id)
        case "entity" where record.values["entity"] == nil: current = .string(record.entity)
        default: current = record.values[path[0]] ?? .null
        }
        for key in path.dropFirst() {
            current = current.objectValue?[key] ?? .null
        }
        return current
    }

    static func compare(_ value: JSONValue, _ op: Operator, _ literal: Literal, dateField: Bool) -> Bool {
        if op == .contains {
            switch (value, literal) {
            case (.string(let text), .string(let needle)):
                return text.range(of: needle, options: [.caseInsensitive, .diacriticInsensitive]) != nil
            case (.string(let text), .number(let number)):
                return text.contains(formatNumber(number))
            case (.array(let elements), _):
                return elements.contains { compare($0, .equal, literal, dateField: false) }
            default:
                return false
            }
        }
        if case .null = literal {
            switch op {
            case .equal: return value.isNull
            case .notEqual: return !value.isNull
            default: return false
            }
        }
        if value.isNull { return op == .notEqual }
        let order: ComparisonResult?
        switch (value, literal) {
        case (_, .string(let text)) where DateText.parse(text) != nil && (dateField || value.stringValue.flatMap(DateText.parse) != nil):
            if let stored = DateText.stored(value), let given = DateText.parse(text) {
                order = stored < given ? .orderedAscending : (stored > given ? .orderedDescending : .orderedSame)
            } else {
                order = nil
            }
        case (.string(let stored), .string(let text)):
            order = compareStrings(stored, text)
        case (.string(let stored), .number(let number)):
            order = compareStrings(stored, formatNumber(number))
        case (.int, .number(let number)), (.double, .number(let number)):
            let stored = value.doubleValue ?? 0
            order = stored < number ? .orderedAscending : (stored > number ? .orderedDescending : .orderedSame)
        case (.int, .string(let text)), (.double, .string(let text)):
            if let number = Double(text) {
                let stored = value.doubleValue ?? 0
                order = stored < number ? .orderedAscending : (stored > number ? .orderedDescending : .orderedSame)
            } else {
                order = nil
            }
        case (.bool(let stored), .bool(let given)):
            order = stored == given ? .orderedSame : (!stored ? .orderedAscending : .orderedDescending)
        case (.bool(let stored), .string(let text)):
            order =
                (text == "true" || text == "false")
                ? (String(stored) == text ? .orderedSame : (!stored ? .orderedAscending : .orderedDescending)) : nil
        default:
            order = nil
        }
        guard let order else { return op == .notEqual }
        switch op {
        case .equal: return order == .orderedSame
        case .notEqual: return order != .orderedSame
        case .less: return order == .orderedAscending
        case .lessOrEqual: return order != .orderedDescending
        case .greater: return order == .orderedDescending
        case .greaterOrEqual: return order != .orderedAscending
        case .contains: return false
        }
    }

    private static func compareStrings(_ a: String, _ b: String) -> ComparisonResult {
        // Unicode scalar order, like Swift's String comparison in predicates.
        a < b ? .orderedAscending : (a > b ? .orderedDescending : .orderedSame)
    }

    static func formatNumber(_ number: Double) -> String {
        number == number.rounded() && abs(number) < 1e15 ? String(Int64(number)) : String(number)
    }
}

/// A syntax error in a `--where` expression, pointing at the column.
struct FilterSyntaxError: Error, Equatable, Sendable {
    var message: String
    /// 0-based character offset in the expression.
    var column: Int
}

enum FilterToken: Equatable, Sendable {
    case word(String)  // a field name, keyword or bare value
    case string(String)  // quoted
    case number(Double)
    case op(String)  // == != < <= > >= =
    case open, close
}

enum FilterLexer {
    static func tokens(_ text: String) throws(FilterSyntaxError) -> [(FilterToken, Int)] {
        let characters = Array(text)
        var tokens: [(FilterToken, Int)] = []
        var index = 0
        while index < characters.count {
            let character = characters[index]
            let start = index
            if character.isWhitespace {
                index += 1
            } else if character == "(" {
                tokens.append((.open, start))
                index += 1
            } else if character == ")" {
                tokens.append((.close, start))
                index += 1
            } else if character == "\"" || character == "'" {
                var value = ""
                index += 1
                var closed = false
                while index < characters.count {
                    let c = characters[index]
                    if c == "\\", index + 1 < characters.count {
                        value.append(characters[index + 1])
                        index += 2
                        continue
                    }
                    if c == character {
                        closed = true
                        index += 1
                        break
                    }
                    value.append(c)
                    index += 1
                }
                if !closed { throw FilterSyntaxError(message: "unterminated string: add the closing \(character)", column: start) }
                tokens.append((.string(value), start))
            } else if "=!<>".contains(character) {
                var op = String(character)
                index += 1
                if index < characters.count, characters[index] == "=" {
                    op.append("=")
                    index += 1
                }
                if op == "!" { throw FilterSyntaxError(message: "'!' must be followed by '=' (use 'not' to negate)", column: start) }
                tokens.append((.op(op), start))
            } else {
                var word = ""
                while index < characters.count {
                    let c = characters[index]
                    if c.isWhitespace || "()=!<>\"'".contains(c) { break }
                    word.append(c)
                    index += 1
                }
                if let number = Double(word), word.first.map({ $0.isNumber || $0 == "-" || $0 == "+" || $0 == "." }) ?? false,
                    DateText.parse(word) == nil
                {
                    tokens.append((.number(number), start))
                } else {
                    tokens.append((.word(word), start))
                }
            }
        }
        return tokens
    }
}

struct FilterParser {
    var tokens: [(FilterToken, Int)]
    var source: String
    var position = 0
    /// How many parentheses and `not`s enclose the token being parsed.
    private var depth = 0

    /// The deepest nesting of parentheses and `not`s accepted: each level is a recursion of the parser,
    /// of matching and of freeing the filter, so a command line of thousands would overflow the stack.
    static let maximumDepth = 256

    init(tokens: [(FilterToken, Int)], source: String) {
        self.tokens = tokens
        self.source = source
    }

    private var column: Int { position < tokens.count ? tokens[position].1 : source.count }

    private func peekWord() -> String? {
        guard position < tokens.count, case .word(let word) = tokens[position].0 else { return nil }
        return word.lowercased()
    }

    mutating func parseAll() throws(FilterSyntaxError) -> Filter {
        if tokens.isEmpty { throw FilterSyntaxError(message: "the filter is empty: write for example 'price < 100'", column: 0) }
        let filter = try parseOr()
        if position < tokens.count {
            throw FilterSyntaxError(message: "expected 'and', 'or' or the end of the filter", column: column)
        }
        return filter
    }

    mutating func parseOr() throws(FilterSyntaxError) -> Filter {
        var left = try parseAnd()
        while peekWord() == "or" || peekOp("||") {
            position += 1
            left = .or(left, try parseAnd())
        }
        return left
    }

    mutating func parseAnd() throws(FilterSyntaxError) -> Filter {
        var left = try parseNot()
        while peekWord() == "and" || peekOp("&&") {
            position += 1
            left = .and(left, try parseNot())
        }
        return left
    }

    private func peekOp(_ op: String) -> Bool {
        guard position < tokens.count, case .word(let word) = tokens[position].0 else { return false }
        return word == op
    }

    mutating func parseNot() throws(FilterSyntaxError) -> Filter {
        if peekWord() == "not" {
            try enterNesting()
            defer { depth -= 1 }
            position += 1
            return .not(try parseNot())
        }
        return try parsePrimary()
    }

    /// Counts one more level of nesting at the current token, refusing one past ``maximumDepth``.
    private mutating func enterNesting() throws(FilterSyntaxError) {
        guard depth < Self.maximumDepth else {
            throw FilterSyntaxError(message: "parentheses and 'not' are nested more than \(Self.maximumDepth) deep", column: column)
        }
        depth += 1
    }

    mutating func parsePrimary() throws(FilterSyntaxError) -> Filter {
        guard position < tokens.count else {
            throw FilterSyntaxError(message: "expected a comparison such as 'price < 100'", column: column)
        }
        if case .open = tokens[position].0 {
            try enterNesting()
            defer { depth -= 1 }
            position += 1
            let inner = try parseOr()
            guard position < tokens.count, case .close = tokens[position].0 else {
                throw FilterSyntaxError(message: "expected ')'", column: column)
            }
            position += 1
            return inner
        }
        guard case .word(let field) = tokens[position].0, !["and", "or", "not", "contains"].contains(field.lowercased()) else {
            throw FilterSyntaxError(message: "expected a property name", column: column)
        }
        position += 1
        let op: Filter.Operator
        guard position < tokens.count else {
            throw FilterSyntaxError(message: "expected an operator after '\(field)': ==, !=, <, <=, >, >= or contains", column: column)
        }
        switch tokens[position].0 {
        case .op(let text):
            op = text == "=" ? .equal : Filter.Operator(rawValue: text)!
        case .word(let word) where word.lowercased() == "contains":
            op = .contains
        default:
            throw FilterSyntaxError(message: "expected an operator after '\(field)': ==, !=, <, <=, >, >= or contains", column: column)
        }
        position += 1
        guard position < tokens.count else {
            throw FilterSyntaxError(message: "expected a value after '\(op.rawValue)'", column: column)
        }
        let literal: Filter.Literal
        switch tokens[position].0 {
        case .number(let number): literal = .number(number)
        case .string(let text): literal = .string(text)
        case .word(let word):
            switch word {
            case "null", "nil": literal = .null
            case "true": literal = .bool(true)
            case "false": literal = .bool(false)
            default: literal = .string(word)
            }
        default:
            throw FilterSyntaxError(message: "expected a value after '\(op.rawValue)'", column: column)
        }
        position += 1
        return .comparison(field: field.split(separator: ".").map(String.init), op: op, value: literal)
    }
}
