import FolioStorage

/// The models one delete removes: the model deleted, and those its `.cascade` delete rules removed
/// with it at a save. Undoing the delete restores them all; redoing it deletes them all again.
final class DeletionUndo {
    let model: any PersistentModel
    /// The models cascaded to, in the order the delete rules reached them.
    var cascaded: [any PersistentModel] = []

    init(_ model: any PersistentModel) {
        self.model = model
    }

    var models: [any PersistentModel] { [model] + cascaded }

    /// Adds a model a delete rule cascaded to, once.
    func addCascaded(_ target: any PersistentModel) {
        guard target !== model, !cascaded.contains(where: { $0 === target }) else { return }
        cascaded.append(target)
    }
}

// Every change registers its opposite with the context's undo manager, through
// `registerUndo(withTarget:handler:)` with the model as the target. The opposite, when performed, is
// itself a change and registers its own opposite, which the manager files on the redo stack (or the
// undo stack, when redoing). Inverse relationships the context maintains register nothing: undoing
// the change that caused them maintains them again.
extension ModelContext {
    /// Whether a change made now is registered with `manager`.
    private func registers(with manager: UndoManager) -> Bool {
        !isMaintainingInverses && !isUndoRegistrationSuspended && manager.folioIsRecording
    }

    /// Registers `operation`, performed on `model` through this context if the context still exists.
    private func register<Model: PersistentModel>(
        _ model: Model, with manager: UndoManager,
        _ operation: @escaping (ModelContext, Model) -> Void
    ) {
        manager.folioRegisterUndo(withTarget: model) { [weak self] model in
            guard let self else { return }
            operation(self, model)
        }
    }

    /// Registers `operation` with `model` as its target, through this context if it still exists.
    private func register(
        on model: any PersistentModel, with manager: UndoManager,
        _ operation: @escaping (ModelContext, any PersistentModel) -> Void
    ) {
        func open<Model: PersistentModel>(_ model: Model) {
            register(model, with: manager) { context, model in operation(context, model) }
        }
        open(model)
    }

    /// Runs `body` with registration suspended: the steps of an operation whose opposite is
    /// registered as a whole.
    private func withUndoRegistrationSuspended(_ body: () -> Void) {
        let wasSuspended = isUndoRegistrationSuspended
        isUndoRegistrationSuspended = true
        defer { isUndoRegistrationSuspended = wasSuspended }
        body()
    }

    // MARK: Property changes

    /// Registers the undo of a change of `keyPath` about to be made to `model`: setting the value it
    /// has now back through the property's setter, which registers the redo. Called by
    /// `ModelBackingData.withMutation` before the change.
    func registerUndoOfChange<Model: PersistentModel, Value>(
        of model: Model, keyPath: KeyPath<Model, Value>,
        with manager: UndoManager
    ) {
        guard registers(with: manager), let writable = keyPath as? ReferenceWritableKeyPath<Model, Value> else { return }
        let value = model[keyPath: keyPath]
        register(model, with: manager) { context, model in
            guard context.stillHolds(model) else { return }
            model[keyPath: writable] = value
        }
    }

    /// Whether an undo may change `model`: it is this context's, and its record, if it has one, was not
    /// deleted from the store by another context or process. Otherwise the undo does nothing.
    private func stillHolds(_ model: any PersistentModel) -> Bool {
        let backing = model.persistentBackingData
        guard backing.context === self else { return false }
        guard let number = backing.storedRecordNumber, deleted[ObjectIdentifier(model)] == nil else { return true }
        let found = try? withContainerLock(refusingReentry: "an undo of a ModelContext's change") { state in
            try container.syncIndex(in: &state, fromDisk: true)
            return try index(in: &state).records[number] != nil
        }
        // A store that cannot be read now: the change is made, and the next save reports the problem.
        return found ?? true
    }

    // MARK: Inserts and deletes

    /// Registers the undo of an insert just made: deleting the model again.
    func registerUndoOfInsert(_ model: any PersistentModel) {
        guard let manager = undoManager, registers(with: manager) else { return }
        register(on: model, with: manager) { context, model in
            context.deleteModel(model)
        }
    }

    /// Registers the undo of a delete of an unsaved model just made (it was discarded): inserting it
    /// again.
    func registerUndoOfDiscard(_ model: any PersistentModel) {
        guard let manager = undoManager, registers(with: manager) else { return }
        register(on: model, with: manager) { context, model in
            context.insertModel(model)
        }
    }

    /// Registers the undo of a delete of a stored model just made: restoring it, and the models its
    /// delete rules cascade to at the next save. Its relationships are resolved now, while the related
    /// records exist, so that the restored model relates to the same models.
    func registerUndoOfDelete(_ model: any PersistentModel) {
        guard let manager = undoManager, registers(with: manager) else { return }
        resolveRelationships(of: model)
        let deletion = DeletionUndo(model)
        deletionUndos[ObjectIdentifier(model)] = deletion
        registerRestore(deletion, with: manager)
    }

    /// Deletes `target` because a `.cascade` rule of `source`, being deleted, reaches it; the undo of
    /// `source`'s delete restores it.
    func deleteCascading(_ target: any PersistentModel, from source: any PersistentModel) {
        guard !deletionUndos.isEmpty, let deletion = deletionUndos[ObjectIdentifier(source)] else {
            deleteModel(target)
            return
        }
        withUndoRegistrationSuspended { deleteModel(target) }
        deletion.addCascaded(target)
        deletionUndos[ObjectIdentifier(target)] = deletion
    }

    private func registerRestore(_ deletion: DeletionUndo, with manager: UndoManager) {
        register(on: deletion.model, with: manager) { context, _ in
            context.undoDelete(deletion)
        }
    }

    /// Undoes a delete: brings back each of its models, and registers deleting them all (the redo).
    ///
    /// A model whose delete is not saved yet is simply no longer deleted. One whose delete was saved
    /// becomes an insert, which the next save writes as a new record: the store never reuses a record
    /// number, so the model gets a new identifier. Its values and relationships are those it had when
    /// deleted; the context makes the inverse relationships agree again.
    private func undoDelete(_ deletion: DeletionUndo) {
        let models = deletion.models
        withUndoRegistrationSuspended {
            for model in models { prepareToReinsert(model) }
            for model in models where model.persistentBackingData.context == nil || deleted[ObjectIdentifier(model)] != nil {
                insertModel(model)
            }
        }
        for model in models { deletionUndos[ObjectIdentifier(model)] = nil }
        guard let manager = undoManager, registers(with: manager) else { return }
        register(on: deletion.model, with: manager) { context, _ in
            context.redoDelete(deletion)
        }
    }

    /// Makes a model whose delete was saved into one that can be inserted again: no record number, not
    /// deleted.
    private func prepareToReinsert(_ model: any PersistentModel) {
        let backing = model.persistentBackingData
        guard backing.context == nil, backing.isDeleted, backing.storedRecordNumber != nil else { return }
        backing.forgetRecordNumber()
        backing.isDeleted = false
    }

    /// Redoes a delete: deletes each of its models again, and registers restoring them (the undo).
    private func redoDelete(_ deletion: DeletionUndo) {
        withUndoRegistrationSuspended {
            for model in deletion.models { deleteModel(model) }
        }
        for model in deletion.models where deleted[ObjectIdentifier(model)] != nil {
            deletionUndos[ObjectIdentifier(model)] = deletion
        }
        guard let manager = undoManager, registers(with: manager) else { return }
        registerRestore(deletion, with: manager)
    }

    // MARK: Events

    /// Ends the undo manager's current event, closing the group the changes since the last event were
    /// registered in (see ``UndoManager`` on platforms without a run loop).
    func endUndoEvent() {
        undoManager?.folioEndEvent()
    }
}
