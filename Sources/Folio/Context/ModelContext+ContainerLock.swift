@_spi(FolioEngine) import FolioStorage

/// How a context's calls hold the container's lock (``ContainerLock``): the state it owns is passed to
/// what they call, and the index they read is noted for the lookups that the app's code makes while
/// they hold it (a relationship getter in a model's encoding, a delete rule, a required relationship
/// decoded during a fetch), which cannot be handed the state.
extension ModelContext {
    /// Calls `body` with the container's state, holding its lock; throws
    /// ``FolioError/Code/reentrantCall`` naming `operation` on a thread that already holds it.
    func withContainerLock<Result>(
        refusingReentry operation: @autoclosure () -> String,
        _ body: (inout ContainerState) throws -> Result
    ) throws -> Result {
        try container.lock.withLock(refusingReentry: operation()) { state in
            defer { heldIndex = nil }
            return try body(&state)
        }
    }

    /// The container's index, its records read first if they were not yet
    /// (``ModelContainer/index(in:)``), noted as ``heldIndex`` until the hold ends.
    func index(in state: inout ContainerState) throws -> RecordIndex {
        let index = try container.index(in: &state)
        heldIndex = index
        return index
    }
}
