/// Collects entities from model classes, then makes them whole in one step (``build()``): properties
/// (inherited first), constraints, inverse relationships, and the inheritance tree.
///
/// The entities it makes are not changed afterwards. What depends on other entities (a subclass's
/// inherited properties, an inferred inverse) is worked out on plain values first; then the entities
/// are made, those that inherit from others before their superentities, each given its subentities.
struct SchemaBuilder {
    /// An entity collected: its class, or what the store records of an entity whose class is not here.
    private struct Candidate {
        let name: String
        let modelType: any PersistentModel.Type
        let isUnlisted: Bool
        let recordedOnly: RecordedOnlyEntity?
    }

    /// Everything an entity holds but its place in the tree.
    struct EntityLayout {
        let name: String
        let modelType: any PersistentModel.Type
        let isUnlisted: Bool
        let recordedOnly: RecordedOnlyEntity?
        var declaredProperties: [any SchemaProperty] = []
        var properties: [any SchemaProperty] = []
        var uniquenessConstraints: [[String]] = []
        var indices: [[String]] = []
        var metadataByName: [String: Schema.PropertyMetadata] = [:]

        /// The relationships, inherited ones included, by name.
        var relationshipsByName: [String: Schema.Relationship] {
            Dictionary(properties.compactMap { $0 as? Schema.Relationship }.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        }
    }

    private var candidates: [Candidate] = []
    /// What is wrong with the model declarations, in words.
    var problems: [String] = []
    private var byType: [ObjectIdentifier: Int] = [:]
    /// The position of each class's entity among those added.
    var typePositions: [ObjectIdentifier: Int] { byType }

    /// Adds `type`, its superclasses and the models its relationships refer to; `unlisted` marks the
    /// entities this adds as unlisted (see ``Schema/Entity/isUnlisted``).
    mutating func add(_ type: any PersistentModel.Type, unlisted: Bool = false) {
        let key = ObjectIdentifier(type)
        guard byType[key] == nil else { return }
        let name = type._folioEntityName
        byType[key] = candidates.count
        if let clash = candidates.first(where: { $0.name == name }) {
            problems.append("Two model classes, \(clash.modelType) and \(type), have the entity name '\(name)'; rename one of them")
        }
        candidates.append(Candidate(name: name, modelType: type, isUnlisted: unlisted, recordedOnly: nil))
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
        var pending = recorded.filter { candidate in !candidates.contains { $0.name == candidate.name } }
        // Superentities first: each pass adds those whose superentity is already in.
        while !pending.isEmpty {
            var added = false
            pending.removeAll { entity in
                let parent = entity.superentity.flatMap { name in candidates.first { $0.name == name } }
                if entity.superentity != nil && parent == nil { return false }
                let type = parent?.modelType ?? PlaceholderModel.self
                candidates.append(Candidate(name: entity.name, modelType: type, isUnlisted: true, recordedOnly: entity))
                added = true
                return true
            }
            if !added { break }
        }
    }

    /// Makes the entities, in the order they were added; ``problems`` then holds what is wrong with them.
    mutating func build() -> [Schema.Entity] {
        let parents = candidates.map(parent(of:))
        let depths = candidates.indices.map { depth(of: $0, parents: parents) }
        // Parents before children, so that inherited properties are complete when a child copies them.
        var layouts: [EntityLayout?] = Array(repeating: nil, count: candidates.count)
        for position in candidates.indices.sorted(by: { depths[$0] < depths[$1] }) {
            layouts[position] = layout(of: candidates[position], parent: parents[position].flatMap { layouts[$0] })
        }
        let complete = withInverses(layouts.compactMap { $0 }, parents: parents)
        // Children before parents: an entity is made with its subentities.
        var children = Array(repeating: [Int](), count: candidates.count)
        for (position, parent) in parents.enumerated() { if let parent { children[parent].append(position) } }
        var entities: [Schema.Entity?] = Array(repeating: nil, count: candidates.count)
        for position in candidates.indices.sorted(by: { depths[$0] > depths[$1] }) {
            entities[position] = Schema.Entity(complete[position], subentities: children[position].compactMap { entities[$0] })
        }
        return entities.compactMap { $0 }
    }

    /// The position of the entity `candidate` inherits from, if the builder has it.
    private func parent(of candidate: Candidate) -> Int? {
        if let recorded = candidate.recordedOnly {
            return recorded.superentity.flatMap { name in candidates.firstIndex { $0.name == name } }
        }
        return candidate.modelType._folioSuperclass.flatMap { byType[ObjectIdentifier($0)] }
    }

    private func depth(of position: Int, parents: [Int?]) -> Int {
        var depth = 0
        var current = parents[position]
        while let parent = current, depth <= parents.count {
            depth += 1
            current = parents[parent]
        }
        return depth
    }

    /// The properties and constraints of `candidate`, whose superentity's are `parent`'s.
    private mutating func layout(of candidate: Candidate, parent: EntityLayout?) -> EntityLayout {
        var layout = EntityLayout(
            name: candidate.name, modelType: candidate.modelType, isUnlisted: candidate.isUnlisted,
            recordedOnly: candidate.recordedOnly)
        if candidate.recordedOnly != nil {
            // Its own properties are only recorded, since no class of this process reads or writes them.
            if let parent {
                layout.properties = parent.properties
                layout.uniquenessConstraints = parent.uniquenessConstraints
                layout.indices = parent.indices
                layout.metadataByName = parent.metadataByName
            }
            return layout
        }
        var declared: [any SchemaProperty] = []
        var uniques = candidate.modelType._folioUniqueConstraints
        for metadata in candidate.modelType.schemaMetadata {
            let property = declaredProperty(metadata, of: candidate.name)
            if property.isUnique { uniques.append([metadata.name]) }
            declared.append(property)
            layout.metadataByName[metadata.name] = metadata
        }
        layout.declaredProperties = declared
        if let parent {
            layout.properties = parent.properties + declared
            layout.uniquenessConstraints = parent.uniquenessConstraints + uniques
            layout.indices = parent.indices + candidate.modelType._folioIndexes
            layout.metadataByName.merge(parent.metadataByName) { own, _ in own }
        } else {
            layout.properties = declared
            layout.uniquenessConstraints = uniques
            layout.indices = candidate.modelType._folioIndexes
        }
        return layout
    }

    /// The attribute or relationship `metadata` describes, its inverse not yet named.
    private mutating func declaredProperty(_ metadata: Schema.PropertyMetadata, of entity: String) -> any SchemaProperty {
        let kind = ValueKind.of(metadata.valueType)
        if kind.isRelationship {
            if metadata.metadata is Schema.Attribute {
                problems.append("\(entity).\(metadata.name) refers to models, so it is a relationship; use @Relationship instead of @Attribute")
            }
            let declared = (metadata.metadata as? Schema.Relationship) ?? Schema.Relationship()
            return declared.completed(from: metadata, kind: kind)
        }
        if metadata.metadata is Schema.Relationship {
            problems.append(
                "\(entity).\(metadata.name) has type \(metadata.valueType), which is not a model or a collection of models; @Relationship needs one")
        }
        if !(metadata.valueType is any Codable.Type) {
            problems.append(
                "\(entity).\(metadata.name) has type \(metadata.valueType), which is neither Codable nor a model, so it cannot be stored; make the type Codable or mark the property @Transient"
            )
        }
        let declared = (metadata.metadata as? Schema.Attribute) ?? Schema.Attribute()
        return declared.completed(from: metadata)
    }
}
