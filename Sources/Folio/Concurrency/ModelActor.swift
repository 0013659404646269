/// An actor whose work uses one model context, on the actor's own serial executor.
///
/// Attach ``ModelActor()`` to an actor to conform it; the macro adds the two properties and
/// `init(modelContainer:)`:
///
/// ```swift
/// @ModelActor
/// actor Importer {
///     func importTrips(_ names: [String]) throws -> [PersistentIdentifier] {
///         let trips = names.map { Trip(name: $0) }
///         for trip in trips { modelContext.insert(trip) }
///         try modelContext.save()
///         return trips.map(\.persistentModelID)
///     }
/// }
///
/// let identifiers = try await Importer(modelContainer: container).importTrips(["Kyoto", "Oslo"])
/// let trip = ModelContext(container).model(for: identifiers[0]) as? Trip
/// ```
///
/// Models and contexts stay on the actor; persistent identifiers, which are `Sendable`, cross to other
/// actors, where another context's ``ModelContext/model(for:)`` finds the models.
public protocol ModelActor: Actor {
    /// The container of the actor's context.
    nonisolated var modelContainer: ModelContainer { get }
    /// The executor the actor runs on, which owns its context. Reach the context through
    /// ``modelContext`` instead.
    nonisolated var modelExecutor: any ModelExecutor { get }
}

extension ModelActor {
    /// The actor's executor: its model executor, which is a serial executor.
    public nonisolated var unownedExecutor: UnownedSerialExecutor {
        modelExecutor.asUnownedSerialExecutor()
    }

    /// The context the actor's work uses.
    public var modelContext: ModelContext {
        modelExecutor.modelContext
    }

    /// The model with this identifier, as `T`: the instance the actor's context holds, or one loaded
    /// from the store; nil when the store has no such model or it is not a `T`.
    ///
    /// ```swift
    /// guard let trip = self[identifier, as: Trip.self] else { return }
    /// ```
    public subscript<T: PersistentModel>(id: PersistentIdentifier, as as: T.Type) -> T? {
        modelContext.existingModel(for: id)
    }
}
