/// An error from a container, a context or a fetch, with a message that says what went wrong and what
/// to do about it.
///
/// Switch on ``code`` to handle a kind of error; print the error for a person.
public struct FolioError: Error, CustomStringConvertible, Sendable {
    /// The kinds of error.
    public enum Code: String, Sendable, Hashable {
        /// The model declarations cannot make a usable schema.
        case invalidSchema
        /// The store's records do not match the schema (migration is not supported yet).
        case schemaMismatch
        /// A fetch descriptor cannot be used: for example it filters or sorts inside a `.codable` attribute.
        case invalidFetchDescriptor
        /// A save was refused by a `.deny` delete rule.
        case deleteDenied
        /// The container does not allow saving.
        case saveNotAllowed
        /// A model could not be encoded or decoded.
        case modelCoding
        /// A model belongs to another context, or to an entity the container does not know.
        case invalidModel
        /// The persistent history a token asks for is no longer retained.
        case historyExpired
        /// The storage engine failed; ``underlying`` holds its error.
        case storage
    }

    /// The kind of error.
    public let code: Code
    /// What went wrong, in words.
    public let message: String
    /// The error that caused this one, if any.
    public let underlying: (any Error)?

    /// An error of a kind, with a message and the error that caused it.
    public init(_ code: Code, _ message: String, underlying: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.underlying = underlying
    }

    public var description: String {
        if let underlying { return "\(message): \(underlying)" }
        return message
    }
}
