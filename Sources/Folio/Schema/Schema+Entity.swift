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
        /// that a container opened for the listed models alone finds its records again.
        let isUnlisted: Bool
        /// What the store records of an unlisted entity whose class this process cannot find; nil for
        /// an entity with its own class.
        let recordedOnly: RecordedOnlyEntity?
        /// The entity this one inherits from, if any.
        public internal(set) weak var superentity: Entity?
        /// The entities that inherit from this one directly.
        public internal(set) var subentities: [Entity] = []
        /// All persisted properties, the superentity's first, in declaration order.
        public internal(set) var properties: [any SchemaProperty] = []
        /// The properties this class declares itself (without inherited ones).
        public internal(set) var declaredProperties: [any SchemaProperty] = []
        /// `#Unique` constraints and `.unique` attributes, inherited ones included: groups of property names.
        public internal(set) var uniquenessConstraints: [[String]] = []
        /// `#Index` declarations, inherited ones included: groups of property names.
        public internal(set) var indices: [[String]] = []
        /// The property metadata the macro generated, inherited ones included, by property name.
        var metadataByName: [String: PropertyMetadata] = [:]

        init(modelType: any PersistentModel.Type, isUnlisted: Bool = false) {
            self.modelType = modelType
            self.name = modelType._folioEntityName
            self.isUnlisted = isUnlisted
            self.recordedOnly = nil
        }

        /// An unlisted entity the store records, standing in with `modelType`, a class it inherits from.
        init(recordedOnly recorded: RecordedOnlyEntity, modelType: any PersistentModel.Type) {
            self.modelType = modelType
            self.name = recorded.name
            self.isUnlisted = true
            self.recordedOnly = recorded
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
        public private(set) var attributesByName: [String: Attribute] = [:]

        /// The relationships by name, inherited ones included.
        public private(set) var relationshipsByName: [String: Relationship] = [:]

        /// Properties renamed with `originalName:`, as (name, original name): read when decoding.
        private(set) var renamedProperties: [(name: String, originalName: String)] = []

        /// The names of `.externalStorage` attributes: read when decoding and encoding.
        private(set) var externalStorageAttributeNames: [String] = []

        /// Whether fetched models of this entity are loaded completely during the fetch rather than
        /// property by property when first read, so that a record that cannot be loaded makes the fetch
        /// throw instead of a later read finding nothing to show:
        /// - entities with a required to-one relationship (a record may refer to a missing one);
        /// - entities with an attribute that has no declared default and whose type has no empty value
        ///   (such as an enum with raw values 1–3): a stored value that fails to decode would leave its
        ///   getter nothing to return.
        private(set) var loadsCompletelyWhenFetched = false

        /// The names of `.preserveValueOnDeletion` attributes, kept in the history when a model is deleted.
        private(set) var preservedAttributeNames: Set<String> = []

        /// The names of `.ephemeral` attributes, which are never stored.
        private(set) var ephemeralAttributeNames: [String] = []

        /// The stored property each key path rooted at ``modelType`` names (the macro's key-path table):
        /// what predicate translation looks key paths up in.
        private(set) var propertyNamesByKeyPath: [AnyKeyPath: String] = [:]

        /// Fills the lookup tables once ``properties`` is complete; the schema builder calls it.
        func indexProperties() {
            propertyNamesByKeyPath = Dictionary(modelType._folioKeyPathTable.map { ($0.0, $0.1) }, uniquingKeysWith: { first, _ in first })
            let attributes = properties.compactMap { $0 as? Attribute }
            attributesByName = Dictionary(attributes.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
            relationshipsByName = Dictionary(properties.compactMap { $0 as? Relationship }.map { ($0.name, $0) },
                                             uniquingKeysWith: { first, _ in first })
            renamedProperties = properties.filter { $0.originalName != $0.name }.map { ($0.name, $0.originalName) }
            externalStorageAttributeNames = attributes.filter(\.isExternalStorage).map(\.name)
            ephemeralAttributeNames = attributes.filter(\.isTransient).map(\.name)
            preservedAttributeNames = Set(attributes.filter(\.preservesValueOnDeletion).map(\.name))
            loadsCompletelyWhenFetched = relationshipsByName.values.contains { $0.isToOneRelationship && !$0.isOptional }
                || !PlaceholderValue.canStandIn(modelType)
        }

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
