/// A change of the stored shape of every record of one entity, which a schema migration commits: members
/// removed, members renamed, or the whole entity removed.
///
/// A transaction's migrations are applied in order, before its inserted, updated and deleted records
/// (see ``WriteTransaction/migrate(_:)``). In the journal line they are the `"migrate"` member, one object
/// each (docs/file-format.md).
public struct RecordMigration: Hashable, Sendable {
    /// The entity whose records change.
    public var entity: String
    /// Members renamed in every record, old name → new name (applied after `removedMembers`).
    public var renamedMembers: [String: String]
    /// Members removed from every record, by their names before this migration.
    public var removedMembers: [String]
    /// Whether every record of the entity is deleted (the entity left the schema).
    public var removesEntity: Bool

    /// Creates a migration of `entity`'s records.
    public init(entity: String, renamedMembers: [String: String] = [:], removedMembers: [String] = [], removesEntity: Bool = false) {
        self.entity = entity
        self.renamedMembers = renamedMembers
        self.removedMembers = removedMembers
        self.removesEntity = removesEntity
    }

    /// Whether the migration changes nothing at all (it is then neither added to a transaction nor written).
    var isEmpty: Bool { renamedMembers.isEmpty && removedMembers.isEmpty && !removesEntity }

    /// Renames that change a name (a member renamed to itself keeps its name).
    var effectiveRenames: [String: String] { renamedMembers.filter { $0.key != $0.value } }

    /// The first problem with the migration's own content, without looking at any record: an invalid
    /// entity name is left to the caller (it has its own code); empty member names and two members renamed
    /// onto one name are reported here.
    func contentProblem() -> String? {
        if removedMembers.contains(where: \.isEmpty) { return "removes a member with an empty name" }
        if let (old, _) = renamedMembers.first(where: { $0.key.isEmpty || $0.value.isEmpty }) {
            return old.isEmpty ? "renames a member with an empty name" : "renames \"\(old)\" to an empty name"
        }
        var sources: [String: String] = [:]
        for (old, new) in renamedMembers.sorted(by: { $0.key < $1.key }) {
            if let other = sources[new] {
                return "renames both \"\(other)\" and \"\(old)\" to \"\(new)\""
            }
            sources[new] = old
        }
        return nil
    }

    // MARK: Journal line

    /// The JSON object of the migration in a journal line: `{"entity":…,"remove":[…],"rename":{…}}` or
    /// `{"entity":…,"removeEntity":true}`, empty members left out.
    func jsonValue() -> JSONValue {
        var members: [String: JSONValue] = ["entity": .string(entity)]
        if !removedMembers.isEmpty { members["remove"] = .array(removedMembers.map { .string($0) }) }
        if !renamedMembers.isEmpty { members["rename"] = .object(renamedMembers.mapValues { .string($0) }) }
        if removesEntity { members["removeEntity"] = .bool(true) }
        return .object(members)
    }

    /// Decodes one element of a line's `"migrate"` array; errors carry no file or line (the reader adds them).
    init(jsonValue: JSONValue) throws {
        func bad(_ what: String) -> StorageError {
            StorageError(.malformedLine, "not a journal transaction: each of \"migrate\" must be \(what)")
        }
        let shape = "{\"entity\":…,\"remove\":[…],\"rename\":{…},\"removeEntity\":true} (members other than \"entity\" optional)"
        guard case .object(let members) = jsonValue else { throw bad("an object \(shape)") }
        if let unknown = members.keys.sorted().first(where: { !["entity", "remove", "rename", "removeEntity"].contains($0) }) {
            throw bad("\(shape), without member \"\(unknown)\"")
        }
        guard case .string(let entity)? = members["entity"] else { throw bad("\(shape) with a string \"entity\"") }
        guard EntityName.isValid(entity) else {
            throw bad("\(shape) naming a valid entity, not \"\(entity)\" (1–200 ASCII letters, digits, '_', '-', '.', not starting with '.')")
        }
        var removed: [String] = []
        if let value = members["remove"] {
            guard case .array(let names) = value else { throw bad("\(shape) whose \"remove\" is an array of strings") }
            for element in names {
                guard case .string(let name) = element else { throw bad("\(shape) whose \"remove\" is an array of strings") }
                removed.append(name)
            }
        }
        var renamed: [String: String] = [:]
        if let value = members["rename"] {
            guard case .object(let pairs) = value else { throw bad("\(shape) whose \"rename\" is an object of strings") }
            for (old, element) in pairs {
                guard case .string(let new) = element else { throw bad("\(shape) whose \"rename\" is an object of strings") }
                renamed[old] = new
            }
        }
        var removesEntity = false
        if let value = members["removeEntity"] {
            guard case .bool(true) = value else { throw bad("\(shape) whose \"removeEntity\", when present, is true") }
            removesEntity = true
        }
        self.init(entity: entity, renamedMembers: renamed, removedMembers: removed, removesEntity: removesEntity)
        if isEmpty { throw bad("\(shape) that changes something (\"remove\", \"rename\" or \"removeEntity\")") }
        if let problem = contentProblem() {
            throw StorageError(.malformedLine, "not a journal transaction: the migration of \(entity) \(problem)")
        }
    }
}

/// Applies one ``RecordMigration`` to records' values, working out each layout's new layout once: the
/// records of an entity share a handful of layouts, so a migration of a million records makes a handful
/// of layouts and moves values, instead of sorting names for every record.
struct RecordMigrationApplier {
    let migration: RecordMigration
    private let removed: Set<String>
    private let renames: [String: String]
    /// For each layout seen (kept alive here, so its identifier stays its own): the new layout and, for
    /// each of its names, the position of the value in the old layout.
    private var arrangements: [ObjectIdentifier: (old: RecordLayout, new: RecordLayout, sources: [Int])] = [:]

    init(_ migration: RecordMigration) {
        self.migration = migration
        self.removed = Set(migration.removedMembers)
        self.renames = migration.effectiveRenames
    }

    /// `values` after the migration: removed members dropped, then renamed members renamed (all at once,
    /// so `a→b, b→a` swaps). A member renamed onto a name the record keeps replaces that member; two
    /// members renamed onto one name (which reading and ``WriteTransaction/migrate(_:)`` refuse) keep
    /// the one whose old name sorts first.
    mutating func apply(to values: RecordValues) -> RecordValues {
        let layout = values.layout
        let arrangement: (old: RecordLayout, new: RecordLayout, sources: [Int])
        if let known = arrangements[ObjectIdentifier(layout)] {
            arrangement = known
        } else {
            arrangement = arrange(layout)
            arrangements[ObjectIdentifier(layout)] = arrangement
        }
        if arrangement.new === layout && arrangement.sources.elementsEqual(layout.names.indices) { return values }
        // The values' bytes are copied into the new order, not decoded.
        return values.rearranged(into: arrangement.new, sources: arrangement.sources)
    }

    private func arrange(_ layout: RecordLayout) -> (old: RecordLayout, new: RecordLayout, sources: [Int]) {
        var kept: [String: Int] = [:]
        var renamedInto: [String: Int] = [:]
        for (position, name) in layout.names.enumerated() where !removed.contains(name) {
            if let new = renames[name] {
                // Names are visited in sorted order: the first old name renamed onto `new` wins.
                if renamedInto[new] == nil { renamedInto[new] = position }
            } else {
                kept[name] = position
            }
        }
        let members = kept.merging(renamedInto) { _, renamed in renamed }
        let names = members.keys.sorted()
        return (layout, RecordLayout.interned(sortedNames: names), names.map { members[$0] ?? 0 })
    }
}
