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
        public private(set) var name: String
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
        public internal(set) var inverseName: String?
        /// The destination entity's name.
        public internal(set) var destination: String = ""
        /// The property's declared type.
        public private(set) var valueType: any Any.Type = Any.self
        /// The key path of the property on its model class.
        public private(set) var keyPath: AnyKeyPath?
        /// Whether the relationship refers to one model rather than a collection.
        public private(set) var isToOneRelationship = true
        /// Whether the property's type is optional.
        public private(set) var isOptional = false
        /// The destination's model type.
        public internal(set) var destinationType: (any PersistentModel.Type)?
        private let declaredOriginalName: String?

        /// The options of a relationship, as `@Relationship` spells them.
        public init(_ options: Option..., deleteRule: DeleteRule = .nullify, minimumModelCount: Int? = 0,
                    maximumModelCount: Int? = 0, originalName: String? = nil, inverse: AnyKeyPath? = nil,
                    hashModifier: String? = nil) {
            self.name = ""
            self.options = options
            self.deleteRule = deleteRule
            self.minimumModelCount = minimumModelCount
            self.maximumModelCount = maximumModelCount
            self.declaredOriginalName = originalName
            self.originalName = originalName ?? ""
            self.inverseKeyPath = inverse
            self.hashModifier = hashModifier
        }

        func completed(from metadata: PropertyMetadata, kind: ValueKind) -> Relationship {
            let relationship = Relationship(options: options, deleteRule: deleteRule,
                                            minimumModelCount: minimumModelCount, maximumModelCount: maximumModelCount,
                                            originalName: declaredOriginalName ?? metadata.name, inverse: inverseKeyPath,
                                            hashModifier: hashModifier)
            relationship.name = metadata.name
            relationship.valueType = metadata.valueType
            relationship.keyPath = metadata.keypath
            switch kind {
            case .toOne(let type, let optional):
                relationship.destinationType = type
                relationship.destination = type._folioEntityName
                relationship.isOptional = optional
                relationship.isToOneRelationship = true
            case .toMany(let type, _):
                relationship.destinationType = type
                relationship.destination = type._folioEntityName
                relationship.isToOneRelationship = false
            case .attribute:
                break
            }
            return relationship
        }

        private init(options: [Option], deleteRule: DeleteRule, minimumModelCount: Int?, maximumModelCount: Int?,
                     originalName: String, inverse: AnyKeyPath?, hashModifier: String?) {
            self.name = ""
            self.options = options
            self.deleteRule = deleteRule
            self.minimumModelCount = minimumModelCount
            self.maximumModelCount = maximumModelCount
            self.declaredOriginalName = originalName
            self.originalName = originalName
            self.inverseKeyPath = inverse
            self.hashModifier = hashModifier
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
