import Foundation
import FolioStorage

/// A point in a store's past, as `--at`, `--from` and `--to` name it: a transaction's sequence (`12`
/// or `#12`, as `folio log` and history tokens print it), a transaction's identifier (the UUID
/// `folio log` prints beside its sequence), or anything else, a git revision (`HEAD~2`, `v1.2`, a
/// commit hash) of the repository the store is in.
enum StorePoint: Equatable, CustomStringConvertible {
    case sequence(UInt64)
    case transaction(String)
    case revision(String)

    init(_ text: String) {
        let digits = text.hasPrefix("#") ? String(text.dropFirst()) : text
        if !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let sequence = UInt64(digits) {
            self = .sequence(sequence)
        } else if UUID(uuidString: text) != nil {
            self = .transaction(text.uppercased())
        } else {
            self = .revision(text)
        }
    }

    var description: String {
        switch self {
        case .sequence(let sequence): "transaction \(sequence)"
        case .transaction(let id): "transaction \(id)"
        case .revision(let revision): "revision \(revision)"
        }
    }

    /// The help line of an option that takes a point.
    static let help = "a transaction (12, #12 or its id, as 'folio log' prints them) or a git revision (HEAD~2, v1.2)"
}

extension StoreAccess {
    /// Opens a store read-only as it was at `point` (as it is now when nil): from its own files'
    /// retained history for a transaction, from git's objects for a revision. Nothing is written.
    static func openReadOnly(_ path: String, at point: StorePoint?, defersLoadingRecords: Bool = false) throws -> Store {
        guard let point else { return try openReadOnly(path, defersLoadingRecords: defersLoadingRecords) }
        do {
            switch point {
            case .sequence(let sequence):
                return try Store.past(asOf: sequence, at: try directory(path))
            case .transaction(let id):
                let url = try directory(path)
                let current = try openReadOnly(path)
                defer { current.close() }
                guard let found = try current.retainedHistory().first(where: { $0.transactionID.uppercased() == id }) else {
                    throw CommandFailure(
                        "The store at '\(path)' has no retained transaction \(id).",
                        help: "Run 'folio log \(path)' for the transactions it retains, or name one by its sequence.")
                }
                return try Store.past(asOf: found.sequence, transactionID: found.transactionID, at: url)
            case .revision(let revision):
                return try Store.open(gitRevision: revision, at: try directory(path, mustExist: false))
            }
        } catch let error as StorageError {
            throw pastFailure(error, path: path, point: point)
        }
    }

    /// A storage error met reading a store's past, with a remedy.
    static func pastFailure(_ error: StorageError, path: String, point: StorePoint) -> CommandFailure {
        let remedy: String
        switch error.code {
        case .historyExpired, .missingSequence:
            remedy =
                "Run 'folio log \(path)' for the transactions the store retains; historyRetention decides how far back it reaches (see docs/past.md)."
        case .unknownRevision:
            remedy = "Run 'git log -- \(path)' for the commits that touched the store."
        case .noStoreAtRevision:
            remedy = "Run 'git log -- \(path)' for the commits that hold the store."
        case .notAGitRepository:
            remedy = "A revision needs the store to be in a git work tree; a transaction is named by its sequence (see 'folio log \(path)')."
        case .gitNotFound:
            remedy = "Install git, or put it on PATH."
        default:
            return failure(error, path: path)
        }
        return CommandFailure("The store at '\(path)' cannot be read as of \(point): \(error)", help: remedy)
    }
}
