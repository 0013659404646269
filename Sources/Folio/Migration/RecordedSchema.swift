import FolioStorage

/// The schema a store records in its manifest's schema slot, as a value: what a migration compares the
/// models with, and what `folio schema` prints. It is built from a live ``Schema`` (what a container
/// writes) or parsed back from the manifest (see `RecordedSchema+Parsing.swift`).
package struct RecordedSchema: Hashable, Sendable {
    /// One recorded property of an entity.
    package struct Property: Hashable, Sendable {
        package enum Kind: String, Hashable, Sendable {
            case attribute
            case relationship
        }

        package var name: String
        package var kind: Kind
        /// The attribute's Swift type name without `Optional` (`String`, `Date`, `Status`); nil for a relationship.
        package var type: String?
        package var isOptional: Bool = false
        /// The `@Attribute` options without their dot (`unique`, `externalStorage`, `ephemeral`…).
        package var options: [String] = []
        /// The destination entity of a relationship.
        package var destination: String?
        package var isToMany: Bool = false
        package var inverse: String?
        package var deleteRule: String?
        /// The name values were stored under in an earlier version, if the property was renamed.
        package var originalName: String?

        package init(
            name: String, kind: Kind, type: String? = nil, isOptional: Bool = false, options: [String] = [],
            destination: String? = nil, isToMany: Bool = false, inverse: String? = nil,
            deleteRule: String? = nil, originalName: String? = nil
        ) {
            self.name = name
            self.kind = kind
            self.type = type
            self.isOptional = isOptional
            self.options = options
            self.destination = destination
            self.isToMany = isToMany
            self.inverse = inverse
            self.deleteRule = deleteRule
            self.originalName = originalName
        }

        package var isRelationship: Bool { kind == .relationship }
        /// Ephemeral properties are recorded but never stored, so they take no part in migrations.
        package var isTransient: Bool { options.contains("ephemeral") }
        package var isUnique: Bool { options.contains("unique") }

        /// The property's type for a person: `String`, `Date?`, `to-one Author?`, `to-many Tag`.
        package var typeDescription: String {
            if let destination, isRelationship {
                return isToMany ? "to-many \(destination)" : "to-one \(destination)\(isOptional ? "?" : "")"
            }
            return (type ?? "?") + (isOptional ? "?" : "")
        }
    }

    /// One recorded entity, with its properties (inherited ones included, as the model layer writes them).
    package struct Entity: Hashable, Sendable {
        package var name: String
        package var superentity: String?
        package var properties: [String: Property]
        /// `#Unique` groups and `.unique` attributes, inherited ones included.
        package var uniqueness: [[String]] = []
        package var indices: [[String]] = []
        /// Whether the models that wrote the store did not list the entity: a subclass of a listed model
        /// stored because a context inserted one (see `Schema+UnlistedEntities.swift`). A container
        /// opened for the listed models keeps it instead of treating it as removed. Not part of the
        /// checksum: listing the class later changes no record.
        package var isUnlisted = false
        /// The qualified name (`Module.Class`) of an unlisted entity's class, by which a later process
        /// finds the class; nil when the class cannot be found by name (a nested, `private` or local class).
        package var className: String?

        package init(
            name: String, superentity: String? = nil, properties: [String: Property],
            uniqueness: [[String]] = [], indices: [[String]] = [], isUnlisted: Bool = false,
            className: String? = nil
        ) {
            self.name = name
            self.superentity = superentity
            self.properties = properties
            self.uniqueness = uniqueness
            self.indices = indices
            self.isUnlisted = isUnlisted
            self.className = className
        }

        /// The stored properties (not ephemeral), by name.
        package var storedProperties: [String: Property] {
            properties.filter { !$0.value.isTransient }
        }
    }

    /// The version identifier the schema was declared with, as written (`"2.0.0"`).
    package var version: String?
    /// The checksum the manifest holds; nil for a store written before checksums were recorded.
    package var recordedChecksum: String?
    package var entities: [String: Entity]

    package init(version: String?, recordedChecksum: String?, entities: [String: Entity]) {
        self.version = version
        self.recordedChecksum = recordedChecksum
        self.entities = entities
    }

    /// The checksum of this schema's structure (see ``SchemaChecksum``), whatever the manifest holds.
    package var computedChecksum: String { SchemaChecksum.checksum(of: self) }

    /// The checksum that identifies the schema: the recorded one, or for an older store, the one its
    /// recorded structure gives.
    package var checksum: String { recordedChecksum ?? computedChecksum }

    /// The schema without its unlisted entities (``Entity/isUnlisted``), with the checksum of what is
    /// left: the schema of the models that wrote the store, as a migration plan's versions list them.
    package var listedOnly: RecordedSchema {
        guard entities.values.contains(where: \.isUnlisted) else { return self }
        return RecordedSchema(version: version, recordedChecksum: nil, entities: entities.filter { !$0.value.isUnlisted })
    }

    /// The declared version as a ``Schema/Version``, if it is written as `major.minor.patch`.
    package var parsedVersion: Schema.Version? { version.flatMap(Schema.Version.init(parsing:)) }
}

extension Schema.Version {
    /// Reads `major.minor.patch` (each a non-negative decimal number), as ``description`` writes it.
    package init?(parsing text: String) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, parts.allSatisfy({ !$0.isEmpty && $0.count <= 9 && $0.allSatisfy(\.isASCII) }),
            let major = Int(parts[0]), let minor = Int(parts[1]), let patch = Int(parts[2]),
            major >= 0, minor >= 0, patch >= 0
        else { return nil }
        self.init(major, minor, patch)
    }
}
