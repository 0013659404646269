import Dispatch

/// A serial model executor that runs its jobs, one at a time, on a dispatch queue of its own.
///
/// ```swift
/// actor Importer: ModelActor {
///     nonisolated let modelContainer: ModelContainer
///     nonisolated let modelExecutor: any ModelExecutor
///     init(modelContainer: ModelContainer) {
///         self.modelContainer = modelContainer
///         self.modelExecutor = DefaultSerialModelExecutor(modelContext: ModelContext(modelContainer))
///     }
/// }
/// ```
///
/// `@ModelActor` writes that for you. The executor's queue targets the global concurrent queue, so
/// many model actors share the system's threads, and the work of each one is serial. The context's
/// autosave runs on the same queue, between the actor's jobs.
public final class DefaultSerialModelExecutor: SerialModelExecutor {
    /// Runs the jobs and the context's autosaves, one at a time.
    private let queue: DispatchQueue
    /// The context, touched only by work on ``queue``: the initializer takes it over (`sending`), and
    /// ``modelContext`` checks the queue, so no two threads ever use it at once.
    // Sendable: the context is used only on `queue` (the initializer takes it over, `modelContext` checks).
    private nonisolated(unsafe) let context: ModelContext
    /// Marks ``queue``, so that work can tell whether it runs there.
    private let queueKey = DispatchSpecificKey<UInt8>()

    /// Creates an executor that owns `modelContext`.
    ///
    /// The context passes to the executor: use it afterwards only from work the executor runs (the
    /// model actor's methods), through ``modelContext``. Its autosave, if enabled, runs on the
    /// executor too.
    public init(modelContext: sending ModelContext) {
        queue = DispatchQueue(label: "Folio.DefaultSerialModelExecutor")
        context = modelContext
        queue.setSpecific(key: queueKey, value: 1)
        modelContext.autosaveQueue = queue
    }

    /// The context the executor's work uses.
    ///
    /// - Precondition: Called from work the executor runs (a method of its model actor). Reading it
    ///   from elsewhere would let two threads use the context at once, so it stops the program.
    public var modelContext: ModelContext {
        dispatchPrecondition(condition: .onQueue(queue))
        return context
    }

    /// Runs `job` on the executor's queue, after the jobs enqueued before it.
    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { [self] in
            job.runSynchronously(on: asUnownedSerialExecutor())
        }
    }

    /// Whether the caller runs on the executor: in a job of its model actor, or in the context's autosave.
    public func isIsolatingCurrentContext() -> Bool? {
        DispatchQueue.getSpecific(key: queueKey) != nil
    }

    /// Stops the program unless the caller runs on the executor's queue; lets `assumeIsolated` work in
    /// code the queue runs outside a job.
    public func checkIsolated() {
        dispatchPrecondition(condition: .onQueue(queue))
    }
}
