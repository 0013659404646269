import Foundation

extension ModelConfiguration {
    /// A configuration that opens the store at `url` as it was right after the transaction `token` names,
    /// read-only.
    ///
    /// A container made with it answers every fetch, count, sectioned fetch, aggregate, relationship and
    /// `fetchHistory` as a container of the store that had seen only the transactions up to `token`
    /// would; `fetchHistory` returns the retained transactions up to and including `token`'s. It reads
    /// the store's files once, when the container is made, and never writes or migrates them: the
    /// store may go on being written meanwhile, and the container does not see it. Its ``allowsSave``
    /// is `false`: a save of one of its contexts throws ``FolioError/Code/saveNotAllowed``.
    ///
    /// ```swift
    /// let token = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).last!.token
    /// // ... later saves ...
    /// let then = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: storeURL, asOf: token))
    /// let tripsThen = try ModelContext(then).fetch(FetchDescriptor<Trip>())
    /// ```
    ///
    /// How far back a store reaches: every transaction still in its journal, and before that as far as
    /// the history the last compaction retained can undo (``historyRetention``; in a git work tree a
    /// compaction keeps every transaction it folds). Making the container throws
    /// ``FolioError/Code/historyExpired`` for a token older than that, naming the oldest token it reaches;
    /// for a token after the store's last transaction; and for a token whose transaction is no longer
    /// the one at its sequence (a git merge renumbered the history since it was taken), which is
    /// checked when the retained history still holds the transaction at that sequence. It throws
    /// ``FolioError/Code/schemaMismatch`` when the models do not match the schema the store had then.
    /// The token's ``DefaultHistoryToken/storeIdentifier`` is not compared with `url`: it is the path
    /// the store had when the token was taken, which moving or cloning the store changes.
    ///
    /// - Parameters:
    ///   - name: The configuration's name; the directory's name without its extension if nil.
    ///   - schema: The models this store holds; nil for the container's whole schema.
    ///   - url: The store's directory.
    ///   - token: The point of the store's history to open: a token of one of its history transactions
    ///     (``DefaultHistoryTransaction/token``), or sequence 0 for the empty store before the first.
    ///   - cloudKitDatabase: Accepted for SwiftData's sake; Folio does not sync with CloudKit.
    public init(
        _ name: String? = nil, schema: Schema? = nil, url: URL, asOf token: DefaultHistoryToken,
        cloudKitDatabase: CloudKitDatabase = .automatic
    ) {
        self.name = name ?? url.deletingPathExtension().lastPathComponent
        self.schema = schema
        self.isStoredInMemoryOnly = false
        self.allowsSave = false
        self.groupContainer = .automatic
        self.cloudKitDatabase = cloudKitDatabase
        self.historyToken = token
        self.url = url
    }
}
