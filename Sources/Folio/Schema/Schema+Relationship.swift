extension Schema {
    /// A persisted reference from one entity to another, or to a collection of them.
    public final class Relationship: SchemaProperty {
        /// What deleting a model does to the models it refers to through this relationship.
        public enum DeleteRule: String, Hashable, Sendable, Codable {
            /// Deletes the related models too, and theirs in turn.
            case cascade
            /// Removes the deleted model from the related models' inverse relationship. The default.
            case nullify
            /// Refuses the save while related models exist; the error names them.
            case deny
            /// Leaves the related models as they are; you keep the references consistent.
            case noAction
        }

        /// Options of a relationship.
        public struct Option: Hashable, Sendable {
            fileprivate let name: String
            /// Keeps the related model unique among models of the entity (to-one relationships only).
            public static let unique = Option(name: "unique")
        }

        /// The property's name.
        public let name: String
        /// The property's name in an earlier schema, or its name.
        public let originalName: String
        /// The options given to `@Relationship`.
        public let options: [Option]
        /// What deleting the model does to the related ones.
        public let deleteRule: DeleteRule
        /// The least number of related models a save accepts (to-many; 0 or nil: no minimum).
        public let minimumModelCount: Int?
        /// The greatest number of related models a save accepts (to-many; 0 or nil: no maximum).
        public let maximumModelCount: Int?
        /// A value that marks a change of meaning without a change of shape.
        public let hashModifier: String?
        /// The key path of the inverse relationship, as declared with `inverse:`.
        public let inverseKeyPath: AnyKeyPath?
        /// The name of the inverse relationship on the destination entity, declared or inferred.
        public let inverseName: String?
        /// The destination entity's name.
        public let destination: String
        /// The property's declared type.
        public let valueType: any Any.Type
        /// The key path of the property on its model class.
        public let keyPath: AnyKeyPath?
        /// Whether the relationship refers to one model rather than a collection.
        public let isToOneRelationship: Bool
        /// Whether the property's type is optional.
        public let isOptional: Bool
        /// The destination's model type.
        public let destinationType: (any PersistentModel.Type)?
        private let declaredOriginalName: String?

        /// The options of a relationship, as `@Relationship` spells them.
        public init(
            _ options: Option..., deleteRule: DeleteRule = .nullify, minimumModelCount: Int? = 0,
            maximumModelCount: Int? = 0, originalName: String? = nil, inverse: AnyKeyPath? = nil,
            hashModifier: String? = nil
        ) {
            self.name = ""
            self.options = options
            self.deleteRule = deleteRule
            self.minimumModelCount = minimumModelCount
            self.maximumModelCount = maximumModelCount
            self.declaredOriginalName = originalName
            self.originalName = originalName ?? ""
            self.inverseKeyPath = inverse
            self.hashModifier = hashModifier
            self.inverseName = nil
            self.destination = ""
            self.valueType = Any.self
            self.keyPath = nil
            self.isToOneRelationship = true
            self.isOptional = false
            self.destinationType = nil
        }

        /// A copy of `declared` with the given name and inverse, and with what the property's type says.
        private init(
            _ declared: Relationship, name: String, originalName: String, inverseName: String?,
            valueType: any Any.Type, keyPath: AnyKeyPath?, kind: ValueKind
        ) {
            self.name = name
            self.options = declared.options
            self.deleteRule = declared.deleteRule
            self.minimumModelCount = declared.minimumModelCount
            self.maximumModelCount = declared.maximumModelCount
            self.declaredOriginalName = originalName
            self.originalName = originalName
            self.inverseKeyPath = declared.inverseKeyPath
            self.hashModifier = declared.hashModifier
            self.inverseName = inverseName
            self.valueType = valueType
            self.keyPath = keyPath
            switch kind {
            case .toOne(let type, let optional):
                self.destinationType = type
                self.destination = type._folioEntityName
                self.isOptional = optional
                self.isToOneRelationship = true
            case .toMany(let type, _):
                self.destinationType = type
                self.destination = type._folioEntityName
                self.isOptional = false
                self.isToOneRelationship = false
            case .attribute:
                self.destinationType = nil
                self.destination = ""
                self.isOptional = false
                self.isToOneRelationship = true
            }
        }

        /// The relationship of the property `metadata` describes, of `kind`, with the options this one
        /// declares; its inverse is named later (``withInverse(_:)``).
        func completed(from metadata: PropertyMetadata, kind: ValueKind) -> Relationship {
            Relationship(
                self, name: metadata.name, originalName: declaredOriginalName ?? metadata.name, inverseName: nil,
                valueType: metadata.valueType, keyPath: metadata.keypath, kind: kind)
        }

        /// This relationship with its inverse named `inverseName`.
        func withInverse(_ inverseName: String?) -> Relationship {
            Relationship(self, inverseName: inverseName)
        }

        private init(_ source: Relationship, inverseName: String?) {
            self.name = source.name
            self.options = source.options
            self.deleteRule = source.deleteRule
            self.minimumModelCount = source.minimumModelCount
            self.maximumModelCount = source.maximumModelCount
            self.declaredOriginalName = source.declaredOriginalName
            self.originalName = source.originalName
            self.inverseKeyPath = source.inverseKeyPath
            self.hashModifier = source.hashModifier
            self.inverseName = inverseName
            self.destination = source.destination
            self.valueType = source.valueType
            self.keyPath = source.keyPath
            self.isToOneRelationship = source.isToOneRelationship
            self.isOptional = source.isOptional
            self.destinationType = source.destinationType
        }

        /// Always false for a relationship.
        public var isAttribute: Bool { false }
        /// Always true for a relationship.
        public var isRelationship: Bool { true }
        /// Always false: relationships are stored.
        public var isTransient: Bool { false }
        /// Whether the property is `.unique`.
        public var isUnique: Bool { options.contains(.unique) }

        public var description: String {
            let arity = isToOneRelationship ? (isOptional ? "to-one, optional" : "to-one") : "to-many"
            return "Relationship(\(name) → \(destination), \(arity), \(deleteRule)\(inverseName.map { ", inverse \($0)" } ?? ""))"
        }

        public static func == (lhs: Relationship, rhs: Relationship) -> Bool {
            lhs.name == rhs.name && lhs.destination == rhs.destination && lhs.deleteRule == rhs.deleteRule
                && lhs.inverseName == rhs.inverseName && lhs.isToOneRelationship == rhs.isToOneRelationship
        }

        public func hash(into hasher: inout Hasher) {
            hasher.combine(name)
            hasher.combine(destination)
        }
    }
}
