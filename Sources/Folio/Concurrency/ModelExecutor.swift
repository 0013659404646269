/// An executor that owns a model context and runs the work that uses it.
///
/// A model actor runs on its model executor, and reaches its context through
/// ``ModelActor/modelContext`` rather than through the executor.
public protocol ModelExecutor: Executor {
    /// The context the executor's work uses.
    var modelContext: ModelContext { get }
}

/// A model executor that runs one job at a time, as a model context requires: a context is used
/// from one thread at a time.
public protocol SerialModelExecutor: ModelExecutor, SerialExecutor {}
