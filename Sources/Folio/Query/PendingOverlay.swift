@_spi(FolioEngine) import FolioStorage

/// The context's unsaved changes to some entities, as rows the executor reads alongside stored records,
/// each found by its row identifier.
struct PendingOverlay {
    var rows: [RowID: (entity: String, values: RecordValues)] = [:]
    /// The unsaved inserted models of the entities, by row identifier.
    var insertedModels: [RowID: any PersistentModel] = [:]
    var insertedIDs: [RowID] = []
    var changedIDs: [RowID] = []
    var deleted: Set<RowID> = []
    /// How many of the context's pending models were read to make the overlay; each is read once.
    private(set) var modelsRead = 0

    var isEmpty: Bool { rows.isEmpty && deleted.isEmpty }

    init() {}

    init(context: ModelContext, entities: Set<String>) {
        guard context.hasChanges else { return }
        let number: (AnyObject) throws -> Int64 = { object in
            guard let model = object as? any PersistentModel else { return 0 }
            return PendingOverlay.rowID(of: model)
        }
        for model in context.deletedModelsArray {
            modelsRead += 1
            if let id = model.persistentBackingData.storedRecordNumber { deleted.insert(id) }
        }
        for model in context.insertedModelsArray where entities.contains(type(of: model)._folioEntityName) {
            modelsRead += 1
            guard let values = try? ModelRecordCoding.encode(model, recordNumber: number) else { continue }
            let id = PendingOverlay.rowID(of: model)
            rows[id] = (type(of: model)._folioEntityName, values)
            insertedModels[id] = model
            insertedIDs.append(id)
        }
        for model in context.changedModelsArray where entities.contains(type(of: model)._folioEntityName) {
            modelsRead += 1
            let backing = model.persistentBackingData
            guard let id = backing.storedRecordNumber, let stored = context.container.recordIndex.records[id],
                  let changes = try? ModelRecordCoding.encode(model, onlyProperties: backing.changedProperties, recordNumber: number) else {
                continue
            }
            rows[id] = (stored.entity, stored.values.merging(changes))
            changedIDs.append(id)
        }
    }

    /// Whether an overlay of the context's unsaved changes for `entities` would hold anything: a
    /// deleted stored model, or an inserted or changed model of one of the entities. Decided without
    /// encoding any model, so that planning costs nothing.
    static func touches(_ context: ModelContext, entities: Set<String>) -> Bool {
        guard context.hasChanges else { return false }
        if context.deletedModelsArray.contains(where: { $0.persistentBackingData.storedRecordNumber != nil }) { return true }
        if context.insertedModelsArray.contains(where: { entities.contains(type(of: $0)._folioEntityName) }) { return true }
        return context.changedModelsArray.contains { model in
            entities.contains(type(of: model)._folioEntityName) && model.persistentBackingData.storedRecordNumber != nil
        }
    }

    /// A saved model's record number, or the negated temporary number of an unsaved one.
    static func rowID(of model: any PersistentModel) -> Int64 {
        let id = model.persistentModelID
        return id.recordNumber ?? -Int64(truncatingIfNeeded: id.id.temporaryNumber ?? 0)
    }
}
