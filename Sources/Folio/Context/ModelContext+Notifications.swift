import FolioStorage

extension ModelContext {
    /// Posted through `NotificationCenter.default`, with the context as the object, when a save
    /// begins: before the context processes its pending inserts, changes and deletes. It has no
    /// `userInfo`. An observer may still change the context; those changes are part of the save.
    ///
    /// A ``save()`` with nothing to save (``hasChanges`` is false) posts neither this nor ``didSave``.
    public static let willSave = Notification.Name("Folio.ModelContext.willSave")

    /// Posted through `NotificationCenter.default`, with the context as the object, after a save
    /// wrote its changes to the store.
    ///
    /// Its `userInfo` holds the persistent identifiers of the records the save inserted, updated and
    /// deleted, each as a `[PersistentIdentifier]` under the `rawValue` of
    /// ``NotificationKey/insertedIdentifiers``, ``NotificationKey/updatedIdentifiers`` and
    /// ``NotificationKey/deletedIdentifiers`` (all three keys are present; an array may be empty):
    ///
    /// ```swift
    /// let inserted = notification.userInfo?[ModelContext.NotificationKey.insertedIdentifiers.rawValue]
    ///     as? [PersistentIdentifier] ?? []
    /// ```
    ///
    /// They are the records the save's transaction in the history holds: an insert that matched a
    /// stored model's unique values (an upsert) is an update. A save that throws posts no `didSave`.
    /// The notification is posted on the thread that saved, after the store is written and the
    /// container's lock released, so observers may fetch.
    public static let didSave = Notification.Name("Folio.ModelContext.didSave")

    /// The keys of the `userInfo` of a context's notifications, used by their `rawValue`.
    public enum NotificationKey: String, Sendable {
        /// A token naming the generation of the store a context reads. Folio has no query generations
        /// and posts none.
        case queryGeneration
        /// The identifiers of models invalidated all at once. Folio never invalidates a context's
        /// models and posts none.
        case invalidatedAllIdentifiers
        /// The identifiers of the models a save inserted.
        case insertedIdentifiers
        /// The identifiers of the models a save updated.
        case updatedIdentifiers
        /// The identifiers of the models a save deleted.
        case deletedIdentifiers
    }

    /// Posts ``willSave``.
    func postWillSave() {
        NotificationCenter.default.post(name: Self.willSave, object: self)
    }

    /// Posts ``didSave`` for the transaction a save wrote (nil when it wrote nothing).
    func postDidSave(_ committed: JournalTransaction?) {
        let store = container.storeIdentifier
        let identifier = { (entity: String, number: Int64) in
            PersistentIdentifier(entityName: entity, storeIdentifier: store, recordNumber: number)
        }
        let userInfo: [AnyHashable: Any] = [
            NotificationKey.insertedIdentifiers.rawValue: committed?.inserted.map { identifier($0.entity, $0.id) } ?? [],
            NotificationKey.updatedIdentifiers.rawValue: committed?.updated.map { identifier($0.entity, $0.id) } ?? [],
            NotificationKey.deletedIdentifiers.rawValue: committed?.deleted.map { identifier($0.entity, $0.id) } ?? [],
        ]
        NotificationCenter.default.post(name: Self.didSave, object: self, userInfo: userInfo)
    }
}
