import FolioStorage

/// One step of bringing a store to the container's schema: a plan's stage, a step Folio infers between
/// two versions of a plan that no stage joins, or the step it infers when there is no plan. It is written as record migrations (``RecordMigration``) that the storage
/// engine applies to every record of an entity at once.
struct MigrationStep {
    /// The versions it goes between, for the history entry and messages: `1.0.0 → 2.0.0`.
    let name: String
    /// What it does to the stored records: renamed and removed properties, removed entities.
    let migrations: [RecordMigration]
    /// `#Unique` groups and `.unique` attributes it adds: the migrated records must hold no duplicates.
    let addedUniqueness: [(entity: String, properties: [String])]
    /// Properties it adds, or whose stored type a custom stage changes, that old records have no value
    /// for and no default (only a custom stage's `didMigrate` can fill them): every record must have a
    /// value once the stages ran.
    let addedRequired: [(entity: String, property: String)]
    /// A custom stage's code and the schemas it runs over; nil for a lightweight step.
    let custom: CustomStage?

    /// The code of a `MigrationStage.custom`: `willMigrate` sees the records as `from`'s models before the
    /// step's record migrations, `didMigrate` as `to`'s models after them.
    struct CustomStage {
        let from: Schema
        let to: Schema
        let willMigrate: (@Sendable (ModelContext) throws -> Void)?
        let didMigrate: (@Sendable (ModelContext) throws -> Void)?
    }

    /// The step that carries out `changes` (and, for a custom stage, runs its code around them).
    init(name: String, changes: [SchemaChange], custom: CustomStage? = nil) {
        self.name = name
        self.custom = custom
        var byEntity: [String: RecordMigration] = [:]
        var addedUniqueness: [(entity: String, properties: [String])] = []
        var addedRequired: [(entity: String, property: String)] = []
        for change in changes {
            switch change {
            case .entityRemoved(let entity):
                byEntity[entity] = RecordMigration(entity: entity, removesEntity: true)
            case .propertyRemoved(let entity, let property):
                byEntity[entity, default: RecordMigration(entity: entity)].removedMembers.append(property)
            case .propertyRenamed(let entity, let from, let to):
                byEntity[entity, default: RecordMigration(entity: entity)].renamedMembers[from] = to
            case .uniquenessAdded(let entity, let properties):
                addedUniqueness.append((entity, properties))
            case .attributeAdded(let entity, let property, _, false, false),
                .relationshipAdded(let entity, let property, _, false, false),
                .madeRequired(let entity, let property, _, false):
                addedRequired.append((entity, property))
            case .typeChanged(let entity, let property, _, _), .toOneBecameToMany(let entity, let property, _),
                .toManyBecameToOne(let entity, let property, _), .destinationChanged(let entity, let property, _, _):
                // Only a custom stage gets here: the old values go (willMigrate has read them), and its
                // didMigrate sets the new ones, which a required property must then have.
                var migration = byEntity[entity, default: RecordMigration(entity: entity)]
                if let original = migration.renamedMembers.first(where: { $0.value == property })?.key {
                    migration.renamedMembers[original] = nil
                    migration.removedMembers.append(original)
                } else {
                    migration.removedMembers.append(property)
                }
                byEntity[entity] = migration
                if let target = custom?.to.entitiesByName[entity],
                    SchemaCheck.requiredProperties(of: target).contains(where: { $0.name == property })
                {
                    addedRequired.append((entity, property))
                }
            default:
                // Added properties read their declared default (``StoredDefaults``); the other
                // lightweight changes leave the stored values as they are.
                break
            }
        }
        self.migrations = byEntity.keys.sorted().compactMap { entity in
            guard var migration = byEntity[entity] else { return nil }
            migration.removedMembers.sort()
            return migration
        }
        self.addedUniqueness = addedUniqueness
        self.addedRequired = addedRequired
    }

    /// Whether the step changes no stored record and adds no constraint to check.
    var changesNothingStored: Bool { migrations.isEmpty && addedUniqueness.isEmpty }
}
