import Foundation

/// A store in memory that starts from another store's state, where a schema migration's custom stages
/// run their code before anything is written to the store itself.
extension Store {
    /// A new in-memory store holding the records, identifier counter and schema that `transaction` sees,
    /// with no history. Blobs it does not hold are read from this store's directory; nothing it does
    /// reaches this store's files.
    ///
    /// - Throws: ``StorageError/Code/invalidTransaction`` if `transaction` already holds changes: the copy
    ///   is of the state it started from.
    package func stagingCopy(of transaction: WriteTransaction) throws -> Store {
        guard transaction.isEmpty else {
            throw StorageError(.invalidTransaction, "a staging copy is made before the transaction changes anything")
        }
        var loaded = LoadedStore()
        loaded.state = transaction.base
        var staged = configuration
        staged.readOnly = false
        staged.knownEntities = nil
        staged.compactionThreshold = nil
        staged.defersLoadingRecords = false
        staged.checksLinesInMemory = false
        // Its records are inserted again in this store, with the identifiers the copy allocated.
        staged.fixedIdentifierBlock = transaction.allocationBlock ?? IdentifierBlocks.block(of: transaction.nextAllocatedID)
        return Store(directory: nil, configuration: staged, loaded: loaded, blobFallbackDirectory: paths?.directory)
    }

    /// The blobs written to this in-memory store, by hash (empty for a store on disk).
    package var blobsWrittenInMemory: [String: Data] {
        withReadState { $0.memoryBlobs }
    }
}
