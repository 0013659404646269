/// A position in a store's persistent history, as SwiftData's `HistoryToken`.
public protocol HistoryToken: Comparable, Codable, Hashable, Identifiable, Sendable {
    /// The type of the token's value.
    associatedtype TokenType: Codable, Hashable, Sendable
    /// The store this token is a position in.
    var storeIdentifier: String { get }
    /// The token's value.
    var tokenValue: TokenType? { get }
}

/// A position in a Folio store's history: the sequence number of a journal transaction, and that
/// transaction's identifier.
///
/// Tokens are `Codable`, so a sync process can persist its position and resume after a restart:
/// fetch with `#Predicate<DefaultHistoryTransaction> { $0.token > savedToken }`.
///
/// A `git merge` of a store renumbers the transactions each side added since the merge base, so a token
/// taken before the merge can name a sequence that now holds another transaction: reading on from it
/// would skip transactions the token's holder never saw. A token remembers its transaction's identifier
/// (``journalIdentifier``) to notice that: reading after a token whose sequence now holds another
/// transaction throws ``FolioError/Code/historyExpired``, as for a token older than the retained
/// history, and the reader fetches the current state again.
public struct DefaultHistoryToken: HistoryToken, CustomStringConvertible {
    /// The store this token is a position in.
    public let storeIdentifier: String
    /// The transaction's sequence number (1-based, contiguous).
    public let sequence: UInt64
    /// The journal's identifier of the transaction at ``sequence`` when the token was taken; nil for the
    /// start of a store's history, and for a token that a version of Folio without it encoded.
    public let journalIdentifier: String?

    /// The position of transaction `sequence` in a store, which had `journalIdentifier` (when known).
    public init(storeIdentifier: String, sequence: UInt64, journalIdentifier: String? = nil) {
        self.storeIdentifier = storeIdentifier
        self.sequence = sequence
        self.journalIdentifier = journalIdentifier
    }

    /// The sequence number.
    public var tokenValue: UInt64? { sequence }
    public var id: UInt64 { sequence }

    public static func < (lhs: DefaultHistoryToken, rhs: DefaultHistoryToken) -> Bool {
        lhs.sequence < rhs.sequence
    }

    public var description: String { "#\(sequence)" }
}
