/// The changes from the schema a store records to the models that open it, classified as SwiftData
/// classifies them (see ``SchemaChange/isLightweight`` and `docs/migration.md`).
package enum SchemaDifference {
    /// The changes from `old` to `new`, in a stable order: entities by name, then properties by name.
    package static func changes(from old: RecordedSchema, to new: Schema) -> [SchemaChange] {
        let recordedNew = RecordedSchema(new)
        var changes: [SchemaChange] = []
        for name in Set(old.entities.keys).union(recordedNew.entities.keys).sorted() {
            switch (old.entities[name], recordedNew.entities[name]) {
            case (nil, .some):
                changes.append(.entityAdded(entity: name))
            case (.some, nil):
                changes.append(.entityRemoved(entity: name))
            case (let before?, let after?):
                changes += entityChanges(before, after, defaults: defaultedProperties(of: new.entitiesByName[name]))
            case (nil, nil):
                break
            }
        }
        return changes
    }

    /// The changes that need a custom stage.
    package static func needingCustomStage(_ changes: [SchemaChange]) -> [SchemaChange] {
        changes.filter { !$0.isLightweight }
    }

    /// Refuses changes Folio cannot infer, with a ``FolioError/Code/migrationRequired`` error that lists
    /// each one (entity, property, old and new type) and names the stage to write.
    ///
    /// - Parameters:
    ///   - from: the store's version, as the message names it (`1.0.0`, or `NotesSchemaV1 (1.0.0)`).
    ///   - to: the models' version, named alike.
    package static func requireLightweight(
        _ changes: [SchemaChange], from: String, to: String,
        store: String
    ) throws {
        let blocking = needingCustomStage(changes)
        guard !blocking.isEmpty else { return }
        throw FolioError(
            .migrationRequired,
            """
            The store at \(store) was written by schema \(from), and opening it with schema \(to) needs \
            \(blocking.count == 1 ? "a change" : "changes") Folio cannot infer:
            \(list(blocking))
            \(advice(for: blocking, stage: "a MigrationStage.custom from \(from) to \(to) in a SchemaMigrationPlan",
                     thenOpen: true))
            """)
    }

    /// Refuses changes Folio cannot infer between two adjacent versions of `plan` that no stage joins,
    /// naming both versions, each change and the stage to add to the plan.
    package static func requireLightweight(
        _ changes: [SchemaChange], from: any VersionedSchema.Type,
        to: any VersionedSchema.Type, noStageIn plan: any SchemaMigrationPlan.Type,
        store: String
    ) throws {
        let blocking = needingCustomStage(changes)
        guard !blocking.isEmpty else { return }
        let fromLabel = MigrationPlanning.label(from), toLabel = MigrationPlanning.label(to)
        let stage =
            "MigrationStage.custom(fromVersion: \(String(describing: from)).self, toVersion: "
            + "\(String(describing: to)).self, willMigrate:didMigrate:) in the plan's stages"
        throw FolioError(
            .migrationRequired,
            """
            The store at \(store) cannot be migrated from \(fromLabel) to \(toLabel): the migration plan \
            \(String(describing: plan)) has no stage between them, and Folio cannot infer \
            \(blocking.count == 1 ? "this change" : "these changes"):
            \(list(blocking))
            \(advice(for: blocking, stage: "a \(stage)", thenOpen: false)) The store was left unchanged.
            """)
    }

    /// The changes, one a line.
    private static func list(_ changes: [SchemaChange]) -> String {
        changes.map { "  \($0)" }.joined(separator: "\n")
    }

    /// What to write for changes that need a stage: `stage` names it.
    private static func advice(for blocking: [SchemaChange], stage: String, thenOpen: Bool) -> String {
        guard blocking.allSatisfy(\.isFilledByCustomStage) else {
            return """
                Folio does not move records to another superentity, even in a custom stage. Declare the entity \
                anew under its new superentity. Write \(stage) whose didMigrate copies the records across, and \
                remove the old entity in a later version.
                """
        }
        let open = thenOpen ? ", and open the container with ModelContainer(for:migrationPlan:configurations:)" : ""
        return """
            Write \(stage) that converts these values: willMigrate sees the old models (read the old values \
            there), didMigrate the new ones (set the new values there)\(open).
            """
    }

    private static func entityChanges(
        _ old: RecordedSchema.Entity, _ new: RecordedSchema.Entity,
        defaults: Set<String>
    ) -> [SchemaChange] {
        let entity = new.name
        var changes: [SchemaChange] = []
        switch (old.superentity, new.superentity) {
        case (nil, let added?): changes.append(.superentityAdded(entity: entity, superentity: added))
        case (let before, let after) where before != after: changes.append(.superentityChanged(entity: entity, from: before, to: after))
        default: break
        }
        let oldProperties = old.storedProperties
        var matchedOldNames: Set<String> = []
        for (name, property) in new.storedProperties.sorted(by: { $0.key < $1.key }) {
            if let before = oldProperties[name] {
                matchedOldNames.insert(name)
                changes += propertyChanges(entity: entity, before, property, hasDefault: defaults.contains(name))
            } else if let originalName = property.originalName, let before = oldProperties[originalName],
                new.storedProperties[originalName] == nil
            {
                matchedOldNames.insert(originalName)
                changes.append(.propertyRenamed(entity: entity, from: originalName, to: name))
                changes += propertyChanges(entity: entity, before, property, hasDefault: defaults.contains(name))
            } else if let before = renamedBack(to: name, from: oldProperties, new: new.storedProperties) {
                matchedOldNames.insert(before.name)
                changes.append(.propertyRenamed(entity: entity, from: before.name, to: name))
                changes += propertyChanges(entity: entity, before, property, hasDefault: defaults.contains(name))
            } else if property.isRelationship {
                changes.append(
                    .relationshipAdded(
                        entity: entity, property: name, destination: property.destination ?? "",
                        isToMany: property.isToMany, isOptional: property.isOptional))
            } else {
                changes.append(
                    .attributeAdded(
                        entity: entity, property: name, type: property.type ?? "",
                        isOptional: property.isOptional, hasDefault: defaults.contains(name)))
            }
        }
        for name in oldProperties.keys.sorted() where !matchedOldNames.contains(name) {
            changes.append(.propertyRemoved(entity: entity, property: name))
        }
        let oldGroups = Set(old.uniqueness.map { $0.sorted() })
        let newGroups = Set(new.uniqueness.map { $0.sorted() })
        for group in newGroups.subtracting(oldGroups).sorted(by: { $0.lexicographicallyPrecedes($1) }) {
            changes.append(.uniquenessAdded(entity: entity, properties: group))
        }
        for group in oldGroups.subtracting(newGroups).sorted(by: { $0.lexicographicallyPrecedes($1) }) {
            changes.append(.uniquenessRemoved(entity: entity, properties: group))
        }
        return changes
    }

    private static func propertyChanges(
        entity: String, _ old: RecordedSchema.Property, _ new: RecordedSchema.Property,
        hasDefault: Bool
    ) -> [SchemaChange] {
        let name = new.name
        guard old.kind == new.kind else {
            return [.typeChanged(entity: entity, property: name, from: old.typeDescription, to: new.typeDescription)]
        }
        var changes: [SchemaChange] = []
        if new.isRelationship {
            let oldDestination = old.destination ?? "", newDestination = new.destination ?? ""
            if oldDestination != newDestination {
                changes.append(.destinationChanged(entity: entity, property: name, from: oldDestination, to: newDestination))
            }
            if !old.isToMany, new.isToMany {
                changes.append(.toOneBecameToMany(entity: entity, property: name, destination: newDestination))
            } else if old.isToMany, !new.isToMany {
                changes.append(.toManyBecameToOne(entity: entity, property: name, destination: newDestination))
            }
        } else if old.type != new.type {
            changes.append(.typeChanged(entity: entity, property: name, from: old.type ?? "?", to: new.type ?? "?"))
        }
        // Optionality of a to-many relationship means nothing for its records: nil holds no models.
        let arityKept = old.isToMany == new.isToMany && !new.isToMany
        if arityKept || !new.isRelationship {
            if !old.isOptional, new.isOptional {
                changes.append(.madeOptional(entity: entity, property: name))
            } else if old.isOptional, !new.isOptional {
                changes.append(
                    .madeRequired(
                        entity: entity, property: name, type: new.typeDescription,
                        hasDefault: hasDefault && !new.isRelationship))
            }
        }
        return changes
    }

    /// The old property that a new property named `name` renames back: the old one was renamed from
    /// `name` (its `originalName`), and no new property keeps the old name or renames it forward. Core
    /// Data matches renamed properties by their renaming identifier on both sides, so a stage down to an
    /// older version carries a renamed value back to its original name.
    private static func renamedBack(
        to name: String, from old: [String: RecordedSchema.Property],
        new: [String: RecordedSchema.Property]
    ) -> RecordedSchema.Property? {
        let candidates = old.values.filter { property in
            property.originalName == name && new[property.name] == nil
                && !new.values.contains { $0.originalName == property.name }
        }
        return candidates.count == 1 ? candidates.first : nil
    }

    /// The properties of an entity that declare a default value.
    private static func defaultedProperties(of entity: Schema.Entity?) -> Set<String> {
        guard let entity else { return [] }
        return Set(
            entity.properties.compactMap { property in
                entity.metadataByName[property.name]?.defaultValue != nil ? property.name : nil
            })
    }
}
