import Dispatch
import Foundation

/// Splits work over positions `0..<count` into consecutive runs done on separate threads, for the parts
/// of a large save that only read records: checking their unique values (in the model layer) and
/// writing the records of the journal line.
package enum ParallelRuns {
    /// The number of positions from which the work is split at all.
    package static let minimumCount = 2_000
    /// The fewest positions a run on its own thread gets.
    package static let minimumRun = 500
    /// The cores this process may use, asked once (asking costs a system call or a file read, which a
    /// save of one model should not pay).
    package static let processorCount = ProcessInfo.processInfo.activeProcessorCount

    /// The result of `run` for each run of consecutive positions covering `0..<count`, in position order
    /// (see ``runCount(_:threads:)``), the runs done on the cores this process may use, the calling thread
    /// among them.
    ///
    /// - Throws: the error of the first run, in position order, that throws.
    package static func runs<Result>(
        count: Int, threads: Int = processorCount,
        _ run: (Range<Int>) throws -> Result
    ) throws -> [Result] {
        try perform(count: count, threads: threads, run).map { try $0.get() }
    }

    /// The outcome of `run` for each run, in position order: the calling thread does a single run itself,
    /// and several are shared out with `concurrentPerform`.
    private static func perform<Result>(
        count: Int, threads: Int,
        _ run: (Range<Int>) throws -> Result
    ) -> [Swift.Result<Result, any Error>] {
        let runCount = self.runCount(count, threads: threads)
        if runCount == 1 { return [Swift.Result { try run(0..<count) }] }
        let bounds = (0...runCount).map { $0 * count / runCount }
        // Each run writes only its own element (a run that did not report stands as cancelled).
        let outcomes = UnsafeMutableBufferPointer<Swift.Result<Result, any Error>>.allocate(capacity: runCount)
        outcomes.initialize(repeating: .failure(CancellationError()))
        defer {
            _ = outcomes.deinitialize()
            outcomes.deallocate()
        }
        // Sendable: each run writes only its own element, and `concurrentPerform` returns after every run.
        nonisolated(unsafe) let shared = outcomes
        withoutActuallyEscaping(run) { run in
            // Sendable: `run` only reads what the caller keeps still until `concurrentPerform` returns.
            nonisolated(unsafe) let work = run
            DispatchQueue.concurrentPerform(iterations: runCount) { index in
                shared[index] = Swift.Result { try work(bounds[index]..<bounds[index + 1]) }
            }
        }
        return Array(outcomes)
    }

    /// How many runs `count` positions are split into: one below ``minimumCount``, otherwise up to eight
    /// per thread (of at least ``minimumRun`` positions each), so that a thread that finishes its run
    /// early (the other cores may be busy with a compaction or the index) takes another instead of
    /// waiting for a slower one.
    static func runCount(_ count: Int, threads: Int) -> Int {
        guard count >= minimumCount, threads > 1 else { return 1 }
        return max(1, min(8 * threads, 64, count / minimumRun))
    }
}
