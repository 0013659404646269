/// Finds a store's version among a plan's schemas and the stages that bring it to the newest.
package enum MigrationPlanning {
    /// Which of `schemas` wrote the store: the one whose checksum equals the recorded one (for a store
    /// written before checksums were recorded, the checksum of its recorded structure). Schemas that
    /// differ only in what the checksum leaves out (indexes) share a checksum; then the one whose
    /// version identifier the store records wins, else the newest of them.
    ///
    /// - Throws: ``FolioError/Code/schemaMismatch`` when none matches, naming the store's version and
    ///   the plan's: the store is newer than every schema of the plan, or a shipped version was changed.
    package static func sourceIndex(of recorded: RecordedSchema, in schemas: [any VersionedSchema.Type],
                                    store: String) throws -> Int {
        let candidates = schemas.map { Schema(versionedSchema: $0) }
        let checksum = recorded.checksum
        let matching = candidates.indices.filter { candidates[$0].checksum == checksum }
        if let exact = matching.last(where: { candidates[$0].version.description == recorded.version }) { return exact }
        if let newest = matching.last { return newest }

        let stored = recorded.version ?? "(none recorded)"
        let planVersions = schemas.map { label($0) }.joined(separator: ", ")
        if let version = recorded.parsedVersion, let newest = schemas.map({ $0.versionIdentifier }).max(), version > newest,
           let newestSchema = schemas.last(where: { $0.versionIdentifier == newest }) {
            throw FolioError(.schemaMismatch, """
                The store at \(store) was written by schema version \(version), newer than every schema in \
                the migration plan (the newest is \(label(newestSchema))); it was left unchanged. Open it \
                with the app version that wrote it, or add that version's VersionedSchema to the plan.
                """)
        }
        if let sameVersion = candidates.firstIndex(where: { $0.version.description == recorded.version }) {
            let changes = SchemaDifference.changes(from: recorded, to: candidates[sameVersion])
            let list = changes.prefix(5).map { "  \($0)" }.joined(separator: "\n")
            throw FolioError(.schemaMismatch, """
                The store at \(store) records schema version \(stored), but its schema differs from \
                \(label(schemas[sameVersion]))'s (checksum \(checksum.prefix(12)) against \
                \(candidates[sameVersion].checksum.prefix(12))): the models of a shipped version were changed. \
                Keep that version's models as they shipped and declare the change as a new VersionedSchema \
                with a stage:
                \(list)
                """)
        }
        throw FolioError(.schemaMismatch, """
            The store at \(store) records schema version \(stored) (checksum \(checksum.prefix(12))), which \
            matches none of the migration plan's schemas (\(planVersions)); it was left unchanged. Add the \
            VersionedSchema that wrote it to the plan's schemas.
            """)
    }

    /// The stages from `schemas[source]` to the plan's newest schema, in the order they run.
    ///
    /// - Throws: ``FolioError/Code/invalidSchema`` for a plan that cannot be used: no schemas, two with
    ///   one version, schemas out of release order, a stage naming a schema the plan does not list, a
    ///   stage that does not go forward, two stages from one version, or a gap (a version no stage
    ///   leaves on the way to the newest).
    package static func stages(of plan: any SchemaMigrationPlan.Type, from source: Int) throws -> [MigrationStage] {
        let schemas = plan.schemas
        let planName = String(describing: plan)
        guard let newest = schemas.indices.last else {
            throw FolioError(.invalidSchema, "The migration plan \(planName) lists no schemas; list every shipped VersionedSchema, oldest first")
        }
        for index in schemas.indices.dropFirst() where schemas[index - 1].versionIdentifier >= schemas[index].versionIdentifier {
            let problem = schemas[index - 1].versionIdentifier == schemas[index].versionIdentifier ? "share a version" : "are out of release order"
            throw FolioError(.invalidSchema, """
                The migration plan \(planName) lists \(label(schemas[index - 1])) before \(label(schemas[index])): \
                they \(problem). List the schemas oldest first, each with its own version.
                """)
        }
        func position(_ type: any VersionedSchema.Type) -> Int? {
            schemas.firstIndex { ObjectIdentifier($0) == ObjectIdentifier(type) }
        }
        var stageFrom: [Int: MigrationStage] = [:]
        for stage in plan.stages {
            let description = "MigrationStage.\(stage.kindName) from \(label(stage.fromVersion)) to \(label(stage.toVersion))"
            guard let from = position(stage.fromVersion), let to = position(stage.toVersion) else {
                let missing = position(stage.fromVersion) == nil ? stage.fromVersion : stage.toVersion
                throw FolioError(.invalidSchema, """
                    The migration plan \(planName) has a \(description), but \(String(describing: missing)) is not \
                    in its schemas; add it to schemas in release order.
                    """)
            }
            guard from < to else {
                throw FolioError(.invalidSchema, """
                    The migration plan \(planName) has a \(description), which does not go forward: a stage goes \
                    from a schema to a later one in the plan's schemas.
                    """)
            }
            if let other = stageFrom[from] {
                throw FolioError(.invalidSchema, """
                    The migration plan \(planName) has two stages from \(label(schemas[from])) (to \
                    \(label(other.toVersion)) and to \(label(stage.toVersion))); keep one.
                    """)
            }
            stageFrom[from] = stage
        }
        var ordered: [MigrationStage] = []
        var current = source
        while current < newest {
            guard let stage = stageFrom[current], let next = position(stage.toVersion) else {
                throw FolioError(.invalidSchema, """
                    The migration plan \(planName) has no stage from \(label(schemas[current])), so a store of \
                    that version cannot reach \(label(schemas[newest])): add a MigrationStage from \
                    \(schemas[current].versionIdentifier) to \(schemas[current + 1].versionIdentifier) \
                    (.lightweight if Folio can infer the changes, .custom otherwise).
                    """)
            }
            ordered.append(stage)
            current = next
        }
        return ordered
    }

    /// `NotesSchemaV2 (2.0.0)`.
    static func label(_ schema: any VersionedSchema.Type) -> String {
        "\(String(describing: schema)) (\(schema.versionIdentifier))"
    }
}
