/// Collects entities from model classes and links superentities, relationship destinations and inverses.
struct SchemaBuilder {
    private(set) var entities: [Schema.Entity] = []
    private(set) var problems: [String] = []
    private var byType: [ObjectIdentifier: Schema.Entity] = [:]

    /// Adds `type`, its superclasses and the models its relationships refer to; `unlisted` marks the
    /// entities this adds as unlisted (see ``Schema/Entity/isUnlisted``).
    mutating func add(_ type: any PersistentModel.Type, unlisted: Bool = false) {
        let key = ObjectIdentifier(type)
        guard byType[key] == nil else { return }
        let entity = Schema.Entity(modelType: type, isUnlisted: unlisted)
        byType[key] = entity
        if let clash = entities.first(where: { $0.name == entity.name }) {
            problems.append("Two model classes, \(clash.modelType) and \(type), have the entity name '\(entity.name)'; rename one of them")
        }
        entities.append(entity)
        if let superclass = type._folioSuperclass { add(superclass, unlisted: unlisted) }
        for metadata in type.schemaMetadata {
            switch ValueKind.of(metadata.valueType) {
            case .toOne(let destination, _), .toMany(let destination, _):
                add(destination, unlisted: unlisted)
            case .attribute:
                break
            }
        }
    }

    /// Adds entities the store records without a class this process can find, after every class is
    /// added: each stands in with the class of its nearest superentity that has one (a root with none
    /// stands in as ``PlaceholderModel``). One whose name a class now has is that class's entity, and
    /// one whose superentity the schema lacks is left out, as the removed superentity's records are.
    mutating func addRecordedOnly(_ recorded: [RecordedOnlyEntity]) {
        var pending = recorded.filter { candidate in !entities.contains { $0.name == candidate.name } }
        // Superentities first: each pass adds those whose superentity is already in.
        while !pending.isEmpty {
            var added = false
            pending.removeAll { candidate in
                let parent = candidate.superentity.flatMap { name in entities.first { $0.name == name } }
                if candidate.superentity != nil && parent == nil { return false }
                let type = parent?.modelType ?? PlaceholderModel.self
                entities.append(Schema.Entity(recordedOnly: candidate, modelType: type))
                added = true
                return true
            }
            if !added { break }
        }
    }

    /// Fills in properties (inherited first), constraints, subentities and inverse relationships.
    mutating func link() {
        for entity in entities {
            let parent: Schema.Entity?
            if let recorded = entity.recordedOnly {
                parent = recorded.superentity.flatMap { name in entities.first { $0.name == name } }
            } else {
                parent = entity.modelType._folioSuperclass.flatMap { byType[ObjectIdentifier($0)] }
            }
            if let parent {
                entity.superentity = parent
                parent.subentities.append(entity)
            }
        }
        for entity in entities {
            entity.subentities.sort { $0.name < $1.name }
        }
        // Parents before children, so that inherited properties are complete when a child copies them.
        for entity in entities.sorted(by: { depth($0) < depth($1) }) {
            build(entity)
        }
        for entity in entities {
            for case let relationship as Schema.Relationship in entity.declaredProperties {
                linkInverse(relationship, in: entity)
            }
        }
    }

    private func depth(_ entity: Schema.Entity) -> Int {
        var depth = 0
        var current = entity.superentity
        while let parent = current {
            depth += 1
            current = parent.superentity
        }
        return depth
    }

    private mutating func build(_ entity: Schema.Entity) {
        if entity.isRecordedOnly {
            buildRecordedOnly(entity)
            return
        }
        var declared: [any SchemaProperty] = []
        var uniques = entity.modelType._folioUniqueConstraints
        for metadata in entity.modelType.schemaMetadata {
            let kind = ValueKind.of(metadata.valueType)
            if kind.isRelationship {
                if metadata.metadata is Schema.Attribute {
                    problems.append("\(entity.name).\(metadata.name) refers to models, so it is a relationship; use @Relationship instead of @Attribute")
                }
                let declaredRelationship = (metadata.metadata as? Schema.Relationship) ?? Schema.Relationship()
                let relationship = declaredRelationship.completed(from: metadata, kind: kind)
                if relationship.isUnique { uniques.append([metadata.name]) }
                declared.append(relationship)
            } else {
                if metadata.metadata is Schema.Relationship {
                    problems.append("\(entity.name).\(metadata.name) has type \(metadata.valueType), which is not a model or a collection of models; @Relationship needs one")
                }
                if !(metadata.valueType is any Codable.Type) {
                    problems.append("\(entity.name).\(metadata.name) has type \(metadata.valueType), which is neither Codable nor a model, so it cannot be stored; make the type Codable or mark the property @Transient")
                }
                let declaredAttribute = (metadata.metadata as? Schema.Attribute) ?? Schema.Attribute()
                let attribute = declaredAttribute.completed(from: metadata)
                if attribute.isUnique { uniques.append([metadata.name]) }
                declared.append(attribute)
            }
            entity.metadataByName[metadata.name] = metadata
        }
        entity.declaredProperties = declared
        if let parent = entity.superentity {
            entity.properties = parent.properties + declared
            entity.uniquenessConstraints = parent.uniquenessConstraints + uniques
            entity.indices = parent.indices + entity.modelType._folioIndexes
            entity.metadataByName.merge(parent.metadataByName) { own, _ in own }
        } else {
            entity.properties = declared
            entity.uniquenessConstraints = uniques
            entity.indices = entity.modelType._folioIndexes
        }
        entity.indexProperties()
    }

    /// A recorded-only entity has what its superentity has: its own properties are only recorded, since
    /// no class of this process reads or writes them.
    private func buildRecordedOnly(_ entity: Schema.Entity) {
        if let parent = entity.superentity {
            entity.properties = parent.properties
            entity.uniquenessConstraints = parent.uniquenessConstraints
            entity.indices = parent.indices
            entity.metadataByName = parent.metadataByName
        }
        entity.indexProperties()
    }

    private mutating func linkInverse(_ relationship: Schema.Relationship, in entity: Schema.Entity) {
        guard let destinationType = relationship.destinationType,
              let destination = byType[ObjectIdentifier(destinationType)] else { return }
        let candidates = destination.relationshipsByName.values.filter { candidate in
            guard let target = candidate.destinationType, let targetEntity = byType[ObjectIdentifier(target)] else {
                return false
            }
            return entity.isKind(of: targetEntity) && !(candidate === relationship)
        }
        if let keyPath = relationship.inverseKeyPath {
            guard let inverse = destination.metadataByName.values.first(where: { $0.keypath == keyPath }) else {
                problems.append("\(entity.name).\(relationship.name) declares an inverse that is not a persisted property of \(destination.name)")
                return
            }
            relationship.inverseName = inverse.name
            if let other = destination.relationshipsByName[inverse.name], other.inverseName == nil {
                other.inverseName = relationship.name
            }
            return
        }
        if relationship.inverseName == nil, candidates.count == 1, let only = candidates.first,
           only.inverseKeyPath == nil || only.inverseName == relationship.name {
            // Infer only when exactly one relationship on the other side points back, as SwiftData does.
            let backCandidates = entity.relationshipsByName.values.filter { $0.destination == relationship.destination }
            if backCandidates.count == 1 {
                relationship.inverseName = only.name
            }
        }
    }
}
