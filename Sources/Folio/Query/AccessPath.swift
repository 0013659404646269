/// How the executor finds a query's candidate rows, chosen by ``QueryPlanner`` from the index alone.
enum AccessPath {
    /// Walk the sorted index on the one sort key in its order, keeping rows that pass the filter, until
    /// `limit` of them (offset included) are found; the result is then already filtered and sorted.
    case orderedWalk(SortKey, limit: Int)
    /// The records an index gives for one conjunct of the filter, in identifier order. `isExact` says
    /// that they are exactly the rows the whole filter selects, so it need not be evaluated on them.
    case index(field: String, probe: IndexProbe, isExact: Bool)
    /// The leading comparisons of numbers or dates with constants run over the entity's columns, the
    /// rest of the filter on the rows that pass them. When the first compared field's column is not all
    /// numbers (see ``ColumnTable/numbers(_:_:)``), this is a ``recordScan``.
    case columnScan(entity: String)
    /// The filter evaluated on every record of the entities, in the index's own table.
    case recordScan
    /// Every identifier of the entities; the filter, if any, is then evaluated on each row, with the
    /// context's unsaved changes applied, or on models when it does not translate.
    case allIdentifiers

    /// The access as ``QueryPlan`` reports it.
    var reported: QueryPlan.Access {
        switch self {
        case .orderedWalk(let key, _): return .orderedIndex(key.name)
        case .index(let field, _, _): return .index(field)
        case .columnScan, .recordScan, .allIdentifiers: return .scan
        }
    }
}

/// What an ``AccessPath/index(field:probe:isExact:)`` asks of the index on its field.
indirect enum IndexProbe {
    /// The records whose key is one of these (one key for an equality, several for an `IN` list).
    case keys([QueryKey])
    /// The records whose key compares with the bound as the operator says (nil keys never match).
    case range(QueryNode.ComparisonOperator, QueryKey)
    /// The records of either probe.
    case union(IndexProbe, IndexProbe)
}
