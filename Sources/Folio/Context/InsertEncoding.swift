import FolioStorage

/// Encodes the models a save inserts that have no relationships, ahead of the write.
///
/// A model without relationships encodes the same whatever record numbers the save hands out, so it is
/// encoded once, before the write, for both the uniqueness check and the write itself. Encoding reads
/// the models, so it runs on the saving thread, the context's own: models are not `Sendable`, and they
/// may belong to an actor (the main actor, a model actor) whose code could change them on that thread
/// only. What does run on several cores afterwards (the uniqueness lookups, writing the journal line)
/// reads only the records made here.
struct InsertEncoding {
    private let models: [any PersistentModel]
    /// For each model, whether it is encoded here (its entity has no relationships).
    private let encodesHere: [Bool]

    /// - Parameter encodesHere: for each model, whether to encode it (nil is returned for the others).
    init(models: [any PersistentModel], encodesHere: [Bool]) {
        self.models = models
        self.encodesHere = encodesHere
    }

    /// The encoded values, at the models' positions; nil for the models not encoded here.
    ///
    /// - Throws: ``ModelCodingError`` of the first model, in order, that cannot be encoded.
    func encode() throws -> [RecordValues?] {
        var encoded: [RecordValues?] = []
        encoded.reserveCapacity(models.count)
        // Models come in runs of one type: the arrangement of the type seen last is asked for again
        // only when the type changes (or while the type has none yet: its first model teaches it).
        var lastType: ObjectIdentifier?
        var arrangement: RecordArrangement?
        for (model, encodes) in zip(models, encodesHere) {
            guard encodes else {
                encoded.append(nil)
                continue
            }
            let type = ObjectIdentifier(Swift.type(of: model))
            if lastType != type || arrangement == nil {
                lastType = type
                arrangement = ModelRecordCoding.learnedArrangement(of: Swift.type(of: model))
            }
            encoded.append(try ModelRecordCoding.encode(model, following: arrangement, recordNumber: Self.refusingRelationships))
        }
        return encoded
    }

    /// Stands in for the record numbers of related models, which the models encoded here do not have.
    /// A constant closure, which captures nothing: naming a static method instead made a new closure
    /// context for every model.
    private static let refusingRelationships: @Sendable (AnyObject) throws -> Int64 = { related in
        throw FolioError(.invalidModel, "a model of an entity without relationships refers to \(type(of: related))")
    }
}
