/// Finds a store's version among a plan's schemas, the version the models open it as, and the steps
/// between them (see ``PlanStep``).
package enum MigrationPlanning {
    /// Which of `schemas` wrote the store: the one whose checksum equals the recorded one (for a store
    /// written before checksums were recorded, the checksum of its recorded structure). Schemas that
    /// differ only in what the checksum leaves out (indexes) share a checksum; then the one whose
    /// version identifier the store records wins, else the newest of them.
    ///
    /// - Throws: ``FolioError/Code/schemaMismatch`` when none matches, naming the store's version and
    ///   the plan's: the store is newer than every schema of the plan, or a shipped version was changed.
    package static func sourceIndex(
        of recorded: RecordedSchema, in schemas: [any VersionedSchema.Type],
        store: String
    ) throws -> Int {
        let candidates = schemas.map { Schema(versionedSchema: $0) }
        let checksum = recorded.checksum
        if let match = bestMatch(checksum: checksum, version: recorded.version, in: candidates) { return match }

        let stored = recorded.version ?? "(none recorded)"
        let planVersions = schemas.map { label($0) }.joined(separator: ", ")
        if let version = recorded.parsedVersion, let newest = newestIndex(of: schemas),
            version > schemas[newest].versionIdentifier
        {
            throw FolioError(
                .schemaMismatch,
                """
                The store at \(store) was written by schema version \(version), newer than every schema in \
                the migration plan (the newest is \(label(schemas[newest]))); it was left unchanged. Open it \
                with the app version that wrote it, or add that version's VersionedSchema to the plan.
                """)
        }
        if let sameVersion = candidates.firstIndex(where: { $0.version.description == recorded.version }) {
            let changes = SchemaDifference.changes(from: recorded, to: candidates[sameVersion])
            let list = changes.prefix(5).map { "  \($0)" }.joined(separator: "\n")
            throw FolioError(
                .schemaMismatch,
                """
                The store at \(store) records schema version \(stored), but its schema differs from \
                \(label(schemas[sameVersion]))'s (checksum \(checksum.prefix(12)) against \
                \(candidates[sameVersion].checksum.prefix(12))): the models of a shipped version were changed. \
                Keep that version's models as they shipped and declare the change as a new VersionedSchema \
                with a stage:
                \(list)
                """)
        }
        throw FolioError(
            .schemaMismatch,
            """
            The store at \(store) records schema version \(stored) (checksum \(checksum.prefix(12))), which \
            matches none of the migration plan's schemas (\(planVersions)); it was left unchanged. Add the \
            VersionedSchema that wrote it to the plan's schemas.
            """)
    }

    /// Which of `schemas` the container's models are: the one with their checksum (the one with their
    /// version identifier too, if several share it); nil when the models match none of them.
    package static func targetIndex(of schema: Schema, in schemas: [any VersionedSchema.Type]) -> Int? {
        bestMatch(
            checksum: schema.checksum, version: schema.version.description,
            in: schemas.map { Schema(versionedSchema: $0) })
    }

    /// The schema with the greatest version identifier, the first listed if several share it.
    package static func newestIndex(of schemas: [any VersionedSchema.Type]) -> Int? {
        schemas.indices.max { schemas[$0].versionIdentifier < schemas[$1].versionIdentifier }
    }

    /// Among the candidates with `checksum`: the one declaring `version`, else the newest.
    private static func bestMatch(checksum: String, version: String?, in candidates: [Schema]) -> Int? {
        let matching = candidates.indices.filter { candidates[$0].checksum == checksum }
        if let exact = matching.last(where: { candidates[$0].version.description == version }) { return exact }
        return matching.max { candidates[$0].version < candidates[$1].version }
    }

    /// `NotesSchemaV2 (2.0.0)`.
    static func label(_ schema: any VersionedSchema.Type) -> String {
        "\(String(describing: schema)) (\(schema.versionIdentifier))"
    }
}
