import FolioStorage

/// A predicate translated into a form that evaluates over stored records without creating models.
indirect enum QueryNode {
    case variable(Int)
    case constant(QueryValue)
    /// A stored property of the record `base` evaluates to.
    case field(QueryNode, name: String, conversion: FieldConversion)
    /// `count` of a string or collection.
    case count(QueryNode)
    /// `isEmpty` of a string or collection.
    case isEmpty(QueryNode)
    case equal(QueryNode, QueryNode)
    case notEqual(QueryNode, QueryNode)
    case compare(QueryNode, ComparisonOperator, QueryNode)
    case and(QueryNode, QueryNode)
    case or(QueryNode, QueryNode)
    case not(QueryNode)
    case arithmetic(QueryNode, ArithmeticOperator, QueryNode)
    case negate(QueryNode)
    /// `wrapped.flatMap { slot in transform }`: nil when `wrapped` is nil.
    case flatMap(QueryNode, slot: Int, QueryNode)
    case nilCoalesce(QueryNode, QueryNode)
    case forceUnwrap(QueryNode)
    case conditional(QueryNode, QueryNode, QueryNode)
    case stringContains(QueryNode, QueryNode)
    case startsWith(QueryNode, QueryNode)
    case localizedStandardContains(QueryNode, QueryNode)
    /// Ordering of two strings ignoring case, as `ComparisonResult.rawValue` (-1, 0, 1).
    case caseInsensitiveCompare(QueryNode, QueryNode)
    case sequenceContains(QueryNode, QueryNode)
    case containsWhere(QueryNode, slot: Int, QueryNode)
    case allSatisfy(QueryNode, slot: Int, QueryNode)
    /// Whether the record is of one of the entities (`is Beverage`: Beverage and its subentities).
    case typeCheck(QueryNode, Set<String>)
    /// The record if it is of one of the entities, else nil (`as? Beverage`).
    case conditionalCast(QueryNode, Set<String>)

    enum ComparisonOperator {
        case less, lessOrEqual, greater, greaterOrEqual
    }

    enum ArithmeticOperator {
        case add, subtract, multiply, divide, remainder
    }
}

/// Why a translated predicate could not be evaluated on a record; the fetch then fails as
/// `Predicate.evaluate` would.
struct QueryEvaluationError: Error, CustomStringConvertible {
    var description: String
}

/// Evaluates translated predicates against the records a closure provides. A field a record has no
/// value for reads its stored default (see ``StoredDefaults``).
struct QueryEvaluator {
    /// The entity and stored values of a record.
    let record: (Int64) -> (entity: String, values: RecordValues)?
    let defaults: StoredDefaults
    /// The record being tested, already looked up: reads of its fields need no lookup.
    let current = CurrentRow()

    /// The record a filter is being evaluated for.
    final class CurrentRow {
        var id: Int64 = .min
        var entity = ""
        var values = RecordValues()
    }

    init(record: @escaping (Int64) -> (entity: String, values: RecordValues)?, defaults: StoredDefaults) {
        self.record = record
        self.defaults = defaults
    }

    /// Whether `filter` holds for record `id`, whose entity and values are given.
    func truth(_ filter: QueryNode, id: Int64, entity: String, values: RecordValues, _ slots: inout [QueryValue]) throws -> Bool {
        current.id = id
        current.entity = entity
        current.values = values
        defer { current.id = .min }
        if slots.count == 1 {
            slots[0] = .record(id)
        } else {
            slots = [.record(id)]
        }
        return try truth(filter, &slots)
    }

    private func row(_ id: Int64) -> (entity: String, values: RecordValues)? {
        if id == current.id { return (current.entity, current.values) }
        return record(id)
    }

    func evaluate(_ node: QueryNode, _ slots: inout [QueryValue]) throws -> QueryValue {
        switch node {
        case .variable(let slot):
            return slot < slots.count ? slots[slot] : .null
        case .constant(let value):
            return value
        case .field(let base, let name, let conversion):
            let value = try evaluate(base, &slots)
            guard case .record(let id) = value else {
                if value.isNull { return .null }
                throw QueryEvaluationError(description: "'\(name)' read from a value that is not a model")
            }
            if id == current.id {
                return QueryValue(stored: current.values[name] ?? defaults.value(of: name, in: current.entity), conversion: conversion)
            }
            guard let row = record(id) else { return .null }
            return QueryValue(stored: row.values[name] ?? defaults.value(of: name, in: row.entity), conversion: conversion)
        case .count(let base):
            switch try evaluate(base, &slots) {
            case .string(let text): return .int(Int64(text.count))
            case .array(let elements): return .int(Int64(elements.count))
            case .records(let ids): return .int(Int64(ids.count))
            case .json(.array(let elements)): return .int(Int64(elements.count))
            case .json(.object(let members)): return .int(Int64(members.count))
            default: throw QueryEvaluationError(description: "count of a value that has none")
            }
        case .isEmpty(let base):
            switch try evaluate(base, &slots) {
            case .string(let text): return .bool(text.isEmpty)
            case .array(let elements): return .bool(elements.isEmpty)
            case .records(let ids): return .bool(ids.isEmpty)
            case .json(.array(let elements)): return .bool(elements.isEmpty)
            case .json(.object(let members)): return .bool(members.isEmpty)
            default: throw QueryEvaluationError(description: "isEmpty of a value that has none")
            }
        case .equal(let lhs, let rhs):
            return .bool(QueryValue.equal(try evaluate(lhs, &slots), try evaluate(rhs, &slots)))
        case .notEqual(let lhs, let rhs):
            return .bool(!QueryValue.equal(try evaluate(lhs, &slots), try evaluate(rhs, &slots)))
        case .compare(let lhs, let op, let rhs):
            guard let holds = QueryValue.compare(try evaluate(lhs, &slots), op, try evaluate(rhs, &slots)) else {
                throw QueryEvaluationError(description: "values that cannot be ordered were compared")
            }
            return .bool(holds)
        case .and(let lhs, let rhs):
            guard try truth(lhs, &slots) else { return .bool(false) }
            return .bool(try truth(rhs, &slots))
        case .or(let lhs, let rhs):
            if try truth(lhs, &slots) { return .bool(true) }
            return .bool(try truth(rhs, &slots))
        case .not(let operand):
            return .bool(!(try truth(operand, &slots)))
        case .arithmetic(let lhs, let op, let rhs):
            return try arithmetic(try evaluate(lhs, &slots), op, try evaluate(rhs, &slots))
        case .negate(let operand):
            switch try evaluate(operand, &slots) {
            case .int(let value):
                guard value != .min else { throw QueryEvaluationError.overflow("-(\(value))") }
                return .int(-value)
            case .double(let value): return .double(-value)
            default: throw QueryEvaluationError(description: "negation of a value that is not a number")
            }
        case .flatMap(let wrapped, let slot, let transform):
            let value = try evaluate(wrapped, &slots)
            if value.isNull { return .null }
            return try bind(slot, value, &slots) { try evaluate(transform, &$0) }
        case .nilCoalesce(let lhs, let rhs):
            let value = try evaluate(lhs, &slots)
            return value.isNull ? try evaluate(rhs, &slots) : value
        case .forceUnwrap(let operand):
            let value = try evaluate(operand, &slots)
            if value.isNull { throw QueryEvaluationError(description: "a forced unwrap found nil") }
            return value
        case .conditional(let test, let then, let otherwise):
            return try truth(test, &slots) ? try evaluate(then, &slots) : try evaluate(otherwise, &slots)
        case .stringContains(let base, let other):
            guard case .string(let text) = try evaluate(base, &slots), case .string(let part) = try evaluate(other, &slots) else {
                return .bool(false)
            }
            // `Predicate.evaluate` searches by characters: a lone combining mark or one regional
            // indicator of a flag is not found inside a character, and the empty string is in every string.
            return .bool(text.firstRange(of: part) != nil)
        case .startsWith(let base, let prefix):
            guard case .string(let text) = try evaluate(base, &slots), case .string(let start) = try evaluate(prefix, &slots) else {
                return .bool(false)
            }
            return .bool(text.starts(with: start))
        case .localizedStandardContains(let base, let other):
            guard case .string(let text) = try evaluate(base, &slots), case .string(let part) = try evaluate(other, &slots) else {
                return .bool(false)
            }
            return .bool(LocalizedStandard.contains(text, part))
        case .caseInsensitiveCompare(let lhs, let rhs):
            guard case .string(let a) = try evaluate(lhs, &slots), case .string(let b) = try evaluate(rhs, &slots) else {
                throw QueryEvaluationError(description: "caseInsensitiveCompare of values that are not strings")
            }
            return .int(Int64(a.caseInsensitiveCompare(b).rawValue))
        case .sequenceContains(let sequence, let element):
            let wanted = try evaluate(element, &slots)
            return .bool(try elements(of: try evaluate(sequence, &slots)).contains { QueryValue.equal($0, wanted) })
        case .containsWhere(let sequence, let slot, let test):
            for element in try elements(of: try evaluate(sequence, &slots)) {
                if try bind(slot, element, &slots, { try truth(test, &$0) }) { return .bool(true) }
            }
            return .bool(false)
        case .allSatisfy(let sequence, let slot, let test):
            for element in try elements(of: try evaluate(sequence, &slots)) {
                if !(try bind(slot, element, &slots, { try truth(test, &$0) })) { return .bool(false) }
            }
            return .bool(true)
        case .typeCheck(let base, let entities):
            guard case .record(let id) = try evaluate(base, &slots), let row = row(id) else { return .bool(false) }
            return .bool(entities.contains(row.entity))
        case .conditionalCast(let base, let entities):
            let value = try evaluate(base, &slots)
            guard case .record(let id) = value, let row = row(id), entities.contains(row.entity) else { return .null }
            return value
        }
    }

    func truth(_ node: QueryNode, _ slots: inout [QueryValue]) throws -> Bool {
        switch try evaluate(node, &slots) {
        case .bool(let value): return value
        default: throw QueryEvaluationError(description: "a condition did not evaluate to a Boolean")
        }
    }

    private func bind<R>(
        _ slot: Int, _ value: QueryValue, _ slots: inout [QueryValue],
        _ body: (inout [QueryValue]) throws -> R
    ) rethrows -> R {
        while slots.count <= slot { slots.append(.null) }
        let saved = slots[slot]
        slots[slot] = value
        defer { slots[slot] = saved }
        return try body(&slots)
    }

    private func elements(of value: QueryValue) throws -> [QueryValue] {
        switch value {
        case .array(let elements): return elements
        case .records(let ids): return ids.map(QueryValue.record)
        case .json(.array(let elements)): return elements.map(QueryValue.init(json:))
        case .string(let text): return text.map { .string(String($0)) }
        case .null: return []
        default: throw QueryEvaluationError(description: "a value that is not a sequence was searched")
        }
    }

    private func arithmetic(_ a: QueryValue, _ op: QueryNode.ArithmeticOperator, _ b: QueryValue) throws -> QueryValue {
        switch (a, b) {
        case let (.int(x), .int(y)):
            return .int(try Self.integerArithmetic(x, op, y))
        default:
            guard let x = a.numeric, let y = b.numeric else {
                throw QueryEvaluationError(description: "arithmetic on values that are not numbers")
            }
            switch op {
            case .add: return .double(x + y)
            case .subtract: return .double(x - y)
            case .multiply: return .double(x * y)
            case .divide: return .double(x / y)
            case .remainder: return .double(x.truncatingRemainder(dividingBy: y))
            }
        }
    }

    /// Integer arithmetic that throws where Swift's operators trap: on overflow and division by zero.
    static func integerArithmetic(_ x: Int64, _ op: QueryNode.ArithmeticOperator, _ y: Int64) throws -> Int64 {
        let (result, overflow): (Int64, Bool)
        switch op {
        case .add: (result, overflow) = x.addingReportingOverflow(y)
        case .subtract: (result, overflow) = x.subtractingReportingOverflow(y)
        case .multiply: (result, overflow) = x.multipliedReportingOverflow(by: y)
        case .divide, .remainder:
            guard y != 0 else { throw QueryEvaluationError(description: "division by zero") }
            (result, overflow) = op == .divide ? x.dividedReportingOverflow(by: y) : x.remainderReportingOverflow(dividingBy: y)
        }
        if overflow { throw QueryEvaluationError.overflow("\(x) \(op.symbol) \(y)") }
        return result
    }
}

extension QueryNode.ArithmeticOperator {
    var symbol: String {
        switch self {
        case .add: return "+"
        case .subtract: return "-"
        case .multiply: return "*"
        case .divide: return "/"
        case .remainder: return "%"
        }
    }
}

extension QueryEvaluationError {
    /// Integer arithmetic whose result `Int` cannot hold, where Swift would stop the program.
    static func overflow(_ expression: String) -> QueryEvaluationError {
        QueryEvaluationError(description: "\(expression) overflows Int")
    }
}

/// `localizedStandardContains` where Foundation does not provide it: a case- and diacritic-insensitive
/// search.
enum LocalizedStandard {
    static func contains(_ text: String, _ part: String) -> Bool {
        if part.isEmpty { return true }
        return text.range(of: part, options: [.caseInsensitive, .diacriticInsensitive]) != nil
    }
}
