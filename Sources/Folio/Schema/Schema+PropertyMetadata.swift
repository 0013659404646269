extension Schema {
    /// What `@Model` records about one persisted property: name, key path, type, default and options.
    public struct PropertyMetadata: CustomStringConvertible {
        /// The property's name.
        public let name: String
        /// The key path `\Model.property`.
        public let keypath: AnyKeyPath
        /// The declared default value, if the property has one.
        public let defaultValue: Any?
        /// The `@Attribute` or `@Relationship` options, if written.
        public let metadata: (any SchemaProperty)?
        /// The property's declared type.
        public let valueType: any Any.Type

        /// Describes a persisted property of `Root` with the value type of `keypath`.
        public init<Root, Value>(
            name: String, keypath: KeyPath<Root, Value>, defaultValue: Any?,
            metadata: (any SchemaProperty)?
        ) {
            self.name = name
            self.keypath = keypath
            self.defaultValue = defaultValue
            self.metadata = metadata
            self.valueType = Value.self
        }

        /// Evaluates a property's default in the type context of its key path. Generated code uses this.
        public static func defaultValue<Root, Value>(of keyPath: KeyPath<Root, Value>, _ make: () -> Value) -> Any? {
            make()
        }

        public var description: String {
            "\(name): \(valueType)" + (metadata.map { " \($0)" } ?? "")
        }
    }

    /// A schema version, as in `Schema.Version(2, 0, 0)`.
    public struct Version: Hashable, Comparable, Codable, Sendable, CustomStringConvertible {
        /// The major version: a change that old code cannot read.
        public var major: Int
        /// The minor version: a change old code can read.
        public var minor: Int
        /// The patch version.
        public var patch: Int

        /// A version such as `Schema.Version(1, 2, 0)`.
        public init(_ major: Int, _ minor: Int, _ patch: Int) {
            self.major = major
            self.minor = minor
            self.patch = patch
        }

        public static func < (lhs: Version, rhs: Version) -> Bool {
            (lhs.major, lhs.minor, lhs.patch) < (rhs.major, rhs.minor, rhs.patch)
        }

        public var description: String { "\(major).\(minor).\(patch)" }
    }
}
