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

        public private(set) var name: String
        public let originalName: String
        public let options: [Option]
        public let deleteRule: DeleteRule
        public let minimumModelCount: Int?
        public let maximumModelCount: Int?
        public let hashModifier: String?
        /// The key path of the inverse relationship, as declared with `inverse:`.
        public let inverseKeyPath: AnyKeyPath?
        /// The name of the inverse relationship on the destination entity, declared or inferred.
        public internal(set) var inverseName: String?
        /// The destination entity's name.
        public internal(set) var destination: String = ""
        public private(set) var valueType: any Any.Type = Any.self
        public private(set) var keyPath: AnyKeyPath?
        /// Whether the relationship refers to one model rather than a collection.
        public private(set) var isToOneRelationship = true
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

        public var isAttribute: Bool { false }
        public var isRelationship: Bool { true }
        public var isTransient: Bool { false }
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
