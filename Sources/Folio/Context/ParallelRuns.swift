import Dispatch
import Foundation

/// Splits work over positions `0..<count` into consecutive runs done on separate threads, for the parts
/// of a large save that only read (``InsertEncoding``, ``UniqueMatching``).
enum ParallelRuns {
    /// The number of positions from which the work is split at all.
    static let minimumCount = 2_000
    /// The fewest positions a run on its own thread gets.
    static let minimumRun = 1_000
    /// The cores this process may use, asked once (asking costs a system call or a file read, which a
    /// save of one model should not pay).
    static let processorCount = ProcessInfo.processInfo.activeProcessorCount

    /// The results of `run` for each run, joined in position order. `run` is called with consecutive
    /// ranges covering `0..<count`, at most `threads` of them at once, the calling thread taking one.
    ///
    /// - Throws: the error of the first run, in position order, that throws.
    static func map<Element>(count: Int, threads: Int = processorCount,
                             _ run: (Range<Int>) throws -> [Element]) throws -> [Element] {
        let runCount = count >= minimumCount ? max(1, min(threads, 8, count / minimumRun)) : 1
        if runCount == 1 { return try run(0..<count) }
        let bounds = (0...runCount).map { $0 * count / runCount }
        // Each run writes only its own element of storage allocated before the runs start.
        let results = UnsafeMutableBufferPointer<Result<[Element], any Error>>.allocate(capacity: runCount)
        results.initialize(repeating: .success([]))
        defer {
            _ = results.deinitialize()
            results.deallocate()
        }
        nonisolated(unsafe) let shared = results
        withoutActuallyEscaping(run) { run in
            nonisolated(unsafe) let work = run
            DispatchQueue.concurrentPerform(iterations: runCount) { index in
                shared[index] = Result { try work(bounds[index]..<bounds[index + 1]) }
            }
        }
        var joined: [Element] = []
        joined.reserveCapacity(count)
        for result in results { joined += try result.get() }
        return joined
    }
}
