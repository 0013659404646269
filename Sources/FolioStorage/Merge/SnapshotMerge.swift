import Foundation

/// A three-way merge of one `snapshots/ENTITY.jsonl`, which git calls for when both sides compacted.
///
/// The three files are sorted by identifier, so the merge walks them together, record by record: a
/// record one side left as the base had it takes the other side's line, as it is; records both sides
/// changed combine attribute by attribute, each attribute taken from the side that changed it.
///
/// Snapshots keep no time per record, so where both sides changed one attribute to different values
/// the side whose header has the later sequence wins (the side that saved more transactions since the
/// base), and on equal sequences the value whose canonical JSON sorts last: the same winner whichever
/// side is ours. A to-many relationship both sides changed (known from `schema`, the store's schema
/// description) is merged as a set instead: what either side added is kept, what either removed is
/// gone, and nothing is lost. A record one side deleted and the other changed stays deleted, as in the
/// journal merge. A record both sides hold that the base lacks (the base's journal inserted it) combines
/// against an empty base. The values not kept are recorded in the merged header's `conflicts`, beside those
/// both sides' headers already listed (one a side cleared is gone), and ``Store/conflicts()`` lists
/// them. The header is written anew: the record count, the later of the two sides' sequences and the
/// conflicts.
///
/// Inverses, references to deleted records and unique values span snapshot files, which this file's
/// merge cannot see: the merged manifest asks the store to mend them when it opens
/// (``CrossFileReconciliation``).
package enum SnapshotMerge {
    package typealias Refusal = JournalThreeWayMerge.Refusal

    /// One version of the file: its header and where its record lines are, in identifier order.
    struct Version {
        var entity: String
        var sequence: UInt64
        var conflicts: [MergeConflict] = []
        var records: [(id: Int64, line: Range<Int>)]
    }

    /// Merges the bytes of three versions of one entity's snapshot into the bytes of one.
    package static func merge(base: [UInt8], ours: [UInt8], theirs: [UInt8], schema: MergeSchema? = nil) throws(Refusal) -> [UInt8] {
        var output: [UInt8] = []
        try merge(base: base, ours: ours, theirs: theirs, schema: schema) { output.append(contentsOf: $0) }
        return output
    }

    /// Merges three versions of one entity's snapshot, handing the merged file to `write` in pieces of
    /// about ``SnapshotFile/chunkSize``, so that a large snapshot is never built whole in memory.
    ///
    /// - Returns: how many values this merge did not keep (recorded in the merged header).
    @discardableResult
    package static func merge(
        base: [UInt8], ours: [UInt8], theirs: [UInt8], schema: MergeSchema? = nil,
        write: (UnsafeBufferPointer<UInt8>) throws -> Void
    ) throws(Refusal) -> Int {
        // Lines are found, checked and copied in place, none decoded unless both sides changed it.
        let outcome: Result<Int, Refusal> = base.withUnsafeBufferPointer { o in
            ours.withUnsafeBufferPointer { a in
                theirs.withUnsafeBufferPointer { b in
                    do throws(Refusal) { return .success(try merge(o, a, b, schema: schema, write: write)) } catch { return .failure(error) }
                }
            }
        }
        return try outcome.get()
    }

    /// Where a merged record line comes from: a line of one of the three files, or one combined anew.
    enum Source {
        case line(file: Int, range: Range<Int>)
        case combined([UInt8])
    }

    private static func merge(
        _ oBytes: UnsafeBufferPointer<UInt8>, _ aBytes: UnsafeBufferPointer<UInt8>,
        _ bBytes: UnsafeBufferPointer<UInt8>, schema: MergeSchema?,
        write: (UnsafeBufferPointer<UInt8>) throws -> Void
    ) throws(Refusal) -> Int {
        let a = try read(aBytes, name: "ours"), b = try read(bBytes, name: "theirs")
        // A snapshot added on both sides has an empty base.
        let o = oBytes.isEmpty ? Version(entity: a.entity, sequence: 0, records: []) : try read(oBytes, name: "base")
        guard a.entity == b.entity, o.entity == a.entity else {
            throw Refusal(message: "the three versions are snapshots of different entities (\(o.entity), \(a.entity), \(b.entity))")
        }
        let files = [oBytes, aBytes, bBytes]
        // First the decision for every record, then the file: its header needs the count and conflicts.
        var merged: [Source] = []
        var conflicts: [MergeConflict] = []
        let oursWins = SnapshotMerge.oursWins(sequences: (a.sequence, b.sequence))
        let toMany = Set(schema?.relationships(of: a.entity).filter { schema?.relationship($0, of: a.entity)?.isToMany == true } ?? [])
        merged.reserveCapacity(max(a.records.count, b.records.count))
        var (io, ia, ib) = (0, 0, 0)
        let writer = CanonicalJSONWriter()
        func same(_ x: (file: Int, range: Range<Int>)?, _ y: (file: Int, range: Range<Int>)?) -> Bool {
            guard let x, let y else { return x == nil && y == nil }
            guard x.range.count == y.range.count else { return false }
            guard let p = files[x.file].baseAddress, let q = files[y.file].baseAddress else { return true }
            return memcmp(p + x.range.lowerBound, q + y.range.lowerBound, x.range.count) == 0
        }
        func bytes(_ line: (file: Int, range: Range<Int>)?) -> [UInt8]? {
            line.map { Array(files[$0.file][$0.range]) }
        }
        while io < o.records.count || ia < a.records.count || ib < b.records.count {
            var id = Int64.max
            if io < o.records.count { id = min(id, o.records[io].id) }
            if ia < a.records.count { id = min(id, a.records[ia].id) }
            if ib < b.records.count { id = min(id, b.records[ib].id) }
            func take(_ version: Version, _ file: Int, _ index: inout Int) -> (file: Int, range: Range<Int>)? {
                guard index < version.records.count, version.records[index].id == id else { return nil }
                defer { index += 1 }
                return (file, version.records[index].line)
            }
            let was = take(o, 0, &io), ours = take(a, 1, &ia), theirs = take(b, 2, &ib)
            if same(ours, theirs) || same(theirs, was) {
                if let ours { merged.append(.line(file: ours.file, range: ours.range)) }
            } else if same(ours, was) {
                if let theirs { merged.append(.line(file: theirs.file, range: theirs.range)) }
            } else {
                let combined = try combine(
                    entity: a.entity, id: id, was: bytes(was), ours: bytes(ours), theirs: bytes(theirs),
                    oursWins: oursWins, toMany: toMany, writer: writer)
                if let line = combined.line { merged.append(.combined(line)) }
                conflicts += combined.conflicts
            }
        }
        var chunk: [UInt8]
        let resolved = conflicts.count
        conflicts = Self.mergedConflicts(base: o.conflicts, ours: a.conflicts, theirs: b.conflicts, new: conflicts)
        do {
            chunk = try SnapshotFile.header(entity: a.entity, sequence: max(a.sequence, b.sequence), count: merged.count, conflicts: conflicts)
        } catch {
            throw Refusal(message: "the merged snapshot's header cannot be written: \(error)")
        }
        chunk.reserveCapacity(SnapshotFile.chunkSize + 4096)
        do {
            for source in merged {
                switch source {
                case .line(let file, let range): chunk.append(contentsOf: UnsafeBufferPointer(rebasing: files[file][range]))
                case .combined(let line): chunk.append(contentsOf: line)
                }
                chunk.append(0x0A)
                if chunk.count >= SnapshotFile.chunkSize {
                    try chunk.withUnsafeBufferPointer(write)
                    chunk.removeAll(keepingCapacity: true)
                }
            }
            try chunk.withUnsafeBufferPointer(write)
        } catch {
            throw Refusal(message: "the merged snapshot cannot be written: \(error)")
        }
        return resolved
    }

    /// Whether ours wins where both sides changed one attribute, decided from the headers alone (a
    /// tie is decided per value, by ``wins(_:over:)``).
    static func oursWins(sequences: (ours: UInt64, theirs: UInt64)) -> Bool? {
        sequences.ours == sequences.theirs ? nil : sequences.ours > sequences.theirs
    }

    /// Whether `value` wins over `other` on equal header sequences: the one whose canonical JSON sorts
    /// last, so that the choice does not depend on which side is ours.
    static func wins(_ value: JSONValue?, over other: JSONValue?) -> Bool {
        let writer = CanonicalJSONWriter()
        let encoded = value.flatMap { try? writer.string($0) } ?? "", otherEncoded = other.flatMap { try? writer.string($0) } ?? ""
        return otherEncoded.utf8.lexicographicallyPrecedes(encoded.utf8)
    }

    /// The line of a record both sides changed (nil: it stays deleted), their changes combined attribute
    /// by attribute, and the values not kept.
    static func combine(
        entity: String, id: Int64, was: [UInt8]?, ours: [UInt8]?, theirs: [UInt8]?, oursWins: Bool?,
        toMany: Set<String> = [], writer: CanonicalJSONWriter
    ) throws(Refusal) -> (line: [UInt8]?, conflicts: [MergeConflict]) {
        let o = try was.map { line throws(Refusal) in try values(line) }
        guard let oursLine = ours, let theirsLine = theirs else {
            // One side deleted the record and the other changed it: the delete stands, and every value
            // the other side changed is lost.
            guard let o, let changedLine = ours ?? theirs else {
                throw Refusal(message: "\(entity) \(id) is in none of the three versions")
            }
            let changed = try values(changedLine)
            let lost = changed.filter { o[$0.key] != $0.value }.sorted { $0.key < $1.key }
            return (nil, lost.map { MergeConflict(entity: entity, id: id, member: $0.key, kept: nil, lost: $0.value, lostTransaction: "") })
        }
        let a = try values(oursLine), b = try values(theirsLine)
        if o == nil && a == b { return (oursLine, []) }
        // A record both sides hold that the base's snapshot lacks was inserted in the base's journal and
        // folded by both: its values combine against an empty base here, and the store replays that
        // journal over them when it opens (``BaseJournalReplay``).
        let base = o ?? [:]
        var combined = base
        var conflicts: [MergeConflict] = []
        for member in Set(a.keys).union(b.keys).union(base.keys).sorted() {
            let (was, ours, theirs) = (base[member], a[member], b[member])
            if ours == theirs || theirs == was {
                combined[member] = ours
            } else if ours == was {
                combined[member] = theirs
            } else {
                let takeOurs = oursWins ?? wins(ours, over: theirs)
                let (kept, lost) = takeOurs ? (ours, theirs) : (theirs, ours)
                if toMany.contains(member), let merged = mergedMembers(was: was, kept: kept, other: lost) {
                    combined[member] = merged
                    continue
                }
                combined[member] = kept
                conflicts.append(MergeConflict(entity: entity, id: id, member: member, kept: kept ?? .null, lost: lost ?? .null, lostTransaction: ""))
            }
        }
        var line: [UInt8] = []
        do { try SnapshotFile.appendRecordLine(id: id, values: RecordValues(combined), with: writer, to: &line) } catch {
            throw Refusal(message: "the merged record \(entity) \(id) cannot be written: \(error)")
        }
        return (Array(line.dropLast()), conflicts)
    }

    /// A to-many relationship both sides changed, merged as a set: the members both lists hold, and those
    /// either side added since the base, in the order of `kept` (the winning side's list), then the
    /// other's additions in theirs; nil when a value is not a list of identifiers.
    static func mergedMembers(was: JSONValue?, kept: JSONValue?, other: JSONValue?) -> JSONValue? {
        func identifiers(_ value: JSONValue?) -> [Int64]? {
            guard let value else { return [] }
            guard case .array(let items) = value else { return value == .null ? [] : nil }
            let ids = items.compactMap(\.intValue)
            return ids.count == items.count ? ids : nil
        }
        guard let base = identifiers(was).map(Set.init), let first = identifiers(kept), let second = identifiers(other) else { return nil }
        let firstSet = Set(first), secondSet = Set(second)
        var seen = Set<Int64>()
        let merged = (first + second).filter { member in
            let stays = (firstSet.contains(member) && secondSet.contains(member)) || !base.contains(member)
            return stays && seen.insert(member).inserted
        }
        return .array(merged.map { .int($0) })
    }

    /// The conflicts of the merged header: those either side added since the base, those both kept,
    /// and the merge's own, in identifier and member order.
    static func mergedConflicts(base: [MergeConflict], ours: [MergeConflict], theirs: [MergeConflict], new: [MergeConflict]) -> [MergeConflict] {
        let o = Set(base), a = Set(ours), b = Set(theirs)
        let kept = a.intersection(b).union(a.subtracting(o)).union(b.subtracting(o)).union(new)
        let writer = CanonicalJSONWriter()
        func key(_ conflict: MergeConflict) -> String { (try? writer.string(conflict.jsonValue())) ?? "" }
        return kept.sorted { ($0.id, $0.member, key($0)) < ($1.id, $1.member, key($1)) }
    }

    static func describe(_ value: JSONValue?) -> String {
        guard let value else { return "nothing" }
        return (try? CanonicalJSONWriter().string(value)) ?? "a value"
    }

    /// A record line's values.
    static func values(_ line: [UInt8]) throws(Refusal) -> [String: JSONValue] {
        do {
            return try line.withUnsafeBufferPointer { try SnapshotFile.decodeRecord(LineFraming.decode($0)).1.dictionary }
        } catch {
            throw Refusal(message: "a record line cannot be read: \(error)")
        }
    }

    /// Reads one version: every line's checksum verified, records in ascending identifier order.
    static func read(_ bytes: UnsafeBufferPointer<UInt8>, name: String) throws(Refusal) -> Version {
        var header: SnapshotFile.Header? = nil
        var records: [(id: Int64, line: Range<Int>)] = []
        var start = 0
        var number = 0
        guard let base = bytes.baseAddress else { throw Refusal(message: "not a Folio snapshot: the file is empty", file: name, line: 1) }
        while start < bytes.count, let newline = memchr(base + start, 0x0A, bytes.count - start) {
            let end = base.distance(to: newline.assumingMemoryBound(to: UInt8.self))
            number += 1
            var range = start..<end
            start = end + 1
            if !range.isEmpty && bytes[range.upperBound - 1] == 0x0D { range = range.lowerBound..<(range.upperBound - 1) }
            let line = UnsafeBufferPointer(rebasing: bytes[range])
            do {
                if LineFraming.isConflictMarker(line) {
                    throw StorageError(.mergeConflict, "a git conflict marker: the file was merged as text before")
                }
                guard header != nil else {
                    let decoded = try SnapshotFile.decodeHeader(LineFraming.decode(line))
                    header = decoded
                    records.reserveCapacity(min(decoded.records, bytes.count / SnapshotFile.shortestRecordLineBytes))
                    continue
                }
                // A canonical record line is checked (its checksum) but not parsed: most lines are
                // copied as they are. The loader reads every one when the store opens.
                try LineFraming.verify(line)
                let id = try canonicalRecordID(line) ?? SnapshotFile.decodeRecord(LineFraming.decode(line)).0
                guard IdentifierLimits.isValid(id), id > records.last?.id ?? 0 else {
                    throw StorageError(.inconsistentStore, "record \(id) is out of order or out of range")
                }
                records.append((id, range))
            } catch let error as StorageError {
                throw Refusal(message: "not a Folio snapshot line: \(error.message)", file: name, line: number)
            } catch {
                throw Refusal(message: "not a Folio snapshot line: \(error)", file: name, line: number)
            }
        }
        guard let header else { throw Refusal(message: "not a Folio snapshot: it has no header line", file: name, line: 1) }
        guard header.records == records.count else {
            throw Refusal(message: "the header counts \(header.records) records but the file has \(records.count)", file: name, line: 1)
        }
        return Version(entity: header.entity, sequence: header.sequence, conflicts: header.conflicts, records: records)
    }
}

/// The identifier of a record line in canonical form, `{"$crc":"…","id":N,"values":{…}}`; nil for a
/// line of another shape, which is then decoded in full.
func canonicalRecordID(_ line: UnsafeBufferPointer<UInt8>) -> Int64? {
    let opening = Array(#","id":"#.utf8), values = Array(#","values":{"#.utf8)
    var index = LineFraming.prefixLength - 1
    guard line.count > index + opening.count + values.count + 2,
        opening.indices.allSatisfy({ line[index + $0] == opening[$0] })
    else { return nil }
    index += opening.count
    // At most 18 digits, which cannot overflow; a longer identifier is decoded in full.
    var id: Int64 = 0
    let digitsStart = index
    while index < line.count, line[index] >= UInt8(ascii: "0"), line[index] <= UInt8(ascii: "9"), index - digitsStart < 18 {
        id = id * 10 + Int64(line[index] - UInt8(ascii: "0"))
        index += 1
    }
    guard index > digitsStart, line[digitsStart] != UInt8(ascii: "0"), index + values.count <= line.count,
        values.indices.allSatisfy({ line[index + $0] == values[$0] }), line[line.count - 1] == UInt8(ascii: "}")
    else { return nil }
    return id
}
