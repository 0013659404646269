import FolioStorage

/// Encodes the models a save inserts, ahead of the write, spreading a large save over several cores.
///
/// A model without relationships encodes the same whatever record numbers the save hands out, so it is
/// encoded once, before the write, for both the uniqueness check and the write itself. Encoding is most
/// of a bulk save's work, and it only reads the models: from ``ParallelRuns/minimumCount`` models on,
/// they are split into consecutive runs encoded on separate threads (the saving thread takes one), while the
/// saving thread waits for the others. Nothing else touches the models meanwhile: the context's save
/// holds the container's lock, and models are not shared across threads.
final class InsertEncoding: @unchecked Sendable {
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
    func encode(threads: Int = ParallelRuns.processorCount) throws -> [RecordValues?] {
        try ParallelRuns.map(count: models.count, threads: threads, runState: LastArrangement.init) { position, last in
            guard encodesHere[position] else { return nil }
            let model = models[position]
            let type = ObjectIdentifier(Swift.type(of: model))
            if last.type != type || last.arrangement == nil {
                last = LastArrangement(type: type, arrangement: ModelRecordCoding.learnedArrangement(of: Swift.type(of: model)))
            }
            return try ModelRecordCoding.encode(model, following: last.arrangement, recordNumber: Self.refusingRelationships)
        }
    }

    /// The arrangement of the last model type a run encoded, which the run keeps alive while it encodes
    /// the models of that type (asked again while the type has none yet: its first model teaches it).
    private struct LastArrangement {
        var type: ObjectIdentifier?
        var arrangement: RecordArrangement?
    }

    /// Stands in for the record numbers of related models, which the models encoded here do not have.
    /// A constant closure, which captures nothing: naming a static method instead made a new closure
    /// context for every model.
    private static let refusingRelationships: @Sendable (AnyObject) throws -> Int64 = { related in
        throw FolioError(.invalidModel, "a model of an entity without relationships refers to \(type(of: related))")
    }
}
