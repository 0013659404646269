import Dispatch
import Foundation

/// Splits work over positions `0..<count` into consecutive runs done on separate threads, for the parts
/// of a large save that only read: encoding the models and checking their unique values (in the model
/// layer), and writing the records of the journal line.
package enum ParallelRuns {
    /// The number of positions from which the work is split at all.
    package static let minimumCount = 2_000
    /// The fewest positions a run on its own thread gets.
    package static let minimumRun = 500
    /// The cores this process may use, asked once (asking costs a system call or a file read, which a
    /// save of one model should not pay).
    package static let processorCount = ProcessInfo.processInfo.activeProcessorCount

    /// The results of `element` for each position in `0..<count`, in position order. The positions are
    /// split into consecutive runs (see ``runCount(_:threads:)``) done on the cores this process may use,
    /// the calling thread among them; each result is written straight into its place in the returned
    /// array.
    ///
    /// - Throws: the error of the first position, in order, whose `element` throws (a run stops at its
    ///   first error).
    package static func map<Element>(count: Int, threads: Int = processorCount,
                             _ element: (Int) throws -> Element) throws -> [Element] {
        let runCount = self.runCount(count, threads: threads)
        if runCount == 1 {
            var results: [Element] = []
            results.reserveCapacity(count)
            for position in 0..<count { results.append(try element(position)) }
            return results
        }
        let bounds = (0...runCount).map { $0 * count / runCount }
        // Each run writes only its own positions, and its own element of `failures`.
        let failures = UnsafeMutableBufferPointer<(any Error)?>.allocate(capacity: runCount)
        failures.initialize(repeating: nil)
        defer {
            _ = failures.deinitialize()
            failures.deallocate()
        }
        return try [Element](unsafeUninitializedCapacity: count) { results, initializedCount in
            guard let base = results.baseAddress else { return }
            nonisolated(unsafe) let shared = (base: base, failures: failures)
            withoutActuallyEscaping(element) { element in
                nonisolated(unsafe) let work = element
                DispatchQueue.concurrentPerform(iterations: runCount) { run in
                    var position = bounds[run]
                    do {
                        while position < bounds[run + 1] {
                            (shared.base + position).initialize(to: try work(position))
                            position += 1
                        }
                    } catch {
                        // A failed run leaves none of its results behind.
                        (shared.base + bounds[run]).deinitialize(count: position - bounds[run])
                        shared.failures[run] = error
                    }
                }
            }
            if let failed = failures.firstIndex(where: { $0 != nil }), let error = failures[failed] {
                for run in 0..<runCount where failures[run] == nil {
                    (base + bounds[run]).deinitialize(count: bounds[run + 1] - bounds[run])
                }
                throw error
            }
            initializedCount = count
        }
    }

    /// The result of `run` for each run of consecutive positions covering `0..<count`, in position order
    /// (see ``runCount(_:threads:)``), the runs done on the cores this process may use, the calling thread
    /// among them.
    ///
    /// - Throws: the error of the first run, in position order, that throws.
    package static func runs<Result>(count: Int, threads: Int = processorCount,
                                     _ run: (Range<Int>) throws -> Result) throws -> [Result] {
        let runCount = self.runCount(count, threads: threads)
        if runCount == 1 { return [try run(0..<count)] }
        let bounds = (0...runCount).map { $0 * count / runCount }
        // Each run writes only its own element (a run that did not report stands as cancelled).
        let results = UnsafeMutableBufferPointer<Swift.Result<Result, any Error>>.allocate(capacity: runCount)
        results.initialize(repeating: .failure(CancellationError()))
        defer {
            _ = results.deinitialize()
            results.deallocate()
        }
        nonisolated(unsafe) let shared = results
        withoutActuallyEscaping(run) { run in
            nonisolated(unsafe) let work = run
            DispatchQueue.concurrentPerform(iterations: runCount) { index in
                shared[index] = Swift.Result { try work(bounds[index]..<bounds[index + 1]) }
            }
        }
        return try results.map { try $0.get() }
    }

    /// How many runs `count` positions are split into: one below ``minimumCount``, otherwise up to eight
    /// per thread (of at least ``minimumRun`` positions each), so that a thread that finishes its run
    /// early (the other cores may be busy with a compaction or the index) takes another instead of
    /// waiting for a slower one.
    private static func runCount(_ count: Int, threads: Int) -> Int {
        guard count >= minimumCount, threads > 1 else { return 1 }
        return max(1, min(8 * threads, 64, count / minimumRun))
    }
}
