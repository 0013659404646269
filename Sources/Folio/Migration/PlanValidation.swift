extension MigrationPlanning {
    /// Refuses a plan that cannot be used whatever the store's version.
    ///
    /// The order of `schemas` is not checked: versions are told apart by their checksums and ordered by
    /// their version identifiers, and stages say themselves which way they go (as SwiftData, where a
    /// plan may list its schemas newest first).
    ///
    /// - Throws: ``FolioError/Code/invalidSchema`` for no schemas, two schemas with one version
    ///   identifier, a stage naming a schema the plan does not list, a stage from a version to itself,
    ///   or two stages from one version in the same direction.
    package static func validate(_ plan: any SchemaMigrationPlan.Type) throws {
        let schemas = plan.schemas
        let planName = String(describing: plan)
        guard !schemas.isEmpty else {
            throw FolioError(.invalidSchema, "The migration plan \(planName) lists no schemas; list every shipped VersionedSchema")
        }
        var byVersion: [Schema.Version: any VersionedSchema.Type] = [:]
        for schema in schemas {
            if let other = byVersion[schema.versionIdentifier] {
                throw FolioError(
                    .invalidSchema,
                    """
                    The migration plan \(planName) lists \(label(other)) and \(label(schema)), which share a \
                    version: give each VersionedSchema its own versionIdentifier, and list each once.
                    """)
            }
            byVersion[schema.versionIdentifier] = schema
        }
        var stageFrom: [Key: MigrationStage] = [:]
        for stage in plan.stages {
            let from = stage.fromVersion, to = stage.toVersion
            let description = "MigrationStage.\(stage.kindName) from \(label(from)) to \(label(to))"
            if let missing = [from, to].first(where: { position(of: $0, in: schemas) == nil }) {
                throw FolioError(
                    .invalidSchema,
                    """
                    The migration plan \(planName) has a \(description), but \(String(describing: missing)) is not \
                    in its schemas; add it to schemas.
                    """)
            }
            guard from.versionIdentifier != to.versionIdentifier else {
                throw FolioError(
                    .invalidSchema,
                    """
                    The migration plan \(planName) has a \(description), which goes nowhere: a stage goes from \
                    one version to another. Remove it.
                    """)
            }
            let key = Key(from: from.versionIdentifier, upward: from.versionIdentifier < to.versionIdentifier)
            if let other = stageFrom[key] {
                throw FolioError(
                    .invalidSchema,
                    """
                    The migration plan \(planName) has two stages from \(label(from)) \(key.upward ? "up" : "down") \
                    (to \(label(other.toVersion)) and to \(label(to))), so a store of that version could take \
                    either; keep one.
                    """)
            }
            stageFrom[key] = stage
        }
    }

    /// Where `type` is in `schemas`, by identity.
    static func position(of type: any VersionedSchema.Type, in schemas: [any VersionedSchema.Type]) -> Int? {
        schemas.firstIndex { ObjectIdentifier($0) == ObjectIdentifier(type) }
    }

    /// A version and a direction, which at most one stage may leave by.
    private struct Key: Hashable {
        let from: Schema.Version
        let upward: Bool
    }
}
