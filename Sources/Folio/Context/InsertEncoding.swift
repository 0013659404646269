import Dispatch
import Foundation
import FolioStorage

/// Encodes the models a save inserts, ahead of the write, spreading a large save over several cores.
///
/// A model without relationships encodes the same whatever record numbers the save hands out, so it is
/// encoded once, before the write, for both the uniqueness check and the write itself. Encoding is most
/// of a bulk save's work, and it only reads the models: from ``parallelMinimum`` models on, the models
/// are split into consecutive runs encoded on separate threads (the saving thread takes one), while the
/// saving thread waits for the others. Nothing else touches the models meanwhile: the context's save
/// holds the container's lock, and models are not shared across threads.
final class InsertEncoding: @unchecked Sendable {
    /// The number of models from which a save encodes on more than one thread.
    static let parallelMinimum = 2_000
    /// The fewest models a run on its own thread gets.
    static let minimumRun = 1_000
    /// The cores this process may use, asked once (asking costs a system call or a file read, which a
    /// save of one model should not pay).
    static let processorCount = ProcessInfo.processInfo.activeProcessorCount

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
    func encode(threads: Int = InsertEncoding.processorCount) throws -> [RecordValues?] {
        let count = models.count
        let runCount = count >= Self.parallelMinimum ? max(1, min(threads, 8, count / Self.minimumRun)) : 1
        if runCount == 1 { return try encodeRun(0..<count) }
        let bounds = (0...runCount).map { $0 * count / runCount }
        // Each run writes only its own element of storage allocated before the runs start.
        let runs = UnsafeMutableBufferPointer<Result<[RecordValues?], any Error>>.allocate(capacity: runCount)
        runs.initialize(repeating: .success([]))
        defer {
            _ = runs.deinitialize()
            runs.deallocate()
        }
        nonisolated(unsafe) let results = runs
        DispatchQueue.concurrentPerform(iterations: runCount) { run in
            results[run] = Result { try encodeRun(bounds[run]..<bounds[run + 1]) }
        }
        var values: [RecordValues?] = []
        values.reserveCapacity(count)
        for run in runs { values += try run.get() }
        return values
    }

    private func encodeRun(_ positions: Range<Int>) throws -> [RecordValues?] {
        var values: [RecordValues?] = []
        values.reserveCapacity(positions.count)
        for position in positions {
            guard encodesHere[position] else {
                values.append(nil)
                continue
            }
            let model = models[position]
            values.append(try ModelRecordCoding.encode(model) { _ in
                throw FolioError(.invalidModel, "\(model.persistentModelID) has no relationships to encode")
            })
        }
        return values
    }
}
