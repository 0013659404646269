import Foundation
import FolioStorage

/// A fetch descriptor compiled for planning: the entities it reads, its predicate and sort as nodes over
/// stored records where they translate, and the window. It has no generic parameter; what only the
/// model type can do (evaluate an untranslated predicate, compare by an untranslated sort, recognise a
/// model of the fetched type) is kept as closures that capture it.
struct LogicalQuery {
    /// The fetched entity and its subentities.
    var entities: Set<String>
    /// The predicate over stored records; nil when there is none or it does not translate.
    var filter: QueryNode?
    /// Whether the descriptor has a predicate at all.
    var hasPredicate: Bool
    /// The sort over stored fields (empty: identifier order); nil when some descriptor does not translate.
    var sortKeys: [SortKey]?
    var fetchLimit: Int?
    var fetchOffset: Int?
    var includePendingChanges: Bool

    /// Whether a model is of the fetched type.
    var isFetchedType: (any PersistentModel) -> Bool
    /// The whole predicate on a model, for a predicate that does not translate (true without one).
    var evaluateOnModel: (any PersistentModel) throws -> Bool
    /// The descriptor's sort on two models of the fetched type, for a sort that does not translate.
    var compareModels: (any PersistentModel, any PersistentModel) -> ComparisonResult

    /// Whether the predicate is evaluated on models rather than records.
    var filtersModels: Bool { hasPredicate && filter == nil }

    /// How many rows the window keeps at most from the front of the sorted result, offset included.
    /// Nil without a limit; a negative limit is none, and a sum past `Int.max` is `Int.max`.
    var wanted: Int? {
        guard let limit = fetchLimit, limit >= 0 else { return nil }
        let (sum, overflow) = limit.addingReportingOverflow(max(0, fetchOffset ?? 0))
        return overflow ? .max : sum
    }

    /// Compiles `descriptor` against `schema`.
    ///
    /// - Throws: ``FolioError/Code/invalidFetchDescriptor`` when `T` is not in the schema (an entity of
    ///   that name whose class is another, such as one whose records stand in as a superclass's, is not
    ///   `T`'s), or when an untranslated predicate or sort reaches inside a `.codable` attribute.
    static func compile<T: PersistentModel>(_ descriptor: FetchDescriptor<T>, schema: Schema) throws -> LogicalQuery {
        guard let entity = schema.entitiesByName[T._folioEntityName], ObjectIdentifier(entity.modelType) == ObjectIdentifier(T.self) else {
            throw FolioError(.invalidFetchDescriptor, "\(T.self) is not in the container's schema; add it to the ModelContainer")
        }
        var translation = TranslationContext(schema: schema)
        var filter: QueryNode?
        if let predicate = descriptor.predicate, let translatable = predicate.expression as? any QueryTranslatable {
            filter = try? translatable.translate(&translation)
        }
        let sortKeys = sortKeys(descriptor.sortBy, schema: schema)
        // A translated predicate or sort only names stored properties that are not `.codable` (the
        // translator refuses the rest), so only untranslated ones need the check that nothing reaches
        // inside an opaque value; it reflects over the expression tree, which costs more than a fetch.
        if let predicate = descriptor.predicate, filter == nil {
            try OpaqueAttributeCheck.check(predicateExpression: predicate.expression, schema: schema)
        }
        if sortKeys == nil {
            for sort in descriptor.sortBy {
                if let keyPath = sort.keyPath { try OpaqueAttributeCheck.check(sortKeyPath: keyPath, schema: schema) }
            }
        }
        let predicate = descriptor.predicate
        let sortBy = descriptor.sortBy
        return LogicalQuery(
            entities: Set(entity.selfAndDescendants.map(\.name)),
            filter: filter,
            hasPredicate: predicate != nil,
            sortKeys: sortKeys,
            fetchLimit: descriptor.fetchLimit,
            fetchOffset: descriptor.fetchOffset,
            includePendingChanges: descriptor.includePendingChanges,
            isFetchedType: { $0 is T },
            evaluateOnModel: { model in
                guard let predicate else { return true }
                guard let model = model as? T else { return false }
                return try predicate.evaluate(model)
            },
            compareModels: { lhs, rhs in
                guard let lhs = lhs as? T, let rhs = rhs as? T else { return .orderedSame }
                for sort in sortBy {
                    let order = sort.compare(lhs, rhs)
                    if order != .orderedSame { return order }
                }
                return .orderedSame
            })
    }

    /// The sort descriptors as stored fields, or nil when one of them cannot be done over records.
    private static func sortKeys<T: PersistentModel>(_ sortBy: [SortDescriptor<T>], schema: Schema) -> [SortKey]? {
        var keys: [SortKey] = []
        var translation = TranslationContext(schema: schema)
        for sort in sortBy {
            // A localized comparator (`.localizedStandard`, the default for strings on Apple platforms)
            // is Foundation's to apply: the models are compared with the descriptor itself.
            if let comparator = sort.stringComparator, comparator != String.StandardComparator(.lexical, order: comparator.order) {
                return nil
            }
            guard let keyPath = sort.keyPath, let (name, conversion) = try? translation.field(of: T.self, keyPath: keyPath) else {
                return nil
            }
            if conversion == .toOne || conversion == .toMany { return nil }
            keys.append(SortKey(name: name, conversion: conversion, forward: sort.order == .forward))
        }
        return keys
    }
}

/// A sort descriptor as a stored field.
struct SortKey {
    var name: String
    var conversion: FieldConversion
    var forward: Bool
    /// The stored value records without one for the field sort as: its stored default, which the
    /// executor fills in from the index (see ``StoredDefaults``).
    var missing: JSONValue? = nil

    /// The key of a record's values.
    func value(in values: RecordValues?) -> QueryValue {
        guard let values else { return .null }
        return QueryValue(stored: values[name] ?? missing, conversion: conversion)
    }

    /// The documented order (docs/queries.md, "Ordering"): nil first, then values in ascending order
    /// (``QueryValue/sortsBefore(_:_:)``).
    static func ascending(_ a: QueryValue, _ b: QueryValue) -> Bool {
        if a.isNull { return !b.isNull }
        if b.isNull { return false }
        return QueryValue.sortsBefore(a, b)
    }
}
