import Foundation

/// Runs one measured step of a workload and returns what it returns.
///
/// The step starts and ends with a call to ``measuredStepBoundary()``, so that callgrind can count
/// each step's instructions, in every thread, apart from the set-up around it (the instruction table
/// of `docs/benchmarks.md`):
///
/// ```sh
/// FOLIO_BENCH_COUNT_DEFERRED=1 valgrind --tool=callgrind --dump-after='*measuredStepBoundary*' folio-bench read STORE
/// ```
///
/// writes a `callgrind.out.PID.K` file at each boundary: the even-numbered ones (K = 2, 4, …) hold the
/// steps, in the order the workload runs them.
///
/// A large save returns before the container's index has its changes, which another thread applies
/// meanwhile; the next fetch waits for them. So without more, that work lands in whichever dump is
/// open when the thread runs, a step's or the next one's. With `FOLIO_BENCH_COUNT_DEFERRED=1` the step
/// runs `settle` (a fetch that waits for the index) before its closing boundary, so that each step
/// counts the work it caused. Timed runs leave it unset: a caller of `save()` does not wait either.
func measuredStep<Result>(settle: () -> Void = {}, _ body: () throws -> Result) rethrows -> Result {
    measuredStepBoundary()
    defer {
        if countsDeferredWork { settle() }
        measuredStepBoundary()
    }
    return try body()
}

/// Whether steps wait for the work their saves left to another thread (`FOLIO_BENCH_COUNT_DEFERRED=1`).
private let countsDeferredWork = ProcessInfo.processInfo.environment["FOLIO_BENCH_COUNT_DEFERRED"] == "1"

/// Does nothing, and is kept as a call of its own: the mark callgrind dumps its counts at.
@inline(never) @_optimize(none)
func measuredStepBoundary() {}
