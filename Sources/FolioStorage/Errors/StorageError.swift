import Foundation

/// An error raised by the storage engine.
///
/// Every error has a stable ``code`` that programs can switch on, a ``message`` that says what went
/// wrong and what to do about it, and, where it applies, the ``file``, 1-based ``line`` and ``offset``
/// (byte offset of the start of the line, or of the problem) it concerns.
///
/// ```swift
/// do { _ = try Store.open(at: url) }
/// catch let error as StorageError where error.code == .checksumMismatch { print(error) }
/// ```
public struct StorageError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The kind of problem. New codes may be added; switch with a `default`.
    public var code: Code
    /// What is wrong, and what to do about it.
    public var message: String
    /// The file concerned, if any.
    public var file: String?
    /// The 1-based line in ``file``, if any.
    public var line: Int?
    /// The byte offset in ``file`` of the line or of the problem, if any.
    public var offset: Int64?
    /// The `errno` of a failed system call, if any.
    public var errno: Int32?

    /// Creates an error.
    package init(
        _ code: Code, _ message: String, file: String? = nil, line: Int? = nil, offset: Int64? = nil,
        errno: Int32? = nil
    ) {
        self.code = code
        self.message = message
        self.file = file
        self.line = line
        self.offset = offset
        self.errno = errno
    }

    /// A one-paragraph description: `file:line (byte N): [code] message`.
    public var description: String {
        var prefix = ""
        if let file {
            prefix += file
            if let line { prefix += ":\(line)" }
            if let offset { prefix += " (byte \(offset))" }
            prefix += ": "
        }
        var text = "\(prefix)[\(code.rawValue)] \(message)"
        if let errno { text += " (errno \(errno): \(String(cString: strerror(errno))))" }
        return text
    }
}

/// Lets `catch StorageError.Code.checksumMismatch` match an error by its code.
public func ~= (code: StorageError.Code, error: any Error) -> Bool {
    (error as? StorageError)?.code == code
}

extension StorageError {
    /// A stable identifier for a kind of storage problem.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The code's stable name, as printed in descriptions.
        public var rawValue: String
        /// Creates a code from its name.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The code's name.
        public var description: String { rawValue }

        // JSON
        /// A JSON text is malformed (bad token, escape, surrogate, duplicate key, trailing data...).
        public static let invalidJSON = Code(rawValue: "invalidJSON")
        /// A value cannot be written as canonical JSON (for example a non-finite double).
        public static let unencodableValue = Code(rawValue: "unencodableValue")
        // Files
        /// A line's checksum does not match its content: the file was damaged or edited.
        public static let checksumMismatch = Code(rawValue: "checksumMismatch")
        /// A line is valid JSON but not a valid journal transaction, snapshot record or manifest.
        public static let malformedLine = Code(rawValue: "malformedLine")
        /// A file contains git merge-conflict markers.
        public static let mergeConflict = Code(rawValue: "mergeConflict")
        /// Two journal lines carry the same sequence number.
        public static let duplicateSequence = Code(rawValue: "duplicateSequence")
        /// A sequence number is missing from the journal.
        public static let missingSequence = Code(rawValue: "missingSequence")
        /// The store was written by a newer version of Folio.
        public static let newerFormatVersion = Code(rawValue: "newerFormatVersion")
        /// A record belongs to an entity the configuration does not know.
        public static let unknownEntity = Code(rawValue: "unknownEntity")
        /// The store's files disagree with each other (for example a record updated before it exists).
        public static let inconsistentStore = Code(rawValue: "inconsistentStore")
        /// The manifest is missing while other store files exist, or is not a Folio manifest.
        public static let missingManifest = Code(rawValue: "missingManifest")
        /// The journal ends in damaged bytes larger than the configured torn-tail limit.
        public static let tailTooLarge = Code(rawValue: "tailTooLarge")
        /// A line is longer than ``StoreConfiguration/maximumLineBytes``: refused after reading that many bytes.
        public static let lineTooLong = Code(rawValue: "lineTooLong")
        /// A store file is not a regular file (a FIFO, a device, a directory or a socket in its place).
        public static let notRegularFile = Code(rawValue: "notRegularFile")
        /// A store file is a symbolic link leading out of the store directory.
        public static let outsideStore = Code(rawValue: "outsideStore")
        // Writes
        /// A write was attempted on a read-only store.
        public static let readOnly = Code(rawValue: "readOnly")
        /// An earlier write or fsync failed; the store refuses writes until it is reopened.
        public static let storePoisoned = Code(rawValue: "storePoisoned")
        /// Something that does not take the store's lock (git checking out, merging, pulling or
        /// resetting) replaced the journal while a save was written to it: the save is in no file, so it
        /// failed. Save again: the store reloads what replaced it first.
        public static let filesReplaced = Code(rawValue: "filesReplaced")
        /// A transaction refers to a record that does not exist, or inserts one that does.
        public static let invalidTransaction = Code(rawValue: "invalidTransaction")
        /// A compaction was asked of a store that holds records a git merge kept for a migration's custom
        /// stage (see ``AwaitingStage``): open it with the migration plan first.
        public static let recordsAwaitingStage = Code(rawValue: "recordsAwaitingStage")
        /// An insert used an identifier that was not allocated for it (identifiers are never reused).
        public static let identifierNotAllocated = Code(rawValue: "identifierNotAllocated")
        /// An entity name cannot be used as a snapshot file name.
        public static let invalidEntityName = Code(rawValue: "invalidEntityName")
        /// A blob hash is malformed, or the blob it names is missing or damaged.
        public static let blobNotFound = Code(rawValue: "blobNotFound")
        /// The requested history is older than what the store retains.
        public static let historyExpired = Code(rawValue: "historyExpired")
        /// A system call failed.
        public static let ioFailure = Code(rawValue: "ioFailure")
        /// The store is closed.
        public static let closed = Code(rawValue: "closed")
        /// A call that takes the store's writer lock (a write, a refresh, a compaction, a sync, waiting
        /// for a compaction) was made from inside a ``Store/write(author:_:)`` body on the same thread,
        /// where it would wait for itself forever. Make it after the write returns.
        public static let reentrantCall = Code(rawValue: "reentrantCall")
        // Git revisions (a store read as of a commit, see `docs/git.md`)
        /// No `git` executable was found (on `PATH`, or where the caller said it is).
        public static let gitNotFound = Code(rawValue: "gitNotFound")
        /// The directory is not in a git repository (or is not one).
        public static let notAGitRepository = Code(rawValue: "notAGitRepository")
        /// The repository has no commit by that name (a branch, tag, commit or revision expression).
        public static let unknownRevision = Code(rawValue: "unknownRevision")
        /// The commit holds no store at that path: no such folder, or one without a store's files.
        public static let noStoreAtRevision = Code(rawValue: "noStoreAtRevision")
        /// `git` failed for another reason (its message is quoted), or answered something unexpected.
        public static let gitFailed = Code(rawValue: "gitFailed")
    }
}

extension StorageError {
    package static func io(_ operation: String, path: String, errno: Int32) -> StorageError {
        StorageError(
            .ioFailure, "\(operation) failed; check free space and permissions, then retry or reopen the store",
            file: path, errno: errno)
    }
}
