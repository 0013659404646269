/// An executor that owns a model context and runs the work that uses it.
///
/// A model actor runs on its model executor, and reaches its context through
/// ``ModelActor/modelContext`` rather than through the executor.
///
/// Unlike SwiftData's, Folio's model executors are serial executors: a context is used from one
/// thread at a time, so an executor that could run two jobs at once could not own one, and the
/// compiler, not a check at run time, refuses such an executor.
public protocol ModelExecutor: SerialExecutor {
    /// The context the executor's work uses.
    var modelContext: ModelContext { get }
}

/// A model executor that runs one job at a time, as a model context requires: a context is used
/// from one thread at a time.
public protocol SerialModelExecutor: ModelExecutor, SerialExecutor {}
