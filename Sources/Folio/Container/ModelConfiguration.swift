import FolioStorage

/// Where and how a container keeps its store.
///
/// By default a store lives in a directory named after the configuration (`default.folio`) inside the
/// user's Application Support directory (`~/.local/share` on Linux when `XDG_DATA_HOME` is not set).
/// Pass `url:` to put it anywhere else; the URL names the store's directory.
public struct ModelConfiguration: Hashable, Sendable {
    /// The configuration's name; also the default store directory's name.
    public let name: String
    /// The store's directory.
    public let url: URL
    /// Whether the store lives only in memory. The default is `false`.
    public let isStoredInMemoryOnly: Bool
    /// Whether contexts may save. The default is `true`.
    public let allowsSave: Bool
    /// The schema this configuration's store holds; nil means the container's whole schema.
    public let schema: Schema?
    /// The app group whose directory holds the store; see ``GroupContainer``.
    public let groupContainer: GroupContainer
    /// The CloudKit database named for the store. Folio does not sync with CloudKit; see
    /// ``CloudKitDatabase``.
    public let cloudKitDatabase: CloudKitDatabase
    /// The point of the store's history the container opens, read-only; nil (the default) for the
    /// store as it is now. See ``init(_:schema:url:asOf:cloudKitDatabase:)``.
    public let historyToken: DefaultHistoryToken?
    /// How durable each save is. The default is `.always`: `save()` returns after the
    /// transaction is on disk.
    public var durability: Durability = .always
    /// Journal size in bytes past which the store compacts itself, once the journal is also as large as
    /// what the compaction rewrites: the snapshots, plus the retained history up to the snapshots' size
    /// (so that a growing store compacts less and less often). The compaction runs on a
    /// background thread: no save waits for it. The default is 8 MiB; nil compacts only when
    /// ``ModelContainer/compact()`` is called.
    public var compactionThreshold: Int64? = 8 << 20
    /// How much persistent history compaction keeps. The default keeps the last 1,000 transactions, and
    /// of those only the newest that fit in 64 MiB. In a git work tree a compaction also keeps every
    /// transaction it folds, which a git merge of two clones that both compacted needs.
    public var historyRetention = HistoryRetention()
    /// How soon a change saved by another process reaches the container's observers, at most, in
    /// seconds (on Linux, inotify delivers it within milliseconds). The default is 250 ms. Set it before
    /// the container is made: it is the container's from then on.
    public var changeNotificationLatency: TimeInterval = 0.25
    /// Whether the container's ``ModelContainer/mainContext`` records its changes for undo: when
    /// `true`, it is given an `UndoManager` (its ``ModelContext/undoManager``), as SwiftUI's
    /// `modelContainer(for:isUndoEnabled:)` does. The default is `false`. Contexts you create have
    /// none unless you set one.
    public var isUndoEnabled = false

    /// How durable a save is, after Redis's `appendfsync`: `.always` (every save is flushed to disk
    /// before it returns, the default), `.batched(interval)` (flushed at most `interval` seconds later)
    /// or `.none` (the operating system decides). The storage engine's own type: one declaration, one
    /// default.
    public typealias Durability = StoreConfiguration.Durability

    /// How much persistent history compaction keeps; a reader whose token is older gets
    /// ``FolioError/Code/historyExpired``. The storage engine's own type: the defaults keep the newest
    /// 1,000 transactions, at most 64 MiB of them, whatever their age.
    public typealias HistoryRetention = StoreConfiguration.HistoryRetention

    /// Tests only: the file system the store goes through (fault injection); nil for the real one.
    package var fileSystem: (any FileSystem)? = nil
    /// The git revision the store is read as of (see `ModelConfiguration+GitRevision.swift`); nil for
    /// the store's files as they are.
    package var gitSource: GitRevisionSource? = nil

    /// A configuration with the default name and location.
    public init(isStoredInMemoryOnly: Bool = false) {
        self.init(nil, schema: nil, isStoredInMemoryOnly: isStoredInMemoryOnly)
    }

    /// A configuration for some model types.
    public init(for forTypes: any PersistentModel.Type..., isStoredInMemoryOnly: Bool = false) {
        self.init(nil, schema: Schema(forTypes), isStoredInMemoryOnly: isStoredInMemoryOnly)
    }

    /// A configuration in the default location, or in an app group's directory.
    ///
    /// - Parameters:
    ///   - name: The configuration's name, and its store directory's (`name.folio`); "default" if nil.
    ///   - schema: The models this store holds; nil for the container's whole schema.
    ///   - isStoredInMemoryOnly: Whether the store lives only in memory, for tests and previews.
    ///   - allowsSave: Whether contexts may save.
    ///   - groupContainer: `.identifier(name)` keeps the store in a directory shared by every program
    ///     naming that group; see ``GroupContainer``.
    ///   - cloudKitDatabase: Accepted for SwiftData's sake; Folio does not sync with CloudKit.
    public init(
        _ name: String? = nil, schema: Schema? = nil, isStoredInMemoryOnly: Bool = false, allowsSave: Bool = true,
        groupContainer: GroupContainer = .automatic, cloudKitDatabase: CloudKitDatabase = .automatic
    ) {
        let name = name ?? "default"
        self.name = name
        self.schema = schema
        self.isStoredInMemoryOnly = isStoredInMemoryOnly
        self.allowsSave = allowsSave
        self.groupContainer = groupContainer
        self.cloudKitDatabase = cloudKitDatabase
        self.historyToken = nil
        var directory = ModelConfiguration.defaultDirectory
        if let group = groupContainer.identifier { directory.appendPathComponent(group, isDirectory: true) }
        self.url = directory.appendingPathComponent("\(name).folio", isDirectory: true)
    }

    /// A configuration whose store is the directory at `url`.
    ///
    /// - Parameters:
    ///   - name: The configuration's name; the directory's name without its extension if nil.
    ///   - schema: The models this store holds; nil for the container's whole schema.
    ///   - url: The store's directory, created when the container opens it.
    ///   - allowsSave: Whether contexts may save.
    ///   - cloudKitDatabase: Accepted for SwiftData's sake; Folio does not sync with CloudKit.
    public init(
        _ name: String? = nil, schema: Schema? = nil, url: URL, allowsSave: Bool = true,
        cloudKitDatabase: CloudKitDatabase = .automatic
    ) {
        self.name = name ?? url.deletingPathExtension().lastPathComponent
        self.schema = schema
        self.isStoredInMemoryOnly = false
        self.allowsSave = allowsSave
        self.groupContainer = .automatic
        self.cloudKitDatabase = cloudKitDatabase
        self.historyToken = nil
        self.url = url
    }

    /// The directory that holds stores whose configuration names no URL.
    public static var defaultDirectory: URL {
        if let base = FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask).first {
            return base
        }
        return FileManager.default.temporaryDirectory
    }

    public static func == (lhs: ModelConfiguration, rhs: ModelConfiguration) -> Bool {
        lhs.name == rhs.name && lhs.url == rhs.url && lhs.isStoredInMemoryOnly == rhs.isStoredInMemoryOnly
            && lhs.allowsSave == rhs.allowsSave && lhs.gitSource == rhs.gitSource && lhs.historyToken == rhs.historyToken
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(name)
        hasher.combine(url)
        hasher.combine(gitSource)
    }
}
