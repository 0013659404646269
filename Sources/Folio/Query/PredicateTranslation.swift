import FolioStorage

/// A predicate expression that Folio can evaluate over stored records without creating models.
///
/// Each supported `PredicateExpressions` type conforms when its operands do, so a predicate translates
/// exactly when every node in its tree is understood; otherwise the fetch evaluates the predicate on
/// models instead (see ``QueryPlanner``).
protocol QueryTranslatable {
    func translate(_ context: inout TranslationContext) throws -> QueryNode
}

/// Thrown when a node cannot be translated; the fetch falls back to evaluating models.
struct NotTranslatable: Error {
    var reason: String
}

/// What translation needs: the schema's key-path tables and the variables in scope.
struct TranslationContext {
    let schema: Schema
    private var slots: [PredicateExpressions.VariableID: Int] = [:]
    /// The variables of nested predicates being inlined, each standing for its argument's translation.
    private var substitutions: [PredicateExpressions.VariableID: QueryNode] = [:]

    init(schema: Schema) {
        self.schema = schema
    }

    /// What a nested predicate's variable stands for while its condition is being inlined.
    func substitution(for variable: PredicateExpressions.VariableID) -> QueryNode? {
        substitutions[variable]
    }

    /// Translates with `variable` standing for `node`, then restores what it stood for before: the same
    /// nested predicate may be inlined again elsewhere with another argument.
    mutating func substituting<Result>(
        _ variable: PredicateExpressions.VariableID, with node: QueryNode,
        _ body: (inout TranslationContext) throws -> Result
    ) rethrows -> Result {
        let previous = substitutions.updateValue(node, forKey: variable)
        defer { substitutions[variable] = previous }
        return try body(&self)
    }

    mutating func slot(for variable: PredicateExpressions.VariableID) -> Int {
        if let slot = slots[variable] { return slot }
        let slot = slots.count
        slots[variable] = slot
        return slot
    }

    /// The stored property a key path rooted at a model type names, with its conversion.
    mutating func field(of model: any PersistentModel.Type, keyPath: AnyKeyPath) throws -> (String, FieldConversion) {
        guard let entity = schema.entitiesByName[model._folioEntityName], let name = entity.propertyNamesByKeyPath[keyPath],
            let metadata = entity.metadataByName[name]
        else {
            throw NotTranslatable(reason: "\(keyPath) is not a stored property")
        }
        if metadata.valueType == Decimal.self || metadata.valueType == Decimal?.self {
            throw NotTranslatable(reason: "Decimal values are compared as numbers by evaluating models")
        }
        if [UInt64.self, UInt64?.self, UInt.self, UInt?.self].contains(where: { $0 == metadata.valueType }) {
            // Values above Int64.max are stored as text, which no stored comparison orders as numbers.
            throw NotTranslatable(reason: "unsigned 64-bit values are compared by evaluating models")
        }
        if let attribute = entity.attributesByName[name], attribute.isCodable {
            throw NotTranslatable(reason: "\(name) is opaque")
        }
        return (name, FieldConversion.of(metadata.valueType))
    }

    /// The entity names a type check or cast accepts: the model's entity and its descendants.
    func entities(of type: Any.Type) throws -> Set<String> {
        guard let model = type as? any PersistentModel.Type, let entity = schema.entitiesByName[model._folioEntityName] else {
            throw NotTranslatable(reason: "\(type) is not a model in the schema")
        }
        return Set(entity.selfAndDescendants.map(\.name))
    }

    /// A constant, in the form stored values are compared in.
    func constant<Value>(_ value: Value) throws -> QueryValue {
        if let optional = value as? any _OptionalValue {
            guard let wrapped = optional._wrappedValue else { return .null }
            return try constant(wrapped)
        }
        if let model = value as? any PersistentModel {
            let id = model.persistentModelID
            return .record(id.recordNumber ?? -Int64(truncatingIfNeeded: id.id.temporaryNumber ?? 0))
        }
        if let date = value as? Date { return .date(date.timeIntervalSinceReferenceDate) }
        // NaN and the infinities stay numbers (stored, they are strings: JSON has no form for them).
        if let number = value as? Double { return .double(number) }
        if let number = value as? Float { return .double(Double(number)) }
        if let dates = value as? [Date] { return .array(dates.map { .date($0.timeIntervalSinceReferenceDate) }) }
        if let dates = value as? Set<Date> { return .array(dates.sorted().map { .date($0.timeIntervalSinceReferenceDate) }) }
        if let order = value as? ComparisonResult { return .int(Int64(order.rawValue)) }
        if value is Decimal { throw NotTranslatable(reason: "Decimal constants are compared by evaluating models") }
        if let special = try ValueEncoder.encodeSpecial(value, codingPath: []) { return QueryValue(json: special) }
        if let encodable = value as? any Encodable {
            return QueryValue(json: try ValueEncoder.encode(encodable))
        }
        throw NotTranslatable(reason: "\(Value.self) cannot be stored")
    }
}

/// Lets translation recognise `count` and `isEmpty` of collections.
protocol _CollectionKeyPaths {
    static var _countKeyPath: AnyKeyPath { get }
    static var _isEmptyKeyPath: AnyKeyPath { get }
}

extension Array: _CollectionKeyPaths {
    static var _countKeyPath: AnyKeyPath { \Self.count }
    static var _isEmptyKeyPath: AnyKeyPath { \Self.isEmpty }
}

extension Set: _CollectionKeyPaths {
    static var _countKeyPath: AnyKeyPath { \Self.count }
    static var _isEmptyKeyPath: AnyKeyPath { \Self.isEmpty }
}

extension String: _CollectionKeyPaths {
    static var _countKeyPath: AnyKeyPath { \Self.count }
    static var _isEmptyKeyPath: AnyKeyPath { \Self.isEmpty }
}

// MARK: Leaves

extension PredicateExpressions.Variable: QueryTranslatable {
    func translate(_ context: inout TranslationContext) throws -> QueryNode {
        context.substitution(for: key) ?? .variable(context.slot(for: key))
    }
}

extension PredicateExpressions.Value: QueryTranslatable {
    func translate(_ context: inout TranslationContext) throws -> QueryNode {
        .constant(try context.constant(value))
    }
}

extension PredicateExpressions.NilLiteral: QueryTranslatable {
    func translate(_ context: inout TranslationContext) throws -> QueryNode {
        .constant(.null)
    }
}

extension PredicateExpressions.KeyPath: QueryTranslatable where Root: QueryTranslatable {
    func translate(_ context: inout TranslationContext) throws -> QueryNode {
        let base = try root.translate(&context)
        let rootType = Root.Output.self
        if let model = rootType as? any PersistentModel.Type {
            let (name, conversion) = try context.field(of: model, keyPath: keyPath)
            return .field(base, name: name, conversion: conversion)
        }
        if let collection = rootType as? any _CollectionKeyPaths.Type {
            if keyPath == collection._countKeyPath { return .count(base) }
            if keyPath == collection._isEmptyKeyPath { return .isEmpty(base) }
        }
        throw NotTranslatable(reason: "\(keyPath) reaches inside a stored value")
    }
}

// MARK: Equality and comparison

extension PredicateExpressions.Equal: QueryTranslatable where LHS: QueryTranslatable, RHS: QueryTranslatable {
    func translate(_ context: inout TranslationContext) throws -> QueryNode {
        .equal(try lhs.translate(&context), try rhs.translate(&context))
    }
}

extension PredicateExpressions.NotEqual: QueryTranslatable where LHS: QueryTranslatable, RHS: QueryTranslatable {
    func translate(_ context: inout TranslationContext) throws -> QueryNode {
        .notEqual(try lhs.translate(&context), try rhs.translate(&context))
    }
}

extension PredicateExpressions.Comparison: QueryTranslatable where LHS: QueryTranslatable, RHS: QueryTranslatable {
    func translate(_ context: inout TranslationContext) throws -> QueryNode {
        let operation: QueryNode.ComparisonOperator
        switch op {
        case .lessThan: operation = .less
        case .lessThanOrEqual: operation = .lessOrEqual
        case .greaterThan: operation = .greater
        case .greaterThanOrEqual: operation = .greaterOrEqual
        @unknown default: throw NotTranslatable(reason: "unknown comparison")
        }
        return .compare(try lhs.translate(&context), operation, try rhs.translate(&context))
    }
}

// MARK: Logic

extension PredicateExpressions.Conjunction: QueryTranslatable where LHS: QueryTranslatable, RHS: QueryTranslatable {
    func translate(_ context: inout TranslationContext) throws -> QueryNode {
        .and(try lhs.translate(&context), try rhs.translate(&context))
    }
}

extension PredicateExpressions.Disjunction: QueryTranslatable where LHS: QueryTranslatable, RHS: QueryTranslatable {
    func translate(_ context: inout TranslationContext) throws -> QueryNode {
        .or(try lhs.translate(&context), try rhs.translate(&context))
    }
}

extension PredicateExpressions.Negation: QueryTranslatable where Wrapped: QueryTranslatable {
    func translate(_ context: inout TranslationContext) throws -> QueryNode {
        .not(try wrapped.translate(&context))
    }
}

extension PredicateExpressions.Conditional: QueryTranslatable
where Test: QueryTranslatable, If: QueryTranslatable, Else: QueryTranslatable {
    func translate(_ context: inout TranslationContext) throws -> QueryNode {
        .conditional(try test.translate(&context), try trueBranch.translate(&context), try falseBranch.translate(&context))
    }
}

// MARK: Arithmetic

extension PredicateExpressions.Arithmetic: QueryTranslatable where LHS: QueryTranslatable, RHS: QueryTranslatable {
    func translate(_ context: inout TranslationContext) throws -> QueryNode {
        let operation: QueryNode.ArithmeticOperator
        switch op {
        case .add: operation = .add
        case .subtract: operation = .subtract
        case .multiply: operation = .multiply
        @unknown default: throw NotTranslatable(reason: "unknown arithmetic")
        }
        return .arithmetic(try lhs.translate(&context), operation, try rhs.translate(&context))
    }
}

extension PredicateExpressions.IntDivision: QueryTranslatable where LHS: QueryTranslatable, RHS: QueryTranslatable {
    func translate(_ context: inout TranslationContext) throws -> QueryNode {
        .arithmetic(try lhs.translate(&context), .divide, try rhs.translate(&context))
    }
}

extension PredicateExpressions.IntRemainder: QueryTranslatable where LHS: QueryTranslatable, RHS: QueryTranslatable {
    func translate(_ context: inout TranslationContext) throws -> QueryNode {
        .arithmetic(try lhs.translate(&context), .remainder, try rhs.translate(&context))
    }
}

extension PredicateExpressions.FloatDivision: QueryTranslatable where LHS: QueryTranslatable, RHS: QueryTranslatable {
    func translate(_ context: inout TranslationContext) throws -> QueryNode {
        .arithmetic(try lhs.translate(&context), .divide, try rhs.translate(&context))
    }
}

extension PredicateExpressions.UnaryMinus: QueryTranslatable where Wrapped: QueryTranslatable {
    func translate(_ context: inout TranslationContext) throws -> QueryNode {
        .negate(try wrapped.translate(&context))
    }
}

// MARK: Optionals

extension PredicateExpressions.OptionalFlatMap: QueryTranslatable where LHS: QueryTranslatable, RHS: QueryTranslatable {
    func translate(_ context: inout TranslationContext) throws -> QueryNode {
        let base = try wrapped.translate(&context)
        let slot = context.slot(for: variable.key)
        return .flatMap(base, slot: slot, try transform.translate(&context))
    }
}

extension PredicateExpressions.NilCoalesce: QueryTranslatable where LHS: QueryTranslatable, RHS: QueryTranslatable {
    func translate(_ context: inout TranslationContext) throws -> QueryNode {
        .nilCoalesce(try lhs.translate(&context), try rhs.translate(&context))
    }
}

extension PredicateExpressions.ForcedUnwrap: QueryTranslatable where Inner: QueryTranslatable {
    func translate(_ context: inout TranslationContext) throws -> QueryNode {
        .forceUnwrap(try inner.translate(&context))
    }
}

// MARK: Strings and sequences

extension PredicateExpressions.CollectionContainsCollection: QueryTranslatable
where Base: QueryTranslatable, Other: QueryTranslatable {
    func translate(_ context: inout TranslationContext) throws -> QueryNode {
        guard Base.Output.self == String.self || Base.Output.self == Substring.self else {
            throw NotTranslatable(reason: "contains on a non-string collection")
        }
        return .stringContains(try base.translate(&context), try other.translate(&context))
    }
}

extension PredicateExpressions.SequenceStartsWith: QueryTranslatable where Base: QueryTranslatable, Prefix: QueryTranslatable {
    func translate(_ context: inout TranslationContext) throws -> QueryNode {
        guard Base.Output.self == String.self else { throw NotTranslatable(reason: "starts(with:) on a non-string") }
        return .startsWith(try base.translate(&context), try prefix.translate(&context))
    }
}

extension PredicateExpressions.SequenceContains: QueryTranslatable
where LHS: QueryTranslatable, RHS: QueryTranslatable {
    func translate(_ context: inout TranslationContext) throws -> QueryNode {
        .sequenceContains(try sequence.translate(&context), try element.translate(&context))
    }
}

extension PredicateExpressions.SequenceContainsWhere: QueryTranslatable
where LHS: QueryTranslatable, RHS: QueryTranslatable {
    func translate(_ context: inout TranslationContext) throws -> QueryNode {
        let base = try sequence.translate(&context)
        let slot = context.slot(for: variable.key)
        return .containsWhere(base, slot: slot, try test.translate(&context))
    }
}

extension PredicateExpressions.SequenceAllSatisfy: QueryTranslatable
where LHS: QueryTranslatable, RHS: QueryTranslatable {
    func translate(_ context: inout TranslationContext) throws -> QueryNode {
        let base = try sequence.translate(&context)
        let slot = context.slot(for: variable.key)
        return .allSatisfy(base, slot: slot, try test.translate(&context))
    }
}

// MARK: Types

extension PredicateExpressions.TypeCheck: QueryTranslatable where Input: QueryTranslatable {
    func translate(_ context: inout TranslationContext) throws -> QueryNode {
        .typeCheck(try input.translate(&context), try context.entities(of: Desired.self))
    }
}

extension PredicateExpressions.ConditionalCast: QueryTranslatable where Input: QueryTranslatable {
    func translate(_ context: inout TranslationContext) throws -> QueryNode {
        .conditionalCast(try input.translate(&context), try context.entities(of: Desired.self))
    }
}

// MARK: Nested predicates

#if !canImport(Darwin)
    extension PredicateExpressions.FolioPredicateEvaluate: QueryTranslatable {
        /// Inlines the nested predicate: its condition is translated with its variable standing for the
        /// argument, so that the planner sees (and indexes) the inner comparisons as if written in place.
        func translate(_ context: inout TranslationContext) throws -> QueryNode {
            guard let argument = input as? any QueryTranslatable else {
                throw NotTranslatable(reason: "the argument of a nested predicate is not translatable")
            }
            // The nested predicate is a constant (a captured value); one computed from the outer
            // predicate's variables needs a record, which only evaluating models provides.
            guard let inner = try? predicate.evaluate(PredicateBindings()) else {
                throw NotTranslatable(reason: "the nested predicate depends on the record")
            }
            guard let condition = inner.expression as? any QueryTranslatable else {
                throw NotTranslatable(reason: "the nested predicate is not translatable")
            }
            let node = try argument.translate(&context)
            return try context.substituting(inner.variable.key, with: node) { try condition.translate(&$0) }
        }
    }
#endif
