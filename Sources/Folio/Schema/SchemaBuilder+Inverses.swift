/// Naming each relationship's inverse: the one `inverse:` declares, or the one relationship of the
/// destination that points back when there is exactly one, as SwiftData infers it.
extension SchemaBuilder {
    /// `layouts` with every relationship given its inverse's name. A relationship an entity inherits is
    /// the superentity's: one object, named once, in both.
    mutating func withInverses(_ layouts: [EntityLayout], parents: [Int?]) -> [EntityLayout] {
        var names: [ObjectIdentifier: String] = [:]
        let byType = typePositions
        for (position, layout) in layouts.enumerated() {
            for case let relationship as Schema.Relationship in layout.declaredProperties {
                nameInverse(of: relationship, in: position, layouts: layouts, parents: parents, byType: byType, names: &names)
            }
        }
        var finished: [ObjectIdentifier: Schema.Relationship] = [:]
        func named(_ property: any SchemaProperty) -> any SchemaProperty {
            guard let relationship = property as? Schema.Relationship else { return property }
            let key = ObjectIdentifier(relationship)
            if let done = finished[key] { return done }
            let done = relationship.withInverse(names[key])
            finished[key] = done
            return done
        }
        return layouts.map { layout in
            var layout = layout
            layout.declaredProperties = layout.declaredProperties.map(named)
            layout.properties = layout.properties.map(named)
            return layout
        }
    }

    /// Notes in `names` the inverse of `relationship`, declared by the entity at `position`, and, for a
    /// declared inverse, the inverse's own when it has none yet.
    private mutating func nameInverse(
        of relationship: Schema.Relationship, in position: Int, layouts: [EntityLayout],
        parents: [Int?], byType: [ObjectIdentifier: Int],
        names: inout [ObjectIdentifier: String]
    ) {
        guard let destinationType = relationship.destinationType,
            let destinationPosition = byType[ObjectIdentifier(destinationType)]
        else { return }
        let entity = layouts[position]
        let destination = layouts[destinationPosition]
        let destinationRelationships = destination.relationshipsByName
        let candidates = destinationRelationships.values.filter { candidate in
            guard let target = candidate.destinationType, let targetPosition = byType[ObjectIdentifier(target)] else {
                return false
            }
            return Self.position(position, inheritsFrom: targetPosition, parents: parents) && !(candidate === relationship)
        }
        if let keyPath = relationship.inverseKeyPath {
            guard let inverse = destination.metadataByName.values.first(where: { $0.keypath == keyPath }) else {
                problems.append("\(entity.name).\(relationship.name) declares an inverse that is not a persisted property of \(destination.name)")
                return
            }
            names[ObjectIdentifier(relationship)] = inverse.name
            if let other = destinationRelationships[inverse.name], names[ObjectIdentifier(other)] == nil {
                names[ObjectIdentifier(other)] = relationship.name
            }
            return
        }
        if names[ObjectIdentifier(relationship)] == nil, candidates.count == 1, let only = candidates.first,
            only.inverseKeyPath == nil || names[ObjectIdentifier(only)] == relationship.name
        {
            // Infer only when exactly one relationship on the other side points back, as SwiftData does.
            let backCandidates = entity.relationshipsByName.values.filter { $0.destination == relationship.destination }
            if backCandidates.count == 1 {
                names[ObjectIdentifier(relationship)] = only.name
            }
        }
    }

    /// Whether the entity at `position` is the one at `ancestor` or inherits from it.
    private static func position(_ position: Int, inheritsFrom ancestor: Int, parents: [Int?]) -> Bool {
        var current: Int? = position
        var steps = 0
        while let entity = current, steps <= parents.count {
            if entity == ancestor { return true }
            current = parents[entity]
            steps += 1
        }
        return false
    }
}
