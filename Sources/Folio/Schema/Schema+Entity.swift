extension Schema {
    /// The blueprint of one model class: its persisted properties, constraints and place in the
    /// inheritance tree.
    public final class Entity: Hashable, CustomStringConvertible {
        /// The entity's name: the class name.
        public let name: String
        /// The model class. For a subclass the store records without the models listing it, whose class
        /// this process cannot find by the name recorded (a `private` class, or one the app removed),
        /// the nearest class it inherits from, whose instances stand in for its records.
        public let modelType: any PersistentModel.Type
        /// Whether the entity came into the schema without the models listing it (or referring to it):
        /// a subclass of a listed model that a context inserted or fetched, or that the store records
        /// as such, and the models such a subclass refers to. The store records it with its class, so
        /// that a container opened later for the listed models alone finds its records again.
        let isUnlisted: Bool
        /// What the store records of an unlisted entity whose class this process cannot find; nil for
        /// an entity with its own class.
        let recordedOnly: RecordedOnlyEntity?
        /// The entity this one inherits from, if any.
        ///
        /// Set once, by the superentity's initializer, which is given its subentities made: an entity
        /// is made after those that inherit from it, so this one link cannot be a constant.
        public private(set) weak var superentity: Entity?
        /// The entities that inherit from this one directly, ordered by name.
        public let subentities: [Entity]
        /// All persisted properties, the superentity's first, in declaration order.
        public let properties: [any SchemaProperty]
        /// The properties this class declares itself (without inherited ones).
        public let declaredProperties: [any SchemaProperty]
        /// `#Unique` constraints and `.unique` attributes, inherited ones included: groups of property names.
        public let uniquenessConstraints: [[String]]
        /// `#Index` declarations, inherited ones included: groups of property names.
        public let indices: [[String]]
        /// The property metadata the macro generated, inherited ones included, by property name.
        let metadataByName: [String: PropertyMetadata]

        /// The entity `layout` describes, over its `subentities`, which are made first.
        init(_ layout: SchemaBuilder.EntityLayout, subentities: [Entity]) {
            self.name = layout.name
            self.modelType = layout.modelType
            self.isUnlisted = layout.isUnlisted
            self.recordedOnly = layout.recordedOnly
            self.subentities = subentities.sorted { $0.name < $1.name }
            self.properties = layout.properties
            self.declaredProperties = layout.declaredProperties
            self.uniquenessConstraints = layout.uniquenessConstraints
            self.indices = layout.indices
            self.metadataByName = layout.metadataByName
            let properties = layout.properties
            let attributes = properties.compactMap { $0 as? Attribute }
            let relationshipsByName = Dictionary(
                properties.compactMap { $0 as? Relationship }.map { ($0.name, $0) },
                uniquingKeysWith: { first, _ in first })
            self.propertyNamesByKeyPath = Dictionary(
                layout.modelType._folioKeyPathTable.map { ($0.0, $0.1) },
                uniquingKeysWith: { first, _ in first })
            self.attributesByName = Dictionary(attributes.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
            self.relationshipsByName = relationshipsByName
            self.renamedProperties = properties.filter { $0.originalName != $0.name }.map { ($0.name, $0.originalName) }
            self.externalStorageAttributeNames = attributes.filter(\.isExternalStorage).map(\.name)
            self.ephemeralAttributeNames = attributes.filter(\.isTransient).map(\.name)
            self.preservedAttributeNames = Set(attributes.filter(\.preservesValueOnDeletion).map(\.name))
            self.loadsCompletelyWhenFetched =
                relationshipsByName.values.contains { $0.isToOneRelationship && !$0.isOptional }
                || !PlaceholderValue.canStandIn(layout.modelType)
            for subentity in self.subentities { subentity.superentity = self }
        }

        /// Whether the entity's records stand in as instances of a class it inherits from, because
        /// this process cannot find its own class (see ``recordedOnly``).
        var isRecordedOnly: Bool { recordedOnly != nil }

        /// The persisted value properties, inherited ones included.
        public var attributes: Set<Attribute> {
            Set(attributesByName.values)
        }

        /// The relationships, inherited ones included.
        public var relationships: Set<Relationship> {
            Set(relationshipsByName.values)
        }

        /// The attributes by name, inherited ones included.
        public let attributesByName: [String: Attribute]

        /// The relationships by name, inherited ones included.
        public let relationshipsByName: [String: Relationship]

        /// Properties renamed with `originalName:`, as (name, original name): read when decoding.
        let renamedProperties: [(name: String, originalName: String)]

        /// The names of `.externalStorage` attributes: read when decoding and encoding.
        let externalStorageAttributeNames: [String]

        /// Whether fetched models of this entity are loaded completely during the fetch rather than
        /// property by property when first read, so that a record that cannot be loaded makes the fetch
        /// throw instead of a later read finding nothing to show:
        /// - entities with a required to-one relationship (a record may refer to a missing one);
        /// - entities with an attribute that has no declared default and whose type has no empty value
        ///   (such as an enum with raw values 1–3): a stored value that fails to decode would leave its
        ///   getter nothing to return.
        let loadsCompletelyWhenFetched: Bool

        /// The names of `.preserveValueOnDeletion` attributes, kept in the history when a model is deleted.
        let preservedAttributeNames: Set<String>

        /// The names of `.ephemeral` attributes, which are never stored.
        let ephemeralAttributeNames: [String]

        /// The stored property each key path rooted at ``modelType`` names (the macro's key-path table):
        /// what predicate translation looks key paths up in.
        let propertyNamesByKeyPath: [AnyKeyPath: String]

        /// The property called `name`, inherited ones included.
        public func property(named name: String) -> (any SchemaProperty)? {
            properties.first { $0.name == name }
        }

        /// This entity and every entity that inherits from it, directly or not.
        public var selfAndDescendants: [Entity] {
            [self] + subentities.flatMap(\.selfAndDescendants)
        }

        /// Whether this entity is `other` or inherits from it.
        public func isKind(of other: Entity) -> Bool {
            var current: Entity? = self
            while let entity = current {
                if entity === other { return true }
                current = entity.superentity
            }
            return false
        }

        public var description: String {
            var text = "Entity \(name)"
            if let superentity { text += " : \(superentity.name)" }
            for property in properties { text += "\n  \(property)" }
            return text
        }

        public static func == (lhs: Entity, rhs: Entity) -> Bool { lhs === rhs }

        public func hash(into hasher: inout Hasher) { hasher.combine(name) }
    }
}
