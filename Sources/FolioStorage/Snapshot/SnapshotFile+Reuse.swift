/// Rewriting a snapshot by copying the lines of records that did not change.
///
/// A compaction writes the snapshot of every entity that changed. Copying a record's line is much
/// cheaper than encoding it, and after a bulk load or a small edit most records are the same
/// as in the snapshot on disk. So when the earlier file is at the sequence the store last wrote for the
/// entity, its lines for unchanged records are copied, each one's checksum verified, and only the
/// records that transactions since then touched are encoded. The result is byte for byte what
/// ``SnapshotFile/write(entity:sequence:records:chunkSize:to:)`` gives; whenever that cannot be guaranteed (the
/// file differs from what the store expects, a line fails its checksum or is not in canonical shape,
/// its identifiers do not match the records) the caller encodes everything from memory instead.
extension SnapshotFile {
    /// An earlier snapshot file and what changed since it was written.
    struct EarlierFile {
        /// The file's path.
        var path: String
        /// The sequence its header must carry: what the store last wrote or read for the entity.
        var sequence: UInt64
        /// The identifiers of the entity's records inserted, updated or deleted by transactions after
        /// ``sequence``.
        var changedIDs: Set<Int64>
    }

    /// Hands the file content for an entity's records to `output` in pieces of about ``chunkSize``,
    /// copying unchanged lines from `earlier`, and changed records from `copies` where it has them.
    ///
    /// - Returns: `false` when `earlier` cannot be used; what was handed to `output` until then must
    ///   be thrown away (the caller writes the file from memory instead).
    /// - Throws: what `output` throws. Problems with the earlier file give `false`, not an error.
    static func write(
        entity: String, sequence: UInt64, records: EntityRecords, conflicts: [MergeConflict] = [], reusing earlier: EarlierFile,
        copies: JournalRecordCopies? = nil, fileSystem fs: any FileSystem, chunkSize: Int = chunkSize, to output: ([UInt8]) throws -> Void
    ) throws -> Bool {
        guard let file = try? fs.open(earlier.path, .read) else { return false }
        defer { fs.close(file) }
        let changed = earlier.changedIDs.sorted()
        let changedPresent = changed.filter { records.contains($0) }

        var chunk = try header(entity: entity, sequence: sequence, count: records.count, conflicts: conflicts)
        chunk.reserveCapacity(chunkSize + (1 << 16))
        let writer = CanonicalJSONWriter()
        var nextChanged = 0  // position in `changed`
        var nextPresent = 0  // position in `changedPresent`
        var previousID: Int64 = 0
        var lines = 0

        func emitIfFull() throws {
            guard chunk.count >= chunkSize else { return }
            do { try output(chunk) } catch { throw OutputFailed(underlying: error) }
            chunk.removeAll(keepingCapacity: true)
        }

        /// Encodes the changed records with identifiers up to and including `limit` (all when nil).
        func encodeChanged(through limit: Int64?) throws {
            while nextPresent < changedPresent.count {
                let id = changedPresent[nextPresent]
                if let limit, id > limit { return }
                nextPresent += 1
                guard let values = records[id] else { continue }
                try appendRecordLine(id: id, values: values, copies: copies, with: writer, to: &chunk)
                lines += 1
                try emitIfFull()
            }
        }

        do {
            let scan = try LineScanner.scan(fs, file) { line in
                if line.number == 1 {
                    let header = try decodeHeader(try LineFraming.decode(line.bytes))
                    guard header.entity == entity, header.sequence == earlier.sequence else { throw CannotReuse() }
                    return
                }
                try LineFraming.verify(line.bytes)
                guard let id = recordID(line.bytes), id > previousID else { throw CannotReuse() }
                previousID = id
                try encodeChanged(through: id)
                while nextChanged < changed.count, changed[nextChanged] < id { nextChanged += 1 }
                if nextChanged < changed.count, changed[nextChanged] == id { return }  // encoded above, or deleted
                guard records.contains(id) else { throw CannotReuse() }
                chunk.append(contentsOf: line.bytes)
                chunk.append(0x0A)
                lines += 1
                try emitIfFull()
            }
            guard scan.tailLength == 0, scan.lineCount >= 1 else { return false }
            try encodeChanged(through: nil)
        } catch let failure as OutputFailed {
            throw failure.underlying
        } catch is CannotReuse {
            return false
        } catch is StorageError {
            // The earlier file is damaged or unreadable: the records in memory are the truth.
            return false
        }
        guard lines == records.count else { return false }
        if !chunk.isEmpty { try output(chunk) }
        return true
    }

    /// Thrown by ``write(entity:sequence:records:reusing:fileSystem:to:)`` to its caller's
    /// `replaceFile` when the earlier file cannot be used, so that the partial file is removed.
    struct CannotReuse: Error {}

    /// An error of the output, kept apart from problems with the earlier file.
    private struct OutputFailed: Error {
        let underlying: any Error
    }

    private static let idMember: [UInt8] = Array(#""id":"#.utf8)
    private static let valuesMember: [UInt8] = Array(#","values":{"#.utf8)

    /// The identifier of a canonical record line `{"$crc":"…","id":N,"values":{…}}`, or `nil` for any
    /// other shape.
    static func recordID(_ line: UnsafeBufferPointer<UInt8>) -> Int64? {
        guard line.count > LineFraming.prefixLength else { return nil }
        return recordID(members: UnsafeBufferPointer(rebasing: line[LineFraming.prefixLength...]))
    }

    /// The identifier of a record line's content after its checksum member (or after its opening brace),
    /// `"id":N,"values":{…}}`, or `nil` for any other shape.
    static func recordID(members: UnsafeBufferPointer<UInt8>) -> Int64? {
        func matches(_ expected: [UInt8], at start: Int) -> Bool {
            guard members.count >= start + expected.count else { return false }
            for k in expected.indices where members[start + k] != expected[k] { return false }
            return true
        }
        guard members.count > idMember.count + valuesMember.count + 2, matches(idMember, at: 0),
            let (value, end) = JSONDigits.unsignedInteger(in: members, from: idMember.count), value <= UInt64(Int64.max),
            // Canonical integers have no leading zero.
            members[idMember.count] != UInt8(ascii: "0") || end == idMember.count + 1,
            matches(valuesMember, at: end)
        else { return nil }
        return Int64(value)
    }
}
