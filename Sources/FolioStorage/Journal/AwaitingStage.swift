/// Records a git merge kept for a schema migration's custom stage: inserts of the clone that went on
/// with the old schema that only the stage's code can carry into the new one (records of an entity the
/// migration removed, or holding a value of a property a stage converted).
///
/// The merge driver lists their values as conflicts and keeps the records here, in the shape their
/// writer wrote them, on that writer's merged line (member `awaitingStage`). The next writable open
/// with a migration plan whose stages lead from ``fromChecksum`` runs those stages over these records
/// alone and commits what they give, naming the line in its `stageCarried` member.
///
/// Journal member `awaitingStage`: `{"from":checksum,"inserted":[{"entity":…,"id":…,"values":{…}}],"to":checksum}`.
public struct AwaitingStage: Hashable, Sendable {
    /// The checksum of the schema the records were written with (`schema.checksum`).
    public var fromChecksum: String
    /// The checksum of the schema of the first migration their writer had not run.
    public var toChecksum: String
    /// The records, as their writer last saved them (its later updates applied), by identifier.
    public var inserted: [StoredRecord]

    /// Creates the record of inserts awaiting a stage.
    public init(fromChecksum: String, toChecksum: String, inserted: [StoredRecord]) {
        self.fromChecksum = fromChecksum
        self.toChecksum = toChecksum
        self.inserted = inserted
    }

    func jsonValue() -> JSONValue {
        .object([
            "from": .string(fromChecksum), "to": .string(toChecksum),
            "inserted": .array(
                inserted.map { .object(["entity": .string($0.entity), "id": .int($0.id), "values": .object($0.values.dictionary)]) }),
        ])
    }

    init(jsonValue value: JSONValue) throws {
        func bad() -> StorageError {
            StorageError(
                .malformedLine,
                "not a journal transaction: \"awaitingStage\" must be {\"from\":checksum,\"inserted\":[{\"entity\":…,\"id\":1…2^62-1,\"values\":{…}}, …],\"to\":checksum}"
            )
        }
        guard case .object(let members) = value, members.keys.allSatisfy(["from", "to", "inserted"].contains),
            case .string(let from)? = members["from"], !from.isEmpty, case .string(let to)? = members["to"], !to.isEmpty,
            case .array(let elements)? = members["inserted"], !elements.isEmpty
        else { throw bad() }
        var records: [StoredRecord] = []
        for element in elements {
            guard case .object(let record) = element, record.count == 3, case .string(let entity)? = record["entity"], EntityName.isValid(entity),
                case .int(let id)? = record["id"], IdentifierLimits.isValid(id), case .object(let values)? = record["values"]
            else { throw bad() }
            records.append(StoredRecord(entity: entity, id: id, values: RecordValues(values)))
        }
        self.init(fromChecksum: from, toChecksum: to, inserted: records)
    }
}

/// One line's records awaiting a custom stage, as ``Store/recordsAwaitingStage()`` finds them.
public struct AwaitingStageRecords: Hashable, Sendable {
    /// The identifier of the merged line that keeps them.
    public var transactionID: String
    /// The records and the schemas they cross.
    public var awaiting: AwaitingStage
}
