import Foundation
import FolioStorage

/// An unlisted entity as the store records it, kept for a process that cannot find its class: what it
/// adds to its superentity, so that the schema the container records again still holds it as it was.
struct RecordedOnlyEntity: Sendable {
    var name: String
    var superentity: String?
    /// The properties it declares itself: its recorded properties less its superentity's.
    var ownProperties: [String: RecordedSchema.Property]
    /// Its uniqueness groups and indexes less its superentity's.
    var ownUniqueness: [[String]]
    var ownIndices: [[String]]
    /// The class's qualified name as recorded, if it was (see ``Schema/Entity/recordedClassName``).
    var className: String?
}

/// Subclasses the models do not list: SwiftData's guidance is to list every class of a hierarchy, yet
/// a container made for the base class alone (as Apple's SampleTrips preview does) stores the
/// subclasses inserted into it. Folio adds such a subclass to the schema when a context first inserts
/// or fetches a model of it, and the store records it, with its class's name, as unlisted: a container
/// opened later for the base class alone finds the class again by that name, or, failing that, keeps
/// the entity with its records, which then stand in as instances of the nearest class it inherits from.
extension Schema {
    /// Whether `type` is the class of one of the schema's entities (not a stand-in for it).
    func hasOwnEntity(for type: any PersistentModel.Type) -> Bool {
        guard let entity = entitiesByName[type._folioEntityName] else { return false }
        return !entity.isRecordedOnly && ObjectIdentifier(entity.modelType) == ObjectIdentifier(type)
    }

    /// The nearest class `type` inherits from that has its own entity here, if any.
    func listedAncestor(of type: any PersistentModel.Type) -> (any PersistentModel.Type)? {
        var current = type._folioSuperclass
        while let ancestor = current {
            if hasOwnEntity(for: ancestor) { return ancestor }
            current = ancestor._folioSuperclass
        }
        return nil
    }

    /// This schema with `type` added as unlisted, with the superclasses and relationship destinations
    /// it brings; an entity that stood in for it becomes its own.
    func addingUnlisted(_ type: any PersistentModel.Type) -> Schema {
        rebuilt(addingTypes: [type], addingRecordedOnly: [])
    }

    /// This schema with the entities of `recorded` it lacks that are still the app's: those `recorded`
    /// marks as unlisted, with the class the recorded name resolves to in this process or else
    /// recorded-only (see ``RecordedOnlyEntity``); and subentities of this schema's entities that
    /// earlier models listed, when their class is still there (found by name in its superclass's
    /// module), so that listing the base class alone, as the SampleTrips preview does, does not remove
    /// them. A listed entity whose class is gone stays out: a migration removes it. The schema itself
    /// when nothing is added.
    func adoptingUnlisted(from recorded: RecordedSchema) -> Schema {
        var types: [any PersistentModel.Type] = []
        var recordedOnly: [RecordedOnlyEntity] = []
        for candidate in recorded.entities.values.sorted(by: { $0.name < $1.name }) where entitiesByName[candidate.name] == nil {
            if candidate.isUnlisted {
                if let type = Self.resolvedType(of: candidate) {
                    types.append(type)
                } else {
                    recordedOnly.append(Self.recordedOnlyEntity(candidate, in: recorded))
                }
            } else if let type = listedSubclass(candidate, in: recorded) {
                types.append(type)
            }
        }
        guard !types.isEmpty || !recordedOnly.isEmpty else { return self }
        let adopted = rebuilt(addingTypes: types, addingRecordedOnly: recordedOnly)
        guard adopted.problems.count > problems.count else { return adopted }
        // A class found by name that does not fit with the models here (a name clash, say) is not
        // taken: unlisted entities are kept as recorded instead.
        return rebuilt(
            addingTypes: [],
            addingRecordedOnly: recordedOnly
                + recorded.entities.values.filter { candidate in
                    candidate.isUnlisted && types.contains { $0._folioEntityName == candidate.name }
                }.map { Self.recordedOnlyEntity($0, in: recorded) })
    }

    /// The class of `entity`, a recorded entity that earlier models listed, when it inherits from one of
    /// this schema's classes and this process has it: a model class of that name at the top level of
    /// the module of the nearest such class, with the recorded superentity.
    private func listedSubclass(_ entity: RecordedSchema.Entity, in recorded: RecordedSchema) -> (any PersistentModel.Type)? {
        var ancestorName = entity.superentity
        var seen: Set<String> = [entity.name]
        while let name = ancestorName, seen.insert(name).inserted {
            if let ancestor = entitiesByName[name], !ancestor.isRecordedOnly {
                let qualified = String(reflecting: ancestor.modelType)
                guard let module = qualified.split(separator: ".").first,
                    let type = Self.modelClass(named: "\(module).\(entity.name)"),
                    type._folioEntityName == entity.name, type._folioSuperclass?._folioEntityName == entity.superentity
                else { return nil }
                return type
            }
            ancestorName = recorded.entities[name]?.superentity
        }
        return nil
    }

    /// The schema built again from its classes, with `types` added as unlisted and the recorded-only
    /// entities (its own, then `recordedOnly`) that no class has taken the name of.
    private func rebuilt(addingTypes types: [any PersistentModel.Type], addingRecordedOnly recordedOnly: [RecordedOnlyEntity]) -> Schema {
        var builder = SchemaBuilder()
        for entity in entities where !entity.isUnlisted { builder.add(entity.modelType) }
        for entity in entities where entity.isUnlisted && !entity.isRecordedOnly { builder.add(entity.modelType, unlisted: true) }
        for type in types { builder.add(type, unlisted: true) }
        builder.addRecordedOnly(entities.compactMap(\.recordedOnly) + recordedOnly)
        return Schema(builder: builder, version: version)
    }

    /// The class a recorded unlisted entity names, when this process has it: a model class with the
    /// entity's name and superentity.
    static func resolvedType(of entity: RecordedSchema.Entity) -> (any PersistentModel.Type)? {
        guard let name = entity.className, let type = modelClass(named: name),
            type._folioEntityName == entity.name, type._folioSuperclass?._folioEntityName == entity.superentity
        else { return nil }
        return type
    }

    /// The model class `name` names (`"Module.Class"`), through Foundation's `NSClassFromString`. The name
    /// may come from disk: only a class at the top level of its module, named by two plain identifiers
    /// (ASCII letters, digits and underscores), is looked up.
    static func modelClass(named name: String) -> (any PersistentModel.Type)? {
        guard isTopLevelClassName(name) else { return nil }
        return NSClassFromString(name) as? any PersistentModel.Type
    }

    /// Whether `name` is `Module.Class`, each part a short plain identifier.
    static func isTopLevelClassName(_ name: String) -> Bool {
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 2
            && parts.allSatisfy { part in
                !part.isEmpty && part.utf8.count <= 256 && part.utf8.first.map { !(0x30...0x39).contains($0) } == true
                    && part.utf8.allSatisfy { byte in
                        (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || byte == 0x5F
                    }
            }
    }

    private static func recordedOnlyEntity(_ entity: RecordedSchema.Entity, in recorded: RecordedSchema) -> RecordedOnlyEntity {
        let parent = entity.superentity.flatMap { recorded.entities[$0] }
        let inherited = Set(parent?.properties.keys.map { $0 } ?? [])
        return RecordedOnlyEntity(
            name: entity.name, superentity: entity.superentity,
            ownProperties: entity.properties.filter { !inherited.contains($0.key) },
            ownUniqueness: entity.uniqueness.filter { !(parent?.uniqueness.contains($0) ?? false) },
            ownIndices: entity.indices.filter { !(parent?.indices.contains($0) ?? false) },
            className: entity.className)
    }
}

extension Schema.Entity {
    /// The name the store records for an unlisted entity's class, by which a later process finds the
    /// class again: `Module.Class`, when Foundation's `NSClassFromString` finds the class by it (a class
    /// at the top level of its module, not a nested, `private` or local one); nil otherwise.
    var recordedClassName: String? {
        if let recordedOnly { return recordedOnly.className }
        let name = String(reflecting: modelType)
        guard isUnlisted, let found = Schema.modelClass(named: name), ObjectIdentifier(found) == ObjectIdentifier(modelType) else {
            return nil
        }
        return name
    }
}
