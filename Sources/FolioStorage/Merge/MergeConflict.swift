/// A value that a merge of two copies of a store did not keep: both sides changed the same attribute of
/// the same record, one side changed a record the other deleted, a side referred to a record the other
/// deleted, or two inserts with equal unique values became one record.
///
/// The merge driver records each conflict on the journal line of the transaction whose change was kept
/// (member `conflicts`, see `docs/file-format.md`), so a merged store carries its conflicts in the
/// file git merged, and ``Store/conflicts()`` lists them until ``Store/clearConflicts()``.
public struct MergeConflict: Hashable, Sendable {
    /// The record's entity.
    public var entity: String
    /// The record's identifier.
    public var id: Int64
    /// The attribute both sides changed; `#unique` for a record that became another of equal unique
    /// values (``id`` the record that is gone, ``kept`` the identifier that remains).
    public var member: String
    /// The value kept; nil when the record was deleted (the other side's update was dropped).
    public var kept: JSONValue?
    /// The value the other side wrote, which the merge did not keep.
    public var lost: JSONValue
    /// The transaction that wrote the lost value.
    public var lostTransaction: String

    /// Creates a conflict record.
    public init(entity: String, id: Int64, member: String, kept: JSONValue?, lost: JSONValue, lostTransaction: String) {
        self.entity = entity
        self.id = id
        self.member = member
        self.kept = kept
        self.lost = lost
        self.lostTransaction = lostTransaction
    }

    /// The conflict as the JSON object of a journal line's `conflicts` member.
    func jsonValue() -> JSONValue {
        var members: [String: JSONValue] = [
            "entity": .string(entity), "id": .int(id), "member": .string(member), "lost": lost,
            "lostTransaction": .string(lostTransaction),
        ]
        if let kept { members["kept"] = kept }
        return .object(members)
    }

    /// Decodes one element of a journal line's `conflicts` member.
    init(jsonValue value: JSONValue) throws {
        func bad() -> StorageError {
            StorageError(
                .malformedLine,
                "not a journal transaction: each of \"conflicts\" must be {\"entity\":…,\"id\":…,\"member\":…,\"lost\":…,\"lostTransaction\":…} with an optional \"kept\""
            )
        }
        guard case .object(let members) = value, case .string(let entity)? = members["entity"], EntityName.isValid(entity),
            case .int(let id)? = members["id"], IdentifierLimits.isValid(id), case .string(let member)? = members["member"], !member.isEmpty,
            let lost = members["lost"], case .string(let lostTransaction)? = members["lostTransaction"],
            members.keys.allSatisfy(["entity", "id", "member", "kept", "lost", "lostTransaction"].contains)
        else { throw bad() }
        self.init(entity: entity, id: id, member: member, kept: members["kept"], lost: lost, lostTransaction: lostTransaction)
    }
}
