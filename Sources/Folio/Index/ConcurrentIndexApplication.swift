import Dispatch
import Synchronization
@_spi(FolioEngine) import FolioStorage

/// Applies a large save's committed changes to the container's index on another thread, so that the
/// save returns without waiting for them.
///
/// The save starts it as soon as the store has committed the transaction, only for large saves
/// (``minimumRecords``) and only if the index stands exactly at the transaction's base; otherwise the
/// save applies the committed transaction itself, in order, as before. Whatever reads the index next
/// waits for the application to finish (``ContainerState/finishIndexingLater(_:)``); the save holds the
/// container's lock until it has handed the application over, so nothing reads the index meanwhile.
///
/// It starts after the commit, so that it does not retain records' values while the saving thread and
/// the threads writing the journal line retain them.
final class ConcurrentIndexApplication: Sendable {
    /// Saves of fewer records apply them after the commit on the saving thread: handing a few records to
    /// another thread costs more than applying them.
    static let minimumRecords = 1_000

    private let group = DispatchGroup()
    /// Whether an application was started and not yet waited for. Set by the saving thread and read by
    /// the next holder of the container's lock.
    private let isStarted = Atomic<Bool>(false)

    /// Starts moving `index` to `records`, the store's records once it committed `committed` on top of
    /// the state whose last transaction is `baseSequence`. Returns whether it started: not for a small
    /// transaction, without an index, or when the index does not stand at `baseSequence`.
    func start(committed: JournalTransaction, baseSequence: UInt64, records: StoreRecords, index: RecordIndex?) -> Bool {
        guard let index, committed.changedRecordCount >= Self.minimumRecords, index.lastSequence == baseSequence,
            records.lastSequence == committed.sequence
        else { return false }
        isStarted.store(true, ordering: .relaxed)
        // Only that thread touches the index until `waitUntilApplied`: the saver holds the lock.
        group.enter()
        DispatchQueue.global(qos: .userInitiated).async {
            index.advance(to: records, applying: [committed])
            self.group.leave()
        }
        return true
    }

    /// Waits until the changes are applied.
    func waitUntilApplied() {
        guard isStarted.load(ordering: .relaxed) else { return }
        group.wait()
        isStarted.store(false, ordering: .relaxed)
    }
}
