import Foundation
import FolioStorage

/// Where a query takes an entity's records from, in order: `folio serve` keeps orders between pages.
protocol RecordSource: Sendable {
    /// The records of `entities`, sorted by `keys` and then by identifier.
    func records(of entities: [String], sortedBy keys: [RecordQuery.SortKey], isDate: @escaping (String) -> Bool) -> OrderedRecords

    /// The records at `positions` of those ``records(of:sortedBy:isDate:)`` gives that the filters keep
    /// (all of them when `makeMatcher` is nil; positions past the end left out), and how many they keep.
    ///
    /// - Parameter makeMatcher: makes a test of records, for one thread: a source may test records on
    ///   several threads at once, each with a test of its own.
    func window(
        of entities: [String], sortedBy keys: [RecordQuery.SortKey], positions: Range<Int>, isDate: @escaping (String) -> Bool,
        matching makeMatcher: (() -> (StoredRecord) -> Bool)?
    ) -> (records: [StoredRecord], count: Int)
}

extension RecordSource {
    func window(
        of entities: [String], sortedBy keys: [RecordQuery.SortKey], positions: Range<Int>, isDate: @escaping (String) -> Bool,
        matching makeMatcher: (() -> (StoredRecord) -> Bool)?
    ) -> (records: [StoredRecord], count: Int) {
        records(of: entities, sortedBy: keys, isDate: isDate).window(positions, matching: makeMatcher)
    }
}

extension OrderedRecords {
    /// The records at `positions` among those a test `makeMatcher` makes keeps (all of them when it is
    /// nil), in order, and how many it keeps in all.
    func window(_ positions: Range<Int>, matching makeMatcher: (() -> (StoredRecord) -> Bool)?) -> (records: [StoredRecord], count: Int) {
        guard let matches = makeMatcher?() else { return (Array(self[positions.clamped(to: indices)]), count) }
        return window(positions, keeping: { matches(self[$0]) })
    }

    /// The records at `positions` among those whose position `keeps` keeps, in order, and how many it
    /// keeps in all.
    ///
    /// - Complexity: O(*n*) calls of `keeps`; only the window's records are read.
    func window(_ positions: Range<Int>, keeping keeps: (Int) -> Bool) -> (records: [StoredRecord], count: Int) {
        var kept = 0
        var records: [StoredRecord] = []
        for position in indices where keeps(position) {
            if positions.contains(kept) { records.append(self[position]) }
            kept += 1
        }
        return (records, kept)
    }
}

/// An entity's records selected the way `folio cat` and `folio serve` select them: the entity and its
/// subentities (unless exact), filtered with `--where` filters, sorted, then a window of them.
struct RecordQuery {
    /// A sort key: a field, ascending unless `descending`.
    struct SortKey: Hashable, Sendable {
        var field: String
        var descending: Bool
    }

    var entity: String
    var filters: [Filter] = []
    var sortKeys: [SortKey] = []
    /// Field names the caller asked to see; checked against the schema like filter and sort fields.
    var wantedFields: [String] = []
    /// Only records of `entity` itself, not of its subentities.
    var exact = false
    var offset = 0
    var limit: Int?

    /// The records a query selected, with what a table of them needs.
    struct Result {
        /// The entities whose records were read: `entity` first, then its subentities.
        var entities: [String]
        /// Every property name of those entities, in display order.
        var fieldNames: [String]
        /// How many records matched the filters, before `offset` and `limit`.
        var matched: Int
        /// The matching records in order, `offset` and `limit` applied.
        var records: [StoredRecord]
        /// Whether a field holds dates (from the schema).
        var isDate: (String) -> Bool
    }

    /// Why a query cannot run: an entity or field the store does not know.
    enum Problem: Error, Equatable {
        case unknownEntity(String, suggestion: String?, known: [String])
        case unknownField(String, entity: String, suggestion: String?, fields: [String])

        /// One sentence naming the problem (without the store).
        var message: String {
            switch self {
            case .unknownEntity(let name, _, _): return "Unknown entity '\(name)'"
            case .unknownField(let field, let entity, _, _): return "Unknown field '\(field)' for \(entity)."
            }
        }

        /// What to do about it: the closest name, or the names there are.
        var help: String {
            switch self {
            case .unknownEntity(_, let suggestion, let known):
                return suggestion.map { "Did you mean '\($0)'?" }
                    ?? (known.isEmpty ? "The store holds no records." : "Entities: \(known.joined(separator: ", ")).")
            case .unknownField(_, _, let suggestion, let fields):
                return suggestion.map { "Did you mean '\($0)'?" } ?? "Fields: \(fields.joined(separator: ", "))."
            }
        }
    }

    /// The entities a store knows: those with records and those its schema names, sorted.
    static func knownEntities(of store: Store, schema: SchemaInfo?) -> [String] {
        Set(store.entityNames).union(schema?.entities.keys.map { $0 } ?? []).sorted()
    }

    /// Runs the query against a store's current records.
    ///
    /// - Parameter source: Where the records come from in order; nil sorts them for this run alone (and
    ///   walks them in identifier order, keeping only the window, when there are no sort keys).
    /// - Throws: ``Problem`` for an entity the store does not know, or (when the store has a schema) a
    ///   filter, sort or wanted field that no selected entity has.
    func run(on store: Store, schema: SchemaInfo?, source: (any RecordSource)? = nil) throws(Problem) -> Result {
        let known = Self.knownEntities(of: store, schema: schema)
        guard known.contains(entity) else {
            throw .unknownEntity(entity, suggestion: EditDistance.closest(to: entity, in: known), known: known)
        }
        let entities = exact ? [entity] : (schema?.selfAndDescendants(entity) ?? [entity])
        var fieldNames: [String] = []
        if let schema {
            var seen = Set<String>()
            for name in entities {
                for property in schema.propertyNames(of: name) where seen.insert(property).inserted { fieldNames.append(property) }
            }
        }
        let isDate: (String) -> Bool = { field in entities.contains { schema?.property(field, of: $0)?.isDate ?? false } }
        if sortKeys.isEmpty && source == nil {
            if schema != nil { try checkFields(fieldNames) }
            var result = inIdentifierOrder(store: store, entities: entities, fieldNames: fieldNames, isDate: isDate)
            if fieldNames.isEmpty || schema == nil {
                // With no schema to name them, the columns are the keys the records shown hold.
                result.fieldNames = Array(Set(result.records.flatMap(\.values.keys))).sorted()
            }
            return result
        }
        // With no schema to name them, the columns are the keys the records hold: every record's when
        // sorted, the window's otherwise.
        let namedBySchema = !fieldNames.isEmpty && schema != nil
        if schema != nil, namedBySchema || sortKeys.isEmpty { try checkFields(fieldNames) }
        if let source, namedBySchema {
            // Only the window is needed: a source that has no order made yet selects it.
            let (records, count) = source.window(
                of: entities, sortedBy: sortKeys, positions: windowPositions, isDate: isDate,
                matching: filters.isEmpty ? nil : { matcher(isDate: isDate) })
            return Result(entities: entities, fieldNames: fieldNames, matched: count, records: records, isDate: isDate)
        }
        let ordered =
            source?.records(of: entities, sortedBy: sortKeys, isDate: isDate)
            ?? OrderedRecords.sorted(OrderedRecords.base(of: entities, in: store), by: sortKeys, isDate: isDate)
        if !namedBySchema, !sortKeys.isEmpty {
            fieldNames = Array(Set(ordered.flatMap(\.values.keys))).sorted()
            if schema != nil { try checkFields(fieldNames) }
        }
        var result = window(of: ordered, entities: entities, fieldNames: fieldNames, isDate: isDate)
        if !namedBySchema, sortKeys.isEmpty { result.fieldNames = Array(Set(result.records.flatMap(\.values.keys))).sorted() }
        return result
    }

    /// The records of `ordered` the filters keep, counted, and the window of them.
    ///
    /// - Complexity: O(window) without filters; otherwise one pass over `ordered`.
    private func window(of ordered: OrderedRecords, entities: [String], fieldNames: [String], isDate: @escaping (String) -> Bool) -> Result {
        let (start, end) = (windowPositions.lowerBound, windowPositions.upperBound)
        guard !filters.isEmpty else {
            let range = min(start, ordered.count)..<min(end, ordered.count)
            return Result(entities: entities, fieldNames: fieldNames, matched: ordered.count, records: Array(ordered[range]), isDate: isDate)
        }
        let matches = matcher(isDate: isDate)
        let (records, matched) = ordered.window(windowPositions, keeping: { matches(ordered[$0]) })
        return Result(entities: entities, fieldNames: fieldNames, matched: matched, records: records, isDate: isDate)
    }

    /// The positions `offset` and `limit` select, of the records the filters keep.
    private var windowPositions: Range<Int> {
        let start = max(0, offset)
        let end =
            limit.map { limit in
                let (sum, overflow) = start.addingReportingOverflow(max(0, limit))
                return overflow ? Int.max : sum
            } ?? Int.max
        return start..<end
    }

    /// Whether a record passes every filter (``Filter/matcher(isDate:)``: each filter's literals and
    /// fields worked out once, not for every record).
    private func matcher(isDate: (String) -> Bool) -> (StoredRecord) -> Bool {
        let matchers = filters.map { $0.matcher(isDate: isDate) }
        return { record in matchers.allSatisfy { $0(record) } }
    }

    /// Refuses a filter, sort or wanted field that none of `fieldNames`, `id` or `entity` is, to catch typos.
    private func checkFields(_ fieldNames: [String]) throws(Problem) {
        let checkable = Set(fieldNames + ["id", "entity"])
        let mentioned = filters.flatMap(\.fields) + sortKeys.map(\.field) + wantedFields
        for field in mentioned where !checkable.contains(field) {
            throw .unknownField(field, entity: entity, suggestion: EditDistance.closest(to: field, in: Array(checkable)), fields: fieldNames)
        }
    }

    /// Stops a walk of the store's records once the window is full.
    private struct WindowFull: Error {}

    /// The query in identifier order, the store's own: one walk that keeps only the window's records,
    /// with no array of every record and no sort. Without filters the count is the entities' counts and
    /// the walk stops at the window's end.
    private func inIdentifierOrder(store: Store, entities: [String], fieldNames: [String], isDate: @escaping (String) -> Bool) -> Result {
        // Saturating: a limit near Int.max means every record after the offset.
        let end =
            limit.map { limit in
                let (sum, overflow) = max(0, offset).addingReportingOverflow(max(0, limit))
                return overflow ? Int.max : sum
            } ?? Int.max
        let matches = matcher(isDate: isDate)
        var matched = 0
        var window: [StoredRecord] = []
        do {
            try store.currentRecords.forEachInNumberOrder(of: Set(entities)) { id, name, values in
                let record = StoredRecord(entity: name, id: id, values: values)
                guard matches(record) else { return }
                if matched >= offset, matched < end { window.append(record) }
                matched += 1
                if filters.isEmpty, matched >= end { throw WindowFull() }
            }
        } catch {
            // The window is full: without filters, every record of the entities matches.
            matched = Set(entities).reduce(0) { $0 + store.count(of: $1) }
        }
        return Result(entities: entities, fieldNames: fieldNames, matched: matched, records: window, isDate: isDate)
    }

    /// Sorts records by the keys, then by identifier (by identifier alone when there are no keys).
    static func sort(_ records: inout [StoredRecord], by keys: [SortKey], isDate: (String) -> Bool) {
        records.sort { $0.id < $1.id }
        if !keys.isEmpty { records = Array(OrderedRecords.sorted(records, by: keys, isDate: isDate)) }
    }

    /// Parses sort keys: fields separated by commas, `-field` or `field:desc` descending.
    ///
    /// - Returns: nil when a key names no field.
    static func parseSort(_ text: String) -> [SortKey]? {
        var keys: [SortKey] = []
        for part in text.split(separator: ",") {
            var field = part.trimmingCharacters(in: .whitespaces)
            var descending = false
            if field.hasPrefix("-") {
                descending = true
                field.removeFirst()
            } else if field.hasPrefix("+") {
                field.removeFirst()
            }
            if field.hasSuffix(":desc") {
                descending = true
                field.removeLast(5)
            } else if field.hasSuffix(":asc") {
                field.removeLast(4)
            }
            guard !field.isEmpty else { return nil }
            keys.append(SortKey(field: field, descending: descending))
        }
        return keys
    }
}
