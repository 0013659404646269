@_spi(FolioEngine) import FolioStorage
import Synchronization

/// The schema, its description and its generation, replaced together under the container's
/// `schemaState` lock; a ``Schema`` is never changed once built.
struct SchemaState: Sendable {
    var schema: Schema
    /// ``schema`` as the store records it (see `SchemaDescription`).
    var description: JSONValue
    /// How many times the schema was replaced.
    var generation = 0
}

/// Subclasses the container's models do not list (see `Schema+UnlistedEntities.swift`): added to the
/// schema from any thread, under the schema's own lock, never the container's `lock`, which a save
/// holding it while a delete rule inserts a model would otherwise take again.
extension ModelContainer {
    /// `schema` with the subclasses the store's schema slot `recorded` holds that the models do not
    /// list (``Schema/adoptingUnlisted(from:)``). A slot that does not parse leaves the schema as it is:
    /// the migration check reports it.
    static func schema(_ schema: Schema, adoptingUnlistedIn recorded: JSONValue?) -> Schema {
        guard let recorded, let parsed = try? RecordedSchema(parsing: recorded),
            parsed.entities.keys.contains(where: { schema.entitiesByName[$0] == nil })
        else { return schema }
        return schema.adoptingUnlisted(from: parsed)
    }

    /// Adds `type`, a subclass of one of the schema's classes that the models do not list, to the
    /// schema, with what it refers to; nothing when the schema has it already.
    ///
    /// - Throws: ``FolioError/Code/invalidModel`` naming the class when no class it inherits from is in
    ///   the schema, or when it cannot be stored (a property that is not `Codable`, a clashing name).
    func addUnlistedSubclass(_ type: any PersistentModel.Type) throws {
        try schemaState.withLock { state throws(FolioError) in
            let current = state.schema
            if current.hasOwnEntity(for: type) { return }
            guard let ancestor = current.listedAncestor(of: type) else {
                throw FolioError(
                    .invalidModel,
                    """
                    \(type) is not in the container's schema, and neither is any model class it inherits from, so \
                    its models cannot be stored; list \(type) in the ModelContainer (ModelContainer(for: …, \
                    \(type).self)) or in the Schema it is made with, or delete the model from the context before saving
                    """)
            }
            let extended = current.addingUnlisted(type)
            let problems = extended.problems.filter { !current.problems.contains($0) }
            guard problems.isEmpty else {
                throw FolioError(
                    .invalidModel,
                    "\(type), a subclass of \(ancestor) that the container's models do not list, cannot be stored:\n  "
                        + problems.joined(separator: "\n  "))
            }
            publish(extended, in: &state)
        }
    }

    /// Adds the unlisted entities the store's schema slot `recorded` holds and the schema lacks: those
    /// another container (in this process or another) added and stored records of.
    func adoptUnlistedEntities(recordedIn recorded: JSONValue?) {
        guard let recorded, recorded != schemaDescription else { return }
        schemaState.withLock { state in
            let adopted = Self.schema(state.schema, adoptingUnlistedIn: recorded)
            if adopted !== state.schema { publish(adopted, in: &state) }
        }
    }

    private func publish(_ schema: Schema, in state: inout SchemaState) {
        state = SchemaState(schema: schema, description: SchemaDescription.make(schema), generation: state.generation + 1)
        schemaGeneration.store(state.generation, ordering: .releasing)
    }

    /// The schema and its generation, read together.
    var schemaAndGeneration: (schema: Schema, generation: Int) {
        schemaState.withLock { ($0.schema, $0.generation) }
    }

    /// Builds the index again for the current schema, over the same version of the records: the new
    /// entities' indexes and stored defaults exist only in an index made for them. It reads every
    /// record once, once per subclass added.
    func reindexForNewSchema(_ state: inout ContainerState) {
        let (schema, generation) = schemaAndGeneration
        let index = RecordIndex(schema: schema, indexingDeclaredIndices: indexesDeclaredIndices)
        if state.isIndexLoaded { index.load(state.indexStorage.records) }
        state.indexStorage = index
        state.indexedSchemaGeneration = generation
    }

    /// Whether a save should record the schema: it gained unlisted entities since the store last
    /// recorded it. The generation to note with ``noteSchemaRecorded(generation:in:)`` once written, or nil.
    func schemaGenerationToRecord(_ state: ContainerState) -> Int? {
        let generation = schemaGeneration.load(ordering: .acquiring)
        return generation == state.recordedSchemaGeneration ? nil : generation
    }

    /// The description a save writes into a store whose schema slot holds `recorded`: this container's,
    /// after adopting what `recorded` adds (another container's unlisted entities), so that writing it
    /// loses none of them; nil when `recorded` already is it.
    func schemaDescription(merging recorded: JSONValue?) -> JSONValue? {
        adoptUnlistedEntities(recordedIn: recorded)
        let description = schemaDescription
        return description == recorded ? nil : description
    }

    /// Notes that the store records the schema of `generation`.
    func noteSchemaRecorded(generation: Int, in state: inout ContainerState) {
        state.recordedSchemaGeneration = max(state.recordedSchemaGeneration, generation)
    }
}
