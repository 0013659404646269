/// Runs one measured step of a workload and returns what it returns.
///
/// The step starts and ends with a call to ``measuredStepBoundary()``, so that callgrind can count
/// each step's instructions, in every thread, apart from the set-up around it (the instruction table
/// of `docs/benchmarks.md`):
///
/// ```sh
/// valgrind --tool=callgrind --dump-after='*measuredStepBoundary*' folio-bench read STORE
/// ```
///
/// writes a `callgrind.out.PID.K` file at each boundary: the even-numbered ones (K = 2, 4, …) hold the
/// steps, in the order the workload runs them.
func measuredStep<Result>(_ body: () throws -> Result) rethrows -> Result {
    measuredStepBoundary()
    defer { measuredStepBoundary() }
    return try body()
}

/// Does nothing, and is kept as a call of its own: the mark callgrind dumps its counts at.
@inline(never) @_optimize(none)
func measuredStepBoundary() {}
