import Dispatch
import FolioStorage
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A thread that runs work for later pages (orders made ahead, the indexes of a store just opened) one
/// item at a time, at a lower scheduling priority than the threads answering pages, so that on a busy
/// machine the page being answered gets the cores first.
///
/// On Linux the thread's nice value is raised (a per-thread attribute there); elsewhere it asks for
/// the utility quality of service. The thread is started with the first item and runs as long as the
/// process: the server keeps a few, shared by every store it serves.
final class BackgroundWork: Sendable {
    /// How much lower than the page threads' the priority is, in nice steps: a thread at +10 gets about
    /// a tenth of the time a thread at 0 does when both want a core.
    static let niceness: Int32 = 10

    private let name: String
    private let state = LockedState<(items: [@Sendable () -> Void], started: Bool)>(([], false))
    private let itemsWaiting = DispatchSemaphore(value: 0)

    init(name: String) {
        self.name = name
    }

    /// Runs `work` on the thread after the items submitted before it.
    func submit(_ work: @escaping @Sendable () -> Void) {
        let start = state.withLock { state -> Bool in
            state.items.append(work)
            defer { state.started = true }
            return !state.started
        }
        if start {
            let thread = Thread { [self] in run() }
            thread.name = name
            thread.qualityOfService = .utility
            thread.start()
        }
        itemsWaiting.signal()
    }

    private func run() {
        #if canImport(Glibc)
            // `who` 0 is the calling thread: on Linux the nice value is each thread's own.
            _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, Self.niceness)
        #endif
        while true {
            itemsWaiting.wait()
            let work = state.withLock { state -> (@Sendable () -> Void)? in state.items.isEmpty ? nil : state.items.removeFirst() }
            work?()
        }
    }
}
