/// How a fetch is carried out; tests and tools read it to see whether an index is used.
public struct QueryPlan: CustomStringConvertible, Sendable {
    /// How candidates are found.
    public enum Access: Equatable, Sendable {
        /// Every record of the entities is considered.
        case scan
        /// An index on the property gives the candidates (equality, `||` of equalities, or a range).
        case index(String)
        /// The sorted index on the property is walked in order until the limit is reached.
        case orderedIndex(String)
    }

    /// How candidates are found.
    public internal(set) var access: Access = .scan
    /// Whether the predicate is evaluated over stored records (true) or on models (false).
    public internal(set) var filtersRecords = true
    /// Whether the sort is done over stored records (true) or on models (false).
    public internal(set) var sortsRecords = true

    public var description: String {
        var parts: [String] = []
        switch access {
        case .scan: parts.append("scan")
        case .index(let name): parts.append("index on \(name)")
        case .orderedIndex(let name): parts.append("ordered index on \(name)")
        }
        parts.append(filtersRecords ? "filter records" : "filter models")
        parts.append(sortsRecords ? "sort records" : "sort models")
        return parts.joined(separator: ", ")
    }
}
