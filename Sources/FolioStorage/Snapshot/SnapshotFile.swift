/// A snapshot file, `snapshots/<Entity>.jsonl`: the records of one entity.
///
/// The first line is a header, `{"$crc":"…","entity":"Item","records":3,"sequence":12,"snapshot":1}`:
/// the record count and the sequence of the last transaction that touched the entity, and after a git
/// merge of two compacted copies, the values it did not keep (member `conflicts`, as on a journal line,
/// until ``Store/clearConflicts()``; see ``SnapshotMerge``). Each further line
/// is one record, `{"$crc":"…","id":7,"values":{…}}`, in ascending identifier order, in canonical JSON:
/// the same records always give the same bytes, and changing one record changes its line (and the
/// header's `sequence`).
enum SnapshotFile {
    static let version: Int64 = 1

    struct Header: Hashable {
        var entity: String
        var records: Int
        var sequence: UInt64
        /// What a merge of two compacted copies of the snapshot did not keep.
        var conflicts: [MergeConflict] = []
    }

    static func relativePath(_ entity: String) -> String { "snapshots/\(entity).jsonl" }

    /// The size of the pieces the snapshot writers hand out.
    static let chunkSize = 4 << 20

    /// Hands the file content for an entity's records to `output` in pieces of about ``chunkSize``.
    ///
    /// - Parameter copies: records to copy from the journal rather than encode, if any.
    static func write(
        entity: String, sequence: UInt64, records: EntityRecords, conflicts: [MergeConflict] = [], copies: JournalRecordCopies? = nil,
        chunkSize: Int = chunkSize, to output: ([UInt8]) throws -> Void
    ) throws {
        var chunk = try header(entity: entity, sequence: sequence, count: records.count, conflicts: conflicts)
        chunk.reserveCapacity(chunkSize + 4096)
        let writer = CanonicalJSONWriter()
        try records.forEach { id, values in
            try appendRecordLine(id: id, values: values, copies: copies, with: writer, to: &chunk)
            if chunk.count >= chunkSize {
                try output(chunk)
                chunk.removeAll(keepingCapacity: true)
            }
        }
        if !chunk.isEmpty { try output(chunk) }
    }

    /// The header line; `conflicts` only when there are some, so that a store never merged writes the
    /// headers it always wrote.
    static func header(entity: String, sequence: UInt64, count: Int, conflicts: [MergeConflict] = []) throws -> [UInt8] {
        var members: [String: JSONValue] = [
            "snapshot": .int(version), "entity": .string(entity), "records": .int(Int64(count)),
            "sequence": .int(Int64(clamping: sequence)),
        ]
        if !conflicts.isEmpty { members["conflicts"] = .array(conflicts.map { $0.jsonValue() }) }
        return try LineFraming.encode(members)
    }

    /// Appends the framed line of one record, copied from `copies` if it has it, otherwise encoded.
    static func appendRecordLine(
        id: Int64, values: RecordValues, copies: JournalRecordCopies?, with writer: CanonicalJSONWriter,
        to bytes: inout [UInt8]
    ) throws {
        if let copies, copies.appendLine(id: id, values: values, to: &bytes) { return }
        try appendRecordLine(id: id, values: values, with: writer, to: &bytes)
    }

    /// Appends the framed line of one record, `{"$crc":"…","id":N,"values":{…}}` and `\n`.
    static func appendRecordLine(id: Int64, values: RecordValues, with writer: CanonicalJSONWriter, to bytes: inout [UInt8]) throws {
        try LineFraming.appendLine(to: &bytes) { output in
            CanonicalJSONWriter.writeMemberName("id", first: true, into: &output)
            CanonicalJSONWriter.writeInteger(id, into: &output)
            CanonicalJSONWriter.writeMemberName("values", into: &output)
            try writer.write(values, into: &output)
            output.append(UInt8(ascii: "}"))
        }
    }

    /// The canonical body of a record line, `{"id":N,"values":{…}}`: what `LineFraming.encode` gives for
    /// those members, written without building them.
    static func encodeRecord(id: Int64, values: RecordValues, with writer: CanonicalJSONWriter, into body: inout [UInt8]) throws {
        body.append(UInt8(ascii: "{"))
        CanonicalJSONWriter.writeMemberName("id", first: true, into: &body)
        CanonicalJSONWriter.writeInteger(id, into: &body)
        CanonicalJSONWriter.writeMemberName("values", into: &body)
        try writer.write(values, into: &body)
        body.append(UInt8(ascii: "}"))
    }

    /// The length of the shortest record line, `{"$crc":"…","id":1,"values":{}}` and its `\n`.
    static let shortestRecordLineBytes = 39

    /// The most records a snapshot file of `size` bytes can hold: what a header's count is capped at
    /// before it sizes anything.
    static func maximumRecordCount(inFileOfSize size: Int64) -> Int {
        Int(clamping: max(0, size) / Int64(shortestRecordLineBytes))
    }

    static func decodeHeader(_ members: [String: JSONValue]) throws -> Header {
        guard case .int(let version)? = members["snapshot"] else {
            throw StorageError(.malformedLine, "the first line of a snapshot must be its header {\"snapshot\":1,…}")
        }
        if version > Self.version {
            throw StorageError(.newerFormatVersion, "snapshot format \(version) is newer than this Folio reads (\(Self.version)); upgrade Folio")
        }
        guard case .string(let entity)? = members["entity"] else {
            throw StorageError(.malformedLine, "snapshot header member \"entity\" must be a string")
        }
        guard case .int(let records)? = members["records"], records >= 0, let count = Int(exactly: records) else {
            throw StorageError(.malformedLine, "snapshot header member \"records\" must be a non-negative integer")
        }
        guard case .int(let sequence)? = members["sequence"], SequenceLimits.isValid(sequence, allowsZero: true) else {
            throw StorageError(.malformedLine, "snapshot header member \"sequence\" must be an integer from 0 to 2^62-1")
        }
        var conflicts: [MergeConflict] = []
        if let listed = members["conflicts"] {
            guard case .array(let elements) = listed else {
                throw StorageError(.malformedLine, "snapshot header member \"conflicts\" must be an array")
            }
            conflicts = try elements.map { try MergeConflict(jsonValue: $0) }
            guard conflicts.allSatisfy({ $0.entity == entity }) else {
                throw StorageError(.malformedLine, "snapshot header member \"conflicts\" lists a record of another entity than \(entity)")
            }
        }
        return Header(entity: entity, records: count, sequence: UInt64(sequence), conflicts: conflicts)
    }

    private static let idMember: [UInt8] = Array(#","id":"#.utf8)
    private static let valuesMember: [UInt8] = Array(#","values":"#.utf8)

    /// Decodes a canonical record line, `{"$crc":"…","id":N,"values":{…}}`, checksum included, without
    /// building the outer object (the loader's hot path). Returns `nil` for any other shape, which the
    /// caller then decodes the general way (and reports precisely).
    static func fastRecord(_ line: UnsafeBufferPointer<UInt8>) throws -> (Int64, RecordValues)? {
        try LineFraming.verify(line)
        let start = LineFraming.prefixLength - 1  // the ',' after the checksum member
        guard line.count > start + idMember.count, UnsafeBufferPointer(rebasing: line[start..<(start + idMember.count)]).elementsEqual(idMember)
        else { return nil }
        var parser = _Parser(bytes: line, maximumDepth: JSONReader().maximumDepth)
        parser.index = start + idMember.count
        do {
            guard case .int(let id) = try parser.parseNumber() else { return nil }
            let valuesStart = parser.index
            guard line.count > valuesStart + valuesMember.count + 1,
                UnsafeBufferPointer(rebasing: line[valuesStart..<(valuesStart + valuesMember.count)]).elementsEqual(valuesMember)
            else { return nil }
            parser.index = valuesStart + valuesMember.count
            guard line[parser.index] == UInt8(ascii: "{") else { return nil }
            let values = try parser.parseRecordValues(depth: 2)
            guard parser.index == line.count - 1, line[parser.index] == UInt8(ascii: "}") else { return nil }
            return (id, values)
        } catch {
            return nil
        }
    }

    static func decodeRecord(_ members: [String: JSONValue]) throws -> (Int64, RecordValues) {
        guard case .int(let id)? = members["id"], case .object(let values)? = members["values"], members.count == 2 else {
            throw StorageError(.malformedLine, "a snapshot record must be {\"id\":…,\"values\":{…}}")
        }
        return (id, RecordValues(values))
    }
}
