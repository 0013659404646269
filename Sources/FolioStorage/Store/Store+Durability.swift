import Dispatch
import Foundation

extension Store {
    /// Starts the timer that syncs batched writes (``StoreConfiguration/Durability/batched(_:)``).
    func startBatchTimer(_ journal: inout JournalWriter) {
        guard case .batched(let interval) = configuration.durability, paths != nil, !configuration.readOnly else { return }
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "folio.storage.batched-fsync"))
        let nanoseconds = TimerInterval.nanoseconds(seconds: interval, minimum: 1)
        timer.schedule(deadline: .now() + .nanoseconds(nanoseconds), repeating: .nanoseconds(nanoseconds), leeway: .milliseconds(10))
        timer.setEventHandler { [weak self] in self?.syncBatch() }
        journal.batchTimer = timer
        timer.resume()
    }

    /// Syncs writes made under ``StoreConfiguration/Durability/batched(_:)``; a failure poisons the store.
    public func sync() throws {
        try withWriter("Store.sync()") { try $0.syncBatched(fs) }
    }

    private func syncBatch() {
        try? sync()
    }
}
