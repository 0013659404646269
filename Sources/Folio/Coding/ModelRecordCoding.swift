import FolioStorage

/// Turns whole models into stored values and back.
enum ModelRecordCoding {
    /// The stored values of every persisted property of `model`, the superclass's included.
    static func encode(_ model: any PersistentModel, onlyProperties: Set<String>? = nil,
                       recordNumber: @escaping (AnyObject) throws -> Int64) throws -> RecordValues {
        var encoder = ModelRecordEncoder(entityName: type(of: model)._folioEntityName, backingData: model.persistentBackingData,
                                         onlyProperties: onlyProperties, recordNumber: recordNumber)
        try model._folioEncode(to: &encoder)
        return encoder.values
    }

    /// A new instance of `type` holding `values`.
    static func decode(_ type: any PersistentModel.Type, from values: RecordValues,
                       identifier: PersistentIdentifier? = nil) throws -> any PersistentModel {
        let backing = ModelBackingData()
        let model = ModelBackingData.makeModel(type, backingData: backing)
        var decoder = ModelRecordDecoder(values: values, entityName: type._folioEntityName, identifier: identifier,
                                         backingData: backing)
        try model._folioDecode(from: &decoder)
        return model
    }
}
