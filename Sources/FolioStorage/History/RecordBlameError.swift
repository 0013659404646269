import Foundation

/// Why a record cannot be blamed.
package enum RecordBlameError: Error, Hashable, Sendable, CustomStringConvertible {
    /// No record has the identifier, and no retained transaction deleted one that had it.
    case noRecord(id: Int64)
    /// The record was deleted by a retained transaction: it has no values to blame.
    case deleted(entity: String, id: Int64, by: RecordBlame.Setter)

    package var description: String {
        switch self {
        case .noRecord(let id):
            return "no record has identifier \(id), and no retained transaction deleted one"
        case .deleted(let entity, let id, let setter):
            return "\(entity) \(id) was deleted by transaction \(setter.sequence) (\(setter.transactionID))"
        }
    }
}
