import FolioStorage

/// Turns whole models into stored values and back.
enum ModelRecordCoding {
    /// The stored values of every persisted property of `model`, the superclass's included.
    static func encode(
        _ model: any PersistentModel, onlyProperties: Set<String>? = nil,
        recordNumber: @escaping (AnyObject) throws -> Int64
    ) throws -> RecordValues {
        guard onlyProperties == nil else {
            var encoder = ModelRecordEncoder(
                entityName: type(of: model)._folioEntityName, backingData: model.persistentBackingData,
                onlyProperties: onlyProperties, recordNumber: recordNumber)
            try model._folioEncode(to: &encoder)
            return encoder.values
        }
        return try encode(model, following: learnedArrangement(of: type(of: model)), recordNumber: recordNumber)
    }

    /// The stored values of every persisted property of `model`, encoded following `arrangement`, the
    /// arrangement ``learnedArrangement(of:)`` gave for its type (or nil). A caller that encodes many
    /// models asks for the arrangement once for all of them.
    static func encode(
        _ model: any PersistentModel, following arrangement: RecordArrangement?,
        recordNumber: @escaping (AnyObject) throws -> Int64
    ) throws -> RecordValues {
        var encoder = ModelRecordEncoder(
            entityName: type(of: model)._folioEntityName, backingData: model.persistentBackingData,
            arrangement: arrangement, recordNumber: recordNumber)
        try model._folioEncode(to: &encoder)
        if !encoder.followsArrangement {
            // Learn the type's names; keep the longest seen (a model may leave out a relationship it
            // has not loaded, and then does not follow the arrangement).
            let names = encoder.encodedNames
            if names.count > (arrangement?.names.count ?? -1), let learned = RecordArrangement(names: names) {
                let typeKey = ObjectIdentifier(type(of: model))
                arrangements.withLock { known in
                    if names.count > (known[typeKey]?.names.count ?? -1) { known[typeKey] = learned }
                }
            }
        }
        return encoder.values
    }

    /// The names `type` encoded last time it encoded every property (the longest such list seen), with
    /// their layout; nil before it has.
    static func learnedArrangement(of type: any PersistentModel.Type) -> RecordArrangement? {
        arrangements.withLock { $0[ObjectIdentifier(type)] }
    }

    /// The stored values of some properties of `model`, in the order they were encoded, without making a
    /// record of them (which would look their names up in the table of layouts).
    static func encodedProperties(
        _ model: any PersistentModel, only properties: Set<String>,
        recordNumber: @escaping (AnyObject) throws -> Int64
    )
        throws -> (names: [String], values: ContiguousArray<JSONValue>)
    {
        var encoder = ModelRecordEncoder(
            entityName: type(of: model)._folioEntityName, backingData: model.persistentBackingData,
            onlyProperties: properties, recordNumber: recordNumber)
        try model._folioEncode(to: &encoder)
        return (encoder.encodedNames, encoder.encodedValues)
    }

    /// Each model type's names when it encodes every property, by type.
    private static let arrangements = LockedState<[ObjectIdentifier: RecordArrangement]>([:])

    /// A new instance of `type` holding `values`.
    static func decode(
        _ type: any PersistentModel.Type, from values: RecordValues,
        identifier: PersistentIdentifier? = nil
    ) throws -> any PersistentModel {
        let backing = ModelBackingData()
        backing.faultValues = values
        let model = try ModelBackingData.makeModel(type, backingData: backing)
        backing.faultValues = nil
        var decoder = ModelRecordDecoder(
            values: values, entityName: type._folioEntityName, identifier: identifier,
            backingData: backing)
        try model._folioDecode(from: &decoder)
        return model
    }
}
