/// A position in a store's persistent history, as SwiftData's `HistoryToken`.
public protocol HistoryToken: Comparable, Codable, Hashable, Identifiable, Sendable {
    /// The type of the token's value.
    associatedtype TokenType: Codable, Hashable, Sendable
    /// The store this token is a position in.
    var storeIdentifier: String { get }
    /// The token's value.
    var tokenValue: TokenType? { get }
}

/// A position in a Folio store's history: the sequence number of a journal transaction.
///
/// Tokens are `Codable`, so a sync process can persist its position and resume after a restart:
/// fetch with `#Predicate<DefaultHistoryTransaction> { $0.token > savedToken }`.
public struct DefaultHistoryToken: HistoryToken, CustomStringConvertible {
    /// The store this token is a position in.
    public let storeIdentifier: String
    /// The transaction's sequence number (1-based, contiguous).
    public let sequence: UInt64

    /// The position of transaction `sequence` in a store.
    public init(storeIdentifier: String, sequence: UInt64) {
        self.storeIdentifier = storeIdentifier
        self.sequence = sequence
    }

    /// The sequence number.
    public var tokenValue: UInt64? { sequence }
    public var id: UInt64 { sequence }

    public static func < (lhs: DefaultHistoryToken, rhs: DefaultHistoryToken) -> Bool {
        lhs.sequence < rhs.sequence
    }

    public var description: String { "#\(sequence)" }
}
