/// One saved transaction of a store's persistent history, as SwiftData's `HistoryTransaction`.
public protocol HistoryTransaction: Hashable, Identifiable, Sendable {
    /// The type of the transaction's position in the history.
    associatedtype TokenType: Comparable, Hashable, Sendable
    /// The type of the transaction's number.
    associatedtype TransactionIdentifier: Comparable, Hashable, Sendable
    /// The saving context's `author`, if it had one.
    var author: String? { get }
    /// The transaction's inserts, updates and deletes, in record order.
    var changes: [HistoryChange] { get }
    /// The identifier of the store the transaction was saved to.
    var storeIdentifier: String { get }
    /// When the transaction was saved, to the millisecond.
    var timestamp: Date { get }
    /// The transaction's position in the history, to continue reading after it.
    var token: TokenType { get }
    /// The transaction's number in its store.
    var transactionIdentifier: TransactionIdentifier { get }
}

/// A transaction of a Folio store's history: one journal line.
public struct DefaultHistoryTransaction: HistoryTransaction, CustomStringConvertible {
    /// The store the transaction was saved to.
    public let storeIdentifier: String
    /// Not recorded by Folio; empty.
    public let bundleIdentifier: String = ""
    /// Not recorded by Folio; empty.
    public let processIdentifier: String = ""
    /// The transaction's sequence number in the store (the same as `token.sequence`).
    public let transactionIdentifier: UInt64
    /// The journal's UUID for the transaction.
    public let journalIdentifier: String
    /// The position of this transaction, to resume from.
    public let token: DefaultHistoryToken
    /// The `author` of the context that saved it.
    public let author: String?
    /// What the transaction inserted, updated and deleted.
    public let changes: [HistoryChange]
    /// When it was saved (millisecond precision).
    public let timestamp: Date

    public var id: Int64 { Int64(truncatingIfNeeded: transactionIdentifier) }

    public var description: String {
        "\(token) \(author ?? "-") \(changes.count) change\(changes.count == 1 ? "" : "s")"
    }

    public static func == (lhs: DefaultHistoryTransaction, rhs: DefaultHistoryTransaction) -> Bool {
        lhs.storeIdentifier == rhs.storeIdentifier && lhs.transactionIdentifier == rhs.transactionIdentifier
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(storeIdentifier)
        hasher.combine(transactionIdentifier)
    }
}

/// Which history to fetch: a predicate over transactions (token, author, timestamp), a sort and a limit.
public struct HistoryDescriptor<TransactionType: HistoryTransaction> {
    /// Which transactions to return; nil for all that are retained.
    public var predicate: Predicate<TransactionType>?
    /// The order; by default oldest first.
    public var sortBy: [SortDescriptor<TransactionType>]
    /// The greatest number of transactions to return; 0 for no limit.
    public var fetchLimit: Int = 0

    /// A descriptor with a predicate, oldest transactions first.
    public init(predicate: Predicate<TransactionType>? = nil) {
        self.predicate = predicate
        self.sortBy = []
    }

    /// A descriptor with a predicate and an order.
    public init(predicate: Predicate<TransactionType>? = nil, sortBy: [SortDescriptor<TransactionType>] = []) {
        self.predicate = predicate
        self.sortBy = sortBy
    }
}
