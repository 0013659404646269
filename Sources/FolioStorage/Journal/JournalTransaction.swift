import Foundation

/// A committed transaction: one line of the journal.
public struct JournalTransaction: Hashable, Sendable {
    /// The 1-based, contiguous sequence number.
    public var sequence: UInt64
    /// A UUID string naming the transaction (SwiftData's history token).
    public var transactionID: String
    /// When it was committed, at millisecond precision.
    public var timestamp: Date
    /// Who wrote it (SwiftData's `transactionAuthor`), if set.
    public var author: String?
    /// Changes of the stored shape of whole entities, applied in order before ``inserted``, ``updated``
    /// and ``deleted`` (a schema migration's line). Inserted and updated records use the new names.
    public var migrations: [RecordMigration]
    /// Records inserted, with all their values. Sorted by identifier.
    public var inserted: [StoredRecord]
    /// Records updated, with only the changed values. Sorted by identifier.
    public var updated: [StoredRecord]
    /// Records deleted, with their tombstones. Sorted by identifier.
    public var deleted: [DeletedRecord]
    /// The store's metadata slot after this transaction, if the transaction set it.
    public var schema: JSONValue?
    /// The store's identifier counter after this transaction: the next identifier to allocate.
    public var nextID: Int64
    /// The values a merge did not keep because this transaction's changes won (see ``MergeConflict``).
    public var conflicts: [MergeConflict] = []
    /// Whether this transaction forgets the conflicts recorded before it (`folio conflicts --clear`).
    public var clearsConflicts = false
    /// Set by a merge with a side that had compacted: the transactions that side folded into its
    /// snapshots, which this transaction's writer had or had not seen (see ``FoldedTransactions``).
    public var folded: FoldedTransactions?
    /// Set on a `history.jsonl` line by a merge of two compacted copies' histories: the identifier of
    /// the compaction mark of the copy whose compaction folded this transaction (the last transaction
    /// it folded), so that a merged journal line's ``FoldedTransactions/by`` can name one side's.
    public var foldedBy: String?
    /// Whether this line is a compaction mark: the first line of a journal a compaction wrote, naming
    /// the last transaction the snapshots hold (its sequence, id and time, without its changes), so that
    /// the journal alone says where the snapshots stand (see ``compactionMark(for:)``).
    public var isCompactionMark = false
    /// On a compaction mark: the sequence of the first transaction `history.jsonl` kept at that
    /// compaction (one past the mark's when it kept none), so that a merge can tell whether a side's
    /// history still holds everything since the merge base. Nil on marks older Folios wrote.
    public var historyFrom: UInt64?
    /// On the compaction mark of a journal git merged from two copies that both compacted a base whose
    /// journal held transactions: which retained transactions those were (see ``MergedBase``).
    public var mergedBase: MergedBase?
    /// Only on a compaction mark: the migration lines the compaction had folded (or the previous mark
    /// named), so that git's merge driver can carry another clone's changes through them.
    public var foldedMigrations: [FoldedMigration] = []
    /// Set by a merge across a schema migration: inserts of this line's writer that only a custom
    /// stage can carry into the new schema, kept for the next open with the plan (see ``AwaitingStage``).
    public var awaitingStage: AwaitingStage?
    /// The lines whose ``awaitingStage`` records this transaction carried through the plan's stages:
    /// their identifiers, sorted.
    public var stageCarried: [String] = []

    /// Creates a transaction value.
    public init(
        sequence: UInt64, transactionID: String, timestamp: Date, author: String?, migrations: [RecordMigration] = [],
        inserted: [StoredRecord], updated: [StoredRecord], deleted: [DeletedRecord], schema: JSONValue? = nil, nextID: Int64
    ) {
        self.sequence = sequence
        self.transactionID = transactionID
        self.timestamp = timestamp
        self.author = author
        self.migrations = migrations
        self.inserted = inserted
        self.updated = updated
        self.deleted = deleted
        self.schema = schema
        self.nextID = nextID
    }

    /// How many records this transaction inserts, updates or deletes.
    public var changedRecordCount: Int { inserted.count + updated.count + deleted.count }

    /// The entities this transaction touches, migrated ones included.
    public var entities: Set<String> {
        Set(inserted.map(\.entity)).union(updated.map(\.entity)).union(deleted.map(\.entity)).union(migrations.map(\.entity))
    }

    /// The entities a reader must know (``StoreConfiguration/knownEntities``) to apply this transaction:
    /// ``entities`` without those that appear only in a migration removing them, which a store opened
    /// with the new schema's entities applies without knowing the old one.
    var entitiesNeedingKnown: Set<String> {
        guard migrations.contains(where: \.removesEntity) else { return entities }
        var result = Set(inserted.map(\.entity)).union(updated.map(\.entity)).union(deleted.map(\.entity))
        for migration in migrations where !migration.removesEntity { result.insert(migration.entity) }
        return result
    }

    /// The migrations that are written: those that change something.
    var writtenMigrations: [RecordMigration] { migrations.filter { !$0.isEmpty } }
}

extension JournalTransaction {
    /// The JSON members of the journal line (without `$crc`).
    func jsonMembers() -> [String: JSONValue] {
        var members: [String: JSONValue] = [
            // Sequences are at most SequenceLimits.maximum (checked when read and before a write).
            "seq": .int(Int64(clamping: sequence)),
            "id": .string(transactionID),
            "time": .string(Timestamp.format(timestamp)),
            "nextID": .int(nextID),
        ]
        if let author { members["author"] = .string(author) }
        if let awaitingStage { members["awaitingStage"] = awaitingStage.jsonValue() }
        if !stageCarried.isEmpty { members["stageCarried"] = .array(stageCarried.map { .string($0) }) }
        if clearsConflicts { members["clearsConflicts"] = .bool(true) }
        if isCompactionMark { members["compacted"] = .bool(true) }
        if !conflicts.isEmpty { members["conflicts"] = .array(conflicts.map { $0.jsonValue() }) }
        if let folded { members["folded"] = folded.jsonValue() }
        if let foldedBy { members["foldedBy"] = .string(foldedBy) }
        if !foldedMigrations.isEmpty { members["foldedMigrations"] = .array(foldedMigrations.map { $0.jsonValue() }) }
        if let historyFrom { members["historyFrom"] = .int(Int64(clamping: historyFrom)) }
        if let mergedBase { members["mergedBase"] = mergedBase.jsonValue() }
        let written = writtenMigrations
        if !written.isEmpty { members["migrate"] = .array(written.map { $0.jsonValue() }) }
        if !inserted.isEmpty {
            members["inserted"] = .array(
                inserted.map { .object(["entity": .string($0.entity), "id": .int($0.id), "values": .object($0.values.dictionary)]) })
        }
        if !updated.isEmpty {
            members["updated"] = .array(
                updated.map { .object(["entity": .string($0.entity), "id": .int($0.id), "values": .object($0.values.dictionary)]) })
        }
        if !deleted.isEmpty {
            members["deleted"] = .array(
                deleted.map { .object(["entity": .string($0.entity), "id": .int($0.id), "tombstone": .object($0.tombstone)]) })
        }
        if let schema { members["schema"] = .object(["value": schema]) }
        return members
    }

    /// The framed journal line, ending in `\n`: the canonical JSON of ``jsonMembers()``, written
    /// member by member in canonical (byte) order without building the members.
    func encodedLine() throws -> [UInt8] {
        var line: [UInt8] = []
        try encodeLine(into: &line)
        return line
    }

    /// Replaces `line`'s content by the framed journal line, reusing its storage: a writer that keeps
    /// one buffer does not allocate (and fault in) megabytes of fresh memory for each large transaction.
    func encodeLine(into line: inout [UInt8]) throws {
        var spans: InsertedRecordSpans? = nil
        try encodeLine(into: &line, spans: &spans)
    }

    /// ``encodeLine(into:)``, also noting where each inserted record's `"id":N,"values":{…}}` lies in
    /// the line, which a compaction copies into the snapshot instead of encoding the record again.
    ///
    /// - Parameter collectingBlobReferences: whether to return the blobs the inserted and updated
    ///   records refer to (see ``BlobStore/collectReferences(inCanonicalMembers:into:)``), found in
    ///   their bytes as they are written; otherwise the returned set is empty.
    @discardableResult
    func encodeLine(
        into line: inout [UInt8], spans: inout InsertedRecordSpans?,
        collectingBlobReferences: Bool = false
    ) throws -> Set<String> {
        var blobReferences = Set<String>()
        let writer = CanonicalJSONWriter()
        var ranges: [Int32] = []
        let noteSpans = !inserted.isEmpty && inserted.count < Int(Int32.max / 2)
        if noteSpans { ranges.reserveCapacity(2 * inserted.count) }
        line.removeAll(keepingCapacity: true)
        line.reserveCapacity(256 + 200 * (inserted.count + updated.count) + 64 * deleted.count)
        try LineFraming.appendLine(to: &line) { body, checksum in
            var first = true
            func member(_ key: StaticString) {
                CanonicalJSONWriter.writeMemberName(key, first: first, into: &body)
                first = false
            }
            // A large transaction's records are written in runs on separate threads, then joined.
            func records(_ records: [StoredRecord], noting: Bool) throws {
                body.append(UInt8(ascii: "["))
                if records.count < ParallelRuns.minimumCount {
                    try Self.write(
                        records[...], noting: noting, into: &body, ranges: &ranges,
                        collectingBlobReferences: collectingBlobReferences, into: &blobReferences)
                } else {
                    // Each run also checksums its part while the bytes are in its core's cache.
                    let parts = try ParallelRuns.runs(count: records.count) { positions in
                        var part = (bytes: [UInt8](), ranges: [Int32](), blobReferences: Set<String>(), crc: UInt32(0))
                        part.bytes.reserveCapacity(200 * positions.count)
                        if noting { part.ranges.reserveCapacity(2 * positions.count) }
                        try Self.write(
                            records[positions], noting: noting, into: &part.bytes, ranges: &part.ranges,
                            collectingBlobReferences: collectingBlobReferences, into: &part.blobReferences)
                        part.crc = CRC32.checksum(part.bytes)
                        return part
                    }
                    for part in parts {
                        let offset = Int32(truncatingIfNeeded: body.count)
                        body.append(contentsOf: part.bytes)
                        checksum.appendedPart(length: part.bytes.count, crc: part.crc, in: body)
                        ranges.append(contentsOf: part.ranges.lazy.map { $0 &+ offset })
                        blobReferences.formUnion(part.blobReferences)
                    }
                }
                body.append(UInt8(ascii: "]"))
            }
            // Members in byte order: author, awaitingStage, clearsConflicts, compacted, conflicts, deleted, folded,
            // foldedBy, foldedMigrations, historyFrom, id, inserted, mergedBase, migrate, nextID, schema, seq,
            // stageCarried, time, updated.
            if let author {
                member("author")
                CanonicalJSONWriter.writeString(author, into: &body)
            }
            if let awaitingStage {
                member("awaitingStage")
                try writer.write(awaitingStage.jsonValue(), into: &body)
            }
            if clearsConflicts {
                member("clearsConflicts")
                body.append(contentsOf: Array("true".utf8))
            }
            if isCompactionMark {
                member("compacted")
                body.append(contentsOf: Array("true".utf8))
            }
            if !conflicts.isEmpty {
                member("conflicts")
                try writer.write(.array(conflicts.map { $0.jsonValue() }), into: &body)
            }
            if !deleted.isEmpty {
                member("deleted")
                try Self.write(deleted, with: writer, into: &body)
            }
            if let folded {
                member("folded")
                try writer.write(folded.jsonValue(), into: &body)
            }
            if let foldedBy {
                member("foldedBy")
                CanonicalJSONWriter.writeString(foldedBy, into: &body)
            }
            if !foldedMigrations.isEmpty {
                member("foldedMigrations")
                try writer.write(.array(foldedMigrations.map { $0.jsonValue() }), into: &body)
            }
            if let historyFrom {
                member("historyFrom")
                CanonicalJSONWriter.writeInteger(Int64(clamping: historyFrom), into: &body)
            }
            member("id")
            CanonicalJSONWriter.writeString(transactionID, into: &body)
            if !inserted.isEmpty {
                member("inserted")
                try records(inserted, noting: noteSpans)
            }
            if let mergedBase {
                member("mergedBase")
                try writer.write(mergedBase.jsonValue(), into: &body)
            }
            let migrations = writtenMigrations
            if !migrations.isEmpty {
                member("migrate")
                try writer.write(.array(migrations.map { $0.jsonValue() }), into: &body)
            }
            member("nextID")
            CanonicalJSONWriter.writeInteger(nextID, into: &body)
            if let schema {
                member("schema")
                try writer.write(.object(["value": schema]), into: &body)
            }
            member("seq")
            guard sequence <= SequenceLimits.maximum else {
                throw StorageError(.unencodableValue, "sequence \(sequence) is past the largest sequence number, \(SequenceLimits.maximum)")
            }
            CanonicalJSONWriter.writeInteger(Int64(sequence), into: &body)
            if !stageCarried.isEmpty {
                member("stageCarried")
                try writer.write(.array(stageCarried.map { .string($0) }), into: &body)
            }
            member("time")
            CanonicalJSONWriter.writeString(Timestamp.format(timestamp), into: &body)
            if !updated.isEmpty {
                member("updated")
                try records(updated, noting: false)
            }
            body.append(UInt8(ascii: "}"))
        }
        spans = noteSpans ? InsertedRecordSpans(lineLength: line.count - 1, bounds: ranges) : nil
        return blobReferences
    }

    /// Appends `deleted` as a JSON array of `{"entity":…,"id":…,"tombstone":{…}}` objects: the bytes the
    /// canonical writer gives for those objects (whose member names are already in byte order), without
    /// making a dictionary for each record and sorting its names.
    private static func write(
        _ deleted: [DeletedRecord], with writer: CanonicalJSONWriter,
        into output: inout [UInt8]
    ) throws(StorageError) {
        var opening = RecordOpening()
        output.append(UInt8(ascii: "["))
        for (position, record) in deleted.enumerated() {
            if position > 0 { output.append(UInt8(ascii: ",")) }
            opening.append(for: record.entity, to: &output)
            CanonicalJSONWriter.writeInteger(record.id, into: &output)
            CanonicalJSONWriter.writeMemberName("tombstone", into: &output)
            if record.tombstone.isEmpty {
                output.append(contentsOf: [UInt8(ascii: "{"), UInt8(ascii: "}")])
            } else {
                try writer.write(.object(record.tombstone), into: &output)
            }
            output.append(UInt8(ascii: "}"))
        }
        output.append(UInt8(ascii: "]"))
    }

    /// Appends `records` as members of a JSON array (comma-separated; the first one after a comma unless
    /// it is the first record of the transaction), noting in `ranges`, when `noting`, where each record's
    /// `"id":N,"values":{…}}` starts and ends in `output`, and adding to `blobReferences`, when
    /// `collectingBlobReferences`, the blobs their values refer to.
    private static func write(
        _ records: ArraySlice<StoredRecord>, noting: Bool,
        into output: inout [UInt8], ranges: inout [Int32],
        collectingBlobReferences: Bool, into blobReferences: inout Set<String>
    ) throws {
        let writer = CanonicalJSONWriter()
        var opening = RecordOpening()
        for (position, record) in zip(records.indices, records) {
            if position > 0 { output.append(UInt8(ascii: ",")) }
            opening.append(for: record.entity, to: &output)
            // The record's tail starts at `"id":`, the last 5 bytes of the opening.
            let tailStart = output.count - 5
            CanonicalJSONWriter.writeInteger(record.id, into: &output)
            CanonicalJSONWriter.writeMemberName("values", into: &output)
            let valuesStart = output.count
            try writer.write(record.values, into: &output)
            if collectingBlobReferences {
                // The values' members, from just after their object's own opening brace.
                output.withUnsafeBufferPointer { written in
                    BlobStore.collectReferences(
                        inCanonicalMembers: UnsafeBufferPointer(rebasing: written[(valuesStart + 1)...]),
                        into: &blobReferences)
                }
            }
            output.append(UInt8(ascii: "}"))
            if noting {
                ranges.append(Int32(truncatingIfNeeded: tailStart))
                ranges.append(Int32(truncatingIfNeeded: output.count))
            }
        }
    }

    /// The bytes `{"entity":"Name","id":` that open each inserted, updated or deleted record of `Name` in
    /// a line. Records come in runs of one entity, so they are made again only when the entity changes.
    private struct RecordOpening {
        private var entity: String?
        private var bytes: [UInt8] = []

        /// Appends the opening of a record of `entity` to `output`.
        mutating func append(for entity: String, to output: inout [UInt8]) {
            if entity != self.entity {
                self.entity = entity
                bytes.removeAll(keepingCapacity: true)
                bytes.append(UInt8(ascii: "{"))
                CanonicalJSONWriter.writeMemberName("entity", first: true, into: &bytes)
                CanonicalJSONWriter.writeString(entity, into: &bytes)
                CanonicalJSONWriter.writeMemberName("id", into: &bytes)
            }
            output.append(contentsOf: bytes)
        }
    }

    /// Decodes a journal line's members; errors carry no file or line (the caller adds them).
    package init(members: [String: JSONValue]) throws {
        func bad(_ what: String) -> StorageError {
            StorageError(.malformedLine, "not a journal transaction: \(what)")
        }
        if members.isEmpty { throw bad("the line holds only its checksum member, no \"seq\", \"id\", \"time\" or records") }
        // A member this reader does not know would be silently ignored, and a store replayed without it
        // would differ from the one its writer had.
        if let unknown = members.keys.sorted().first(where: { !Self.lineMembers.contains($0) }) {
            throw StorageError(
                .malformedLine,
                "journal line member \"\(unknown)\" is not one this version of Folio knows; the line may come from a newer Folio: open the store with that version"
            )
        }
        guard case .int(let seq)? = members["seq"], SequenceLimits.isValid(seq) else {
            throw bad("\"seq\" must be an integer from 1 to 2^62-1")
        }
        guard case .string(let id)? = members["id"] else { throw bad("\"id\" must be a string") }
        guard case .string(let time)? = members["time"], let date = Timestamp.parse(time) else {
            throw bad("\"time\" must be an ISO 8601 UTC timestamp like 2026-01-31T12:00:00.000Z")
        }
        guard case .int(let nextID)? = members["nextID"], nextID == 0 || IdentifierLimits.isValidCounter(nextID) else {
            throw bad("\"nextID\" must be an integer from 1 to 2^62")
        }
        var author: String? = nil
        if let value = members["author"] {
            guard case .string(let string) = value else { throw bad("\"author\" must be a string") }
            author = string
        }
        func records(_ key: String, valuesKey: String) throws -> [(String, Int64, [String: JSONValue])] {
            guard let value = members[key] else { return [] }
            guard case .array(let elements) = value else { throw bad("\"\(key)\" must be an array") }
            return try elements.map { element in
                guard case .object(let record) = element, case .string(let entity)? = record["entity"],
                    case .int(let id)? = record["id"], IdentifierLimits.isValid(id), case .object(let values)? = record[valuesKey]
                else { throw bad("each of \"\(key)\" must be {\"entity\":…,\"id\":1…2^62-1,\"\(valuesKey)\":{…}}") }
                return (entity, id, values)
            }
        }
        var migrations: [RecordMigration] = []
        if let value = members["migrate"] {
            guard case .array(let elements) = value else { throw bad("\"migrate\" must be an array") }
            migrations = try elements.map { try RecordMigration(jsonValue: $0) }
        }
        var schema: JSONValue? = nil
        if let value = members["schema"] {
            guard case .object(let box) = value, let inner = box["value"] else { throw bad("\"schema\" must be {\"value\":…}") }
            schema = inner
        }
        var conflicts: [MergeConflict] = []
        if let value = members["conflicts"] {
            guard case .array(let elements) = value, !elements.isEmpty else { throw bad("\"conflicts\" must be a non-empty array") }
            conflicts = try elements.map { try MergeConflict(jsonValue: $0) }
        }
        var clearsConflicts = false
        if let value = members["clearsConflicts"] {
            guard case .bool(true) = value else { throw bad("\"clearsConflicts\" must be true when present") }
            clearsConflicts = true
        }
        self.init(
            sequence: UInt64(seq), transactionID: id, timestamp: date, author: author, migrations: migrations,
            inserted: try records("inserted", valuesKey: "values").map { StoredRecord(entity: $0.0, id: $0.1, values: $0.2) },
            updated: try records("updated", valuesKey: "values").map { StoredRecord(entity: $0.0, id: $0.1, values: $0.2) },
            deleted: try records("deleted", valuesKey: "tombstone").map { DeletedRecord(entity: $0.0, id: $0.1, tombstone: $0.2) },
            schema: schema, nextID: nextID)
        self.conflicts = conflicts
        self.clearsConflicts = clearsConflicts
        if let value = members["folded"] { folded = try FoldedTransactions(jsonValue: value) }
        if let value = members["foldedBy"] {
            guard case .string(let identifier) = value, !identifier.isEmpty else { throw bad("\"foldedBy\" must be a transaction identifier") }
            foldedBy = identifier
        }
        if let value = members["historyFrom"] {
            guard case .int(let from) = value, SequenceLimits.isValid(from) || from == SequenceLimits.maximum + 1 else {
                throw bad("\"historyFrom\" must be an integer from 1 to 2^62")
            }
            historyFrom = UInt64(from)
        }
        if let value = members["mergedBase"] { mergedBase = try MergedBase(jsonValue: value) }
        if let value = members["foldedMigrations"] {
            guard case .array(let elements) = value, !elements.isEmpty else { throw bad("\"foldedMigrations\" must be a non-empty array") }
            foldedMigrations = try elements.map { try FoldedMigration(jsonValue: $0) }
        }
        if let value = members["awaitingStage"] { awaitingStage = try AwaitingStage(jsonValue: value) }
        if let value = members["stageCarried"] {
            guard case .array(let elements) = value, !elements.isEmpty else {
                throw bad("\"stageCarried\" must be a non-empty array of transaction ids")
            }
            stageCarried = try elements.map { element in
                guard case .string(let id) = element, !id.isEmpty else { throw bad("\"stageCarried\" must be a non-empty array of transaction ids") }
                return id
            }
        }
        if historyFrom != nil || mergedBase != nil || !foldedMigrations.isEmpty, members["compacted"] == nil {
            throw bad("\"historyFrom\", \"mergedBase\" and \"foldedMigrations\" belong on a compaction mark (\"compacted\":true)")
        }
        if let value = members["compacted"] {
            guard case .bool(true) = value else { throw bad("\"compacted\" must be true when present") }
            guard changedRecordCount == 0, migrations.isEmpty, schema == nil, conflicts.isEmpty, !clearsConflicts, folded == nil, foldedBy == nil,
                awaitingStage == nil, stageCarried.isEmpty
            else {
                throw bad("a compaction mark (\"compacted\":true) holds no changes")
            }
            isCompactionMark = true
        }
    }

    /// The compaction mark that starts the journal a compaction at `transaction`'s sequence writes. Its
    /// `nextID` is 0: the manifest holds the counters.
    static func compactionMark(for transaction: JournalTransaction) -> JournalTransaction {
        var mark = JournalTransaction(
            sequence: transaction.sequence, transactionID: transaction.transactionID, timestamp: transaction.timestamp, author: nil,
            inserted: [], updated: [], deleted: [], nextID: 0)
        mark.isCompactionMark = true
        return mark
    }

    /// Whether a journal line's bytes are a compaction mark as Folio writes it (its first member after
    /// `$crc` is `"compacted":true`), without parsing the line.
    static func isCompactionMark(line: UnsafeBufferPointer<UInt8>) -> Bool {
        let member = Array(#""compacted":true"#.utf8)
        guard line.count > LineFraming.prefixLength + member.count else { return false }
        return member.indices.allSatisfy { line[LineFraming.prefixLength + $0] == member[$0] }
    }

    /// The members a journal line may have besides `$crc` (which framing removes).
    static let lineMembers: Set<String> = [
        "seq", "id", "time", "nextID", "author", "migrate", "inserted", "updated", "deleted", "schema", "conflicts", "clearsConflicts",
        "compacted", "folded", "foldedBy", "foldedMigrations", "historyFrom", "mergedBase", "awaitingStage", "stageCarried",
    ]
}

/// ISO 8601 UTC timestamps with milliseconds (`2026-01-31T12:00:00.000Z`), without Foundation's
/// formatters (which are slow and locale-sensitive).
enum Timestamp {
    /// Truncates a date to whole milliseconds, the precision kept in the journal.
    static func truncated(_ date: Date) -> Date {
        Date(timeIntervalSince1970: (date.timeIntervalSince1970 * 1000).rounded(.down) / 1000)
    }

    static func format(_ date: Date) -> String {
        let millis = Int64((date.timeIntervalSince1970 * 1000).rounded())
        let days = millis >= 0 ? millis / 86_400_000 : (millis - 86_399_999) / 86_400_000
        let msOfDay = millis - days * 86_400_000
        let (year, month, day) = CivilDate.civil(fromDays: days)
        let pad = CivilDate.pad
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(msOfDay / 3_600_000, 2)):"
            + "\(pad(msOfDay / 60_000 % 60, 2)):\(pad(msOfDay / 1000 % 60, 2)).\(pad(msOfDay % 1000, 3))Z"
    }

    static func parse(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        guard bytes.count == 24, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
            bytes[10] == UInt8(ascii: "T"), bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"),
            bytes[19] == UInt8(ascii: "."), bytes[23] == UInt8(ascii: "Z")
        else { return nil }
        func number(_ range: Range<Int>) -> Int64? {
            var value: Int64 = 0
            for k in range {
                guard bytes[k] >= UInt8(ascii: "0"), bytes[k] <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int64(bytes[k] - UInt8(ascii: "0"))
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
            let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
            let millis = number(20..<23), (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60,
            second < 60
        else { return nil }
        let days = CivilDate.days(year: year, month: month, day: day)
        let total = ((days * 24 + hour) * 60 + minute) * 60 + second
        return Date(timeIntervalSince1970: Double(total * 1000 + millis) / 1000)
    }
}
