/// One difference between the schema a store records and the models that open it, and whether Folio
/// infers it (a lightweight change) or it needs a custom ``MigrationStage``.
package enum SchemaChange: Hashable, Sendable, CustomStringConvertible {
    case entityAdded(entity: String)
    case entityRemoved(entity: String)
    case superentityAdded(entity: String, superentity: String)
    /// The superentity was removed (`to` nil) or replaced.
    case superentityChanged(entity: String, from: String?, to: String?)
    case attributeAdded(entity: String, property: String, type: String, isOptional: Bool, hasDefault: Bool)
    case relationshipAdded(entity: String, property: String, destination: String, isToMany: Bool, isOptional: Bool)
    case propertyRemoved(entity: String, property: String)
    /// Renamed through `originalName:`: old records hold the value under `from`.
    case propertyRenamed(entity: String, from: String, to: String)
    /// The attribute's type changed, or the property changed from attribute to relationship or back.
    case typeChanged(entity: String, property: String, from: String, to: String)
    case madeOptional(entity: String, property: String)
    /// An optional became non-optional: old records may hold no value.
    case madeRequired(entity: String, property: String, type: String, hasDefault: Bool)
    case toOneBecameToMany(entity: String, property: String, destination: String)
    case toManyBecameToOne(entity: String, property: String, destination: String)
    case destinationChanged(entity: String, property: String, from: String, to: String)
    /// A `#Unique` group or `.unique` attribute was added: the stage that runs it must find no duplicates.
    case uniquenessAdded(entity: String, properties: [String])
    case uniquenessRemoved(entity: String, properties: [String])

    /// Whether Folio infers the change, as SwiftData's lightweight migration does.
    package var isLightweight: Bool {
        switch self {
        case .entityAdded, .entityRemoved, .superentityAdded, .propertyRemoved, .propertyRenamed, .madeOptional,
            .uniquenessAdded, .uniquenessRemoved:
            return true
        case .attributeAdded(_, _, _, let isOptional, let hasDefault):
            return isOptional || hasDefault
        case .relationshipAdded(_, _, _, let isToMany, let isOptional):
            return isToMany || isOptional
        case .madeRequired(_, _, _, let hasDefault):
            return hasDefault
        case .superentityChanged, .typeChanged, .toOneBecameToMany, .toManyBecameToOne, .destinationChanged:
            return false
        }
    }

    /// Whether a custom stage can carry the change out: the stage's `didMigrate` gives every old record
    /// its new value (its `willMigrate` can read the old one first, which the stage then removes). Only
    /// a change of superentity it cannot.
    package var isFilledByCustomStage: Bool {
        switch self {
        case .superentityChanged: return false
        default: return true
        }
    }

    /// The entity the change is about.
    package var entity: String {
        switch self {
        case .entityAdded(let entity), .entityRemoved(let entity), .superentityAdded(let entity, _),
            .superentityChanged(let entity, _, _), .attributeAdded(let entity, _, _, _, _),
            .relationshipAdded(let entity, _, _, _, _), .propertyRemoved(let entity, _), .propertyRenamed(let entity, _, _),
            .typeChanged(let entity, _, _, _), .madeOptional(let entity, _), .madeRequired(let entity, _, _, _),
            .toOneBecameToMany(let entity, _, _), .toManyBecameToOne(let entity, _, _),
            .destinationChanged(let entity, _, _, _), .uniquenessAdded(let entity, _), .uniquenessRemoved(let entity, _):
            return entity
        }
    }

    /// The change in words, naming the entity and property: `Note.count: type changed from String to Int`.
    package var description: String {
        switch self {
        case .entityAdded(let entity): return "\(entity): entity added"
        case .entityRemoved(let entity): return "\(entity): entity removed (its records are dropped)"
        case .superentityAdded(let entity, let superentity): return "\(entity): now inherits from \(superentity)"
        case .superentityChanged(let entity, let from, let to):
            return "\(entity): superentity changed from \(from ?? "none") to \(to ?? "none")"
        case .attributeAdded(let entity, let property, let type, let isOptional, let hasDefault):
            if isOptional { return "\(entity).\(property): optional \(type) added (old records read nil)" }
            if hasDefault { return "\(entity).\(property): \(type) added with a default (old records read the default)" }
            return "\(entity).\(property): non-optional \(type) added without a default, so old records have no value for it"
        case .relationshipAdded(let entity, let property, let destination, let isToMany, let isOptional):
            if isToMany { return "\(entity).\(property): to-many relationship to \(destination) added (old records relate to none)" }
            if isOptional { return "\(entity).\(property): optional relationship to \(destination) added (old records read nil)" }
            return "\(entity).\(property): non-optional relationship to \(destination) added, so old records relate to no \(destination)"
        case .propertyRemoved(let entity, let property):
            return "\(entity).\(property): removed (its values stay in the history)"
        case .propertyRenamed(let entity, let from, let to): return "\(entity).\(to): renamed from \(from)"
        case .typeChanged(let entity, let property, let from, let to):
            return "\(entity).\(property): type changed from \(from) to \(to)"
        case .madeOptional(let entity, let property): return "\(entity).\(property): made optional"
        case .madeRequired(let entity, let property, let type, let hasDefault):
            return hasDefault
                ? "\(entity).\(property): made non-optional \(type) with a default (old nil values read the default)"
                : "\(entity).\(property): made non-optional \(type) without a default, so old nil values have no value to read"
        case .toOneBecameToMany(let entity, let property, let destination):
            return "\(entity).\(property): changed from to-one \(destination) to to-many \(destination)"
        case .toManyBecameToOne(let entity, let property, let destination):
            return "\(entity).\(property): changed from to-many \(destination) to to-one \(destination)"
        case .destinationChanged(let entity, let property, let from, let to):
            return "\(entity).\(property): destination changed from \(from) to \(to)"
        case .uniquenessAdded(let entity, let properties):
            return "\(entity): uniqueness of (\(properties.joined(separator: ", "))) added (existing duplicates refuse the migration)"
        case .uniquenessRemoved(let entity, let properties):
            return "\(entity): uniqueness of (\(properties.joined(separator: ", "))) removed"
        }
    }
}
