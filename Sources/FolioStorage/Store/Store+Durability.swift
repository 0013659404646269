import Dispatch
import Foundation

extension Store {
    func startBatchTimer() {
        guard case .batched(let interval) = configuration.durability, paths != nil, !configuration.readOnly else { return }
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "folio.storage.batched-fsync"))
        let nanoseconds = max(1, Int((interval * 1e9).rounded()))
        timer.schedule(deadline: .now() + .nanoseconds(nanoseconds), repeating: .nanoseconds(nanoseconds), leeway: .milliseconds(10))
        timer.setEventHandler { [weak self] in self?.syncBatch() }
        batchTimer = timer
        timer.resume()
    }

    /// Syncs writes made under ``StoreConfiguration/Durability/batched(_:)``; a failure poisons the store.
    public func sync() throws {
        writerLock.lock()
        defer { writerLock.unlock() }
        if let poisonError { throw poisonError }
        guard unsyncedWrites, let journalFile else { return }
        do {
            try fs.sync(journalFile)
            unsyncedWrites = false
        } catch let error as StorageError {
            poisonError = error
            throw error
        }
    }

    private func syncBatch() {
        try? sync()
    }
}
