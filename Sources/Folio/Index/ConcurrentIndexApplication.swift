import Dispatch
import FolioStorage

/// Applies a save's changes to the container's index on another thread while the store encodes,
/// appends and syncs them, instead of after.
///
/// The changes are taken from the write transaction at the end of the save's write body, when they are
/// final. They are applied this way only for large saves (``minimumRecords``), and only if the index
/// stands exactly at the transaction's base; otherwise the save applies the committed transaction
/// afterwards, in order, as without this. The save holds the container's lock throughout, so nothing
/// else reads the index meanwhile. If the store then commits anything but that transaction (the commit
/// failed), the index is rebuilt from the store.
final class ConcurrentIndexApplication: @unchecked Sendable {
    /// Saves of fewer records apply them after the commit, as before: handing a few records to another
    /// thread costs more than applying them (a one-record durable save would wait on two threads).
    static let minimumRecords = 1_000

    private let group = DispatchGroup()
    private var started: (index: RecordIndex, sequence: UInt64)?

    /// Starts applying `transaction`'s changes to `index`. Call it last in the write body.
    func start(_ transaction: inout WriteTransaction, index: RecordIndex?) {
        guard let index, transaction.changedRecordCount >= Self.minimumRecords, index.lastSequence == transaction.lastSequence
        else { return }
        let changes = transaction.settlePendingChanges()
        started = (index, changes.sequence)
        // The index is not Sendable: only this thread touches it until `finish` has waited (the saving
        // thread holds the container's lock and does not read it meanwhile).
        nonisolated(unsafe) let target = index
        group.enter()
        DispatchQueue.global(qos: .userInitiated).async {
            target.apply(changes)
            self.group.leave()
        }
    }

    /// Whether the store committed exactly the transaction being applied: then the index needs nothing
    /// more than the application to finish, which can wait (``ModelContainer/finishIndexingLater(_:)``).
    func isApplying(_ committed: JournalTransaction?) -> Bool {
        guard let started, let committed else { return false }
        return committed.sequence == started.sequence
    }

    /// Waits until the changes are applied.
    func waitUntilApplied() {
        guard started != nil else { return }
        group.wait()
        started = nil
    }

    /// Waits until the changes are applied; rebuilds the index if the store did not commit them.
    func finish(committed: JournalTransaction?, store: Store) {
        guard let index = started?.index else { return }
        let committedThem = isApplying(committed)
        waitUntilApplied()
        if !committedThem { index.reload(from: store) }
    }
}
