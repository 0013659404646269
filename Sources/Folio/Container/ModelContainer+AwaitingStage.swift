import Foundation
@_spi(FolioEngine) import FolioStorage

/// Opening a store that holds records a git merge kept for a migration's custom stage: a writable
/// container with a migration plan runs the plan's stages over them and adds what they give, in one
/// transaction per schema they were written with (see `docs/git.md`).
extension ModelContainer {
    /// Carries the records awaiting a stage when the container has a plan and may save; otherwise, or
    /// for records the plan's way runs no custom stage over, they go on awaiting (the store's warnings
    /// say so).
    ///
    /// - Throws: what a stage's code throws (nothing is written); ``FolioError/Code/storage`` when the
    ///   records cannot be read or the transaction cannot be written.
    func carryRecordsAwaitingStage(_ description: JSONValue) throws {
        guard let plan = migrationPlan, configuration.allowsSave, configuration.gitSource == nil, configuration.historyToken == nil,
            store.hasRecordsAwaitingStage()
        else { return }
        let path = configuration.url.path
        do {
            let awaiting = try store.recordsAwaitingStage()
            for from in Set(awaiting.map(\.awaiting.fromChecksum)).sorted() {
                let lines = awaiting.filter { $0.awaiting.fromChecksum == from }
                guard
                    let results = try AwaitingStageRun.results(
                        of: lines, from: from, plan: plan, to: schema, description: description, path: path)
                else { continue }
                let committed = try store.commitStageResults(results, schema: description)
                try syncIndex(committed: committed.map { [$0] } ?? [])
            }
        } catch let error as StorageError {
            throw FolioError(
                .storage, "The records a git merge kept for a migration's custom stage in the store at \(path) could not be carried",
                underlying: error)
        }
    }
}
