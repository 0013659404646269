/// An error from a container, a context or a fetch, with a message that says what went wrong and what
/// to do about it.
///
/// Switch on ``code`` to handle a kind of error; print the error for a person.
public struct FolioError: Error, CustomStringConvertible, Sendable {
    /// The kind of an error: a stable name that programs compare against. New codes may be added, so
    /// a `switch` over codes needs a `default`.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The code's stable name, as printed in descriptions.
        public let rawValue: String
        /// Creates a code from its name.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The code's name.
        public var description: String { rawValue }

        /// The model declarations cannot make a usable schema, or a migration plan cannot be used (it
        /// lists no schemas or two with one version identifier, a stage names a schema it does not
        /// list or goes nowhere, or a version has two stages leaving it the same way).
        public static let invalidSchema = Code(rawValue: "invalidSchema")
        /// The store's records do not match the schema, or the store was written by a schema version the
        /// migration plan does not know (such as a newer one).
        public static let schemaMismatch = Code(rawValue: "schemaMismatch")
        /// Opening the store needs a schema change Folio cannot infer (such as a type change); the
        /// message names the entity, the property, the old and new types and the migration stage to write.
        public static let migrationRequired = Code(rawValue: "migrationRequired")
        /// A fetch descriptor cannot be used: for example it filters or sorts inside a `.codable` attribute.
        public static let invalidFetchDescriptor = Code(rawValue: "invalidFetchDescriptor")
        /// A save was refused by a `.deny` delete rule.
        public static let deleteDenied = Code(rawValue: "deleteDenied")
        /// A change would give two records the values of one `.unique` attribute or `#Unique`
        /// constraint, and there is no record to merge into (an update by predicate); nothing was written.
        public static let uniquenessViolation = Code(rawValue: "uniquenessViolation")
        /// The container does not allow saving.
        public static let saveNotAllowed = Code(rawValue: "saveNotAllowed")
        /// A model could not be encoded or decoded.
        public static let modelCoding = Code(rawValue: "modelCoding")
        /// A model belongs to another context, or to an entity the container does not know.
        public static let invalidModel = Code(rawValue: "invalidModel")
        /// The persistent history a token asks for is no longer retained.
        public static let historyExpired = Code(rawValue: "historyExpired")
        /// A save, fetch, erase or compaction was called from inside another one on the same thread (for
        /// example from a `Codable` attribute's `encode(to:)`, which a save runs), where it would wait for
        /// itself forever; the message names both. Make the call after the outer one returns.
        public static let reentrantCall = Code(rawValue: "reentrantCall")
        /// The storage engine failed; ``underlying`` holds its error.
        public static let storage = Code(rawValue: "storage")
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

/// Lets `catch FolioError.Code.invalidModel` match an error by its code.
public func ~= (code: FolioError.Code, error: any Error) -> Bool {
    (error as? FolioError)?.code == code
}
