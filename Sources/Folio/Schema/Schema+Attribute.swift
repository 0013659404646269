extension Schema {
    /// A persisted value property of an entity.
    public final class Attribute: SchemaProperty {
        /// How an attribute is stored.
        public struct Option: Hashable, Sendable, CustomStringConvertible {
            fileprivate let name: String
            /// Keeps the value unique among models of the entity; inserting a model with an existing value
            /// updates the stored model instead (an upsert).
            public static let unique = Option(name: "unique")
            /// Keeps the bytes in a content-addressed file beside the store instead of inline.
            public static let externalStorage = Option(name: "externalStorage")
            /// Stores the value through its own `Codable` as an opaque value. Predicates and sort
            /// descriptors cannot reach inside it; Folio refuses such a fetch with an error naming the key path.
            public static let codable = Option(name: "codable")
            /// Keeps the value in the history tombstone when the model is deleted.
            public static let preserveValueOnDeletion = Option(name: "preserveValueOnDeletion")
            /// Tracks changes to the property without persisting it.
            public static let ephemeral = Option(name: "ephemeral")
            /// Accepted for compatibility; Folio has no Spotlight integration.
            public static let spotlight = Option(name: "spotlight")
            /// Accepted for compatibility; Folio has no CloudKit integration.
            public static let allowsCloudEncryption = Option(name: "allowsCloudEncryption")

            /// Accepted for compatibility; Folio stores values through `Codable` and ignores transformers.
            public static func transformable(by transformerName: String) -> Option {
                Option(name: "transformable(\(transformerName))")
            }

            public var description: String { "." + name }
        }

        /// The property's name.
        public let name: String
        /// The property's name in an earlier schema (`originalName:`), or its name.
        public let originalName: String
        /// The options written in `@Attribute`.
        public let options: [Option]
        /// The `hashModifier:` written in `@Attribute`.
        public let hashModifier: String?
        /// The property's declared type.
        public let valueType: any Any.Type
        /// The property's declared default, if any.
        public let defaultValue: Any?
        /// The key path `\Model.property`.
        public let keyPath: AnyKeyPath?
        /// Whether the property's type is optional.
        public let isOptional: Bool
        private let declaredOriginalName: String?

        /// The options and names of an attribute, as `@Attribute` spells them.
        public init(_ options: Option..., originalName: String? = nil, hashModifier: String? = nil) {
            self.name = ""
            self.options = options
            self.declaredOriginalName = originalName
            self.originalName = originalName ?? ""
            self.hashModifier = hashModifier
            self.valueType = Any.self
            self.defaultValue = nil
            self.keyPath = nil
            self.isOptional = false
        }

        /// A complete attribute description.
        public convenience init(
            name: String, originalName: String? = nil, options: [Option] = [], valueType: any Any.Type,
            defaultValue: Any? = nil, hashModifier: String? = nil
        ) {
            self.init(
                name: name, originalName: originalName, options: options, valueType: valueType,
                defaultValue: defaultValue, hashModifier: hashModifier, keyPath: nil)
        }

        private init(
            name: String, originalName: String?, options: [Option], valueType: any Any.Type,
            defaultValue: Any?, hashModifier: String?, keyPath: AnyKeyPath?
        ) {
            self.name = name
            self.options = options
            self.declaredOriginalName = originalName
            self.originalName = originalName ?? name
            self.hashModifier = hashModifier
            self.valueType = valueType
            self.defaultValue = defaultValue
            self.isOptional = valueType is any _OptionalValue.Type
            self.keyPath = keyPath
        }

        /// The attribute of the property `metadata` describes, with the options this one declares.
        func completed(from metadata: PropertyMetadata) -> Attribute {
            Attribute(
                name: metadata.name, originalName: declaredOriginalName, options: options,
                valueType: metadata.valueType, defaultValue: metadata.defaultValue,
                hashModifier: hashModifier, keyPath: metadata.keypath)
        }

        /// Always true for an attribute.
        public var isAttribute: Bool { true }
        /// Always false for an attribute.
        public var isRelationship: Bool { false }
        /// Whether the attribute is `.ephemeral`: tracked, never stored.
        public var isTransient: Bool { options.contains(.ephemeral) }
        /// Whether the property is `.unique`.
        public var isUnique: Bool { options.contains(.unique) }
        /// Whether the value is stored through its own `Codable` as an opaque value.
        public var isCodable: Bool { options.contains(.codable) }
        /// Whether the value's bytes are kept in a file beside the store.
        public var isExternalStorage: Bool { options.contains(.externalStorage) }
        /// Whether the value is kept in the history tombstone on deletion.
        public var preservesValueOnDeletion: Bool { options.contains(.preserveValueOnDeletion) }

        public var description: String {
            let optionText = options.isEmpty ? "" : " " + options.map(\.description).joined(separator: ", ")
            return "Attribute(\(name): \(valueType)\(optionText))"
        }

        public static func == (lhs: Attribute, rhs: Attribute) -> Bool {
            lhs.name == rhs.name && lhs.options == rhs.options && lhs.originalName == rhs.originalName
                && ObjectIdentifier(lhs.valueType) == ObjectIdentifier(rhs.valueType)
        }

        public func hash(into hasher: inout Hasher) {
            hasher.combine(name)
            hasher.combine(options)
        }
    }
}
