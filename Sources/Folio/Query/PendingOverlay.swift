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

    /// The overlay of `context`'s unsaved changes to `entities`.
    ///
    /// - Throws: ``FolioError/Code/modelCoding`` when an unsaved model cannot be encoded (the save would
    ///   refuse it too): a fetch that left it out would hide a model the context holds.
    init(context: ModelContext, entities: Set<String>, records: StoreRecords) throws {
        guard context.hasChanges else { return }
        let number: (AnyObject) throws -> Int64 = { object in
            guard let model = object as? any PersistentModel else { return 0 }
            return PendingOverlay.rowID(of: model)
        }
        for model in context.deletedModelsArray {
            modelsRead += 1
            if let id = model.persistentBackingData.storedRecordNumber { deleted.insert(id) }
        }
        if !context.deletedRecords.isEmpty { deleted.formUnion(context.deletedRecords.ids) }
        for model in context.insertedModelsArray where entities.contains(type(of: model)._folioEntityName) {
            modelsRead += 1
            let values = try Self.encoded(model) { try ModelRecordCoding.encode(model, recordNumber: number) }
            let id = PendingOverlay.rowID(of: model)
            rows[id] = (type(of: model)._folioEntityName, values)
            insertedModels[id] = model
            insertedIDs.append(id)
        }
        for model in context.changedModelsArray where entities.contains(type(of: model)._folioEntityName) {
            modelsRead += 1
            let backing = model.persistentBackingData
            guard let id = backing.storedRecordNumber, let stored = records[id] else { continue }
            let changes = try Self.encoded(model) {
                try ModelRecordCoding.encode(model, onlyProperties: backing.changedProperties, recordNumber: number)
            }
            rows[id] = (stored.entity, stored.values.merging(changes))
            changedIDs.append(id)
        }
    }

    /// The values `encode` gives, or the error that the model could not be encoded.
    private static func encoded(_ model: any PersistentModel, _ encode: () throws -> RecordValues) throws -> RecordValues {
        do {
            return try encode()
        } catch let error as FolioError {
            throw error
        } catch {
            throw FolioError(
                .modelCoding, "An unsaved \(type(of: model)) could not be encoded for the fetch, as saving it would fail too",
                underlying: error)
        }
    }

    /// Whether an overlay of the context's unsaved changes for `entities` would hold anything: a
    /// deleted stored model, or an inserted or changed model of one of the entities. Decided without
    /// encoding any model, so that planning costs nothing.
    static func touches(_ context: ModelContext, entities: Set<String>) -> Bool {
        guard context.hasChanges else { return false }
        if !context.deletedRecords.isEmpty { return true }
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
