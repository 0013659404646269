/// Makes an actor a model actor, as SwiftData's `@ModelActor` does.
///
/// The macro adds `nonisolated let modelContainer: ModelContainer`, `nonisolated let modelExecutor:
/// any ModelExecutor`, an `init(modelContainer:)` that gives the actor a ``DefaultSerialModelExecutor``
/// owning a new ``ModelContext`` of the container, and the ``ModelActor`` conformance:
///
/// ```swift
/// @ModelActor
/// actor Importer {
///     func add(_ names: [String]) throws {
///         for name in names { modelContext.insert(Trip(name: name)) }
///         try modelContext.save()
///     }
/// }
/// let importer = Importer(modelContainer: container)
/// ```
///
/// An initializer of your own sets the two properties itself:
///
/// ```swift
/// init(container: ModelContainer, batchSize: Int) {
///     self.modelContainer = container
///     self.modelExecutor = DefaultSerialModelExecutor(modelContext: ModelContext(container))
///     self.batchSize = batchSize
/// }
/// ```
///
/// The macro leaves out what the actor declares itself: a `modelContainer` or `modelExecutor`
/// property, or an `init(modelContainer:)`. It leaves out `init(modelContainer:)` too when the actor
/// has stored properties that need a value from an initializer, which that one could not give.
@attached(member, names: named(modelExecutor), named(modelContainer), named(init))
@attached(extension, conformances: ModelActor)
public macro ModelActor() = #externalMacro(module: "FolioMacros", type: "ModelActorMacro")
