/// The store's manifest, `manifest.json`: one framed line.
///
/// `{"$crc":"…","format":"folio-store","nextID":N,"schema":{"value":…},"sequence":S,"snapshotBytes":{…},"version":1}`
///
/// `sequence` is the sequence number the snapshots were last compacted at; `nextID` and `schema` are
/// their values at that sequence (journal transactions after it carry newer ones). `nextIDs`, written
/// once a block other than 0 is in use (see ``IdentifierBlocks``), holds every block's counter by the
/// block's number in decimal; `nextID` is then the highest of them. `snapshotBytes`,
/// when present, is the size of each snapshot file that compaction left: a file of another size was
/// changed since, and its header's record count is not trusted without reading the file.
/// `reconcile`, present (`true`) only in a manifest git merged from two compacted copies (see
/// ``ManifestMerge``), says the snapshot files were merged one by one: the store checks what spans
/// them when it opens (``CrossFileReconciliation``) and writes the manifest again without it.
struct Manifest: Hashable, Sendable {
    /// The on-disk format version this code writes and reads.
    static let currentVersion: Int64 = 1
    static let formatName = "folio-store"

    var version: Int64 = Manifest.currentVersion
    var sequence: UInt64 = 0
    var counters = IdentifierCounters()
    var nextID: Int64 { counters.highest }
    var schema: JSONValue? = nil
    /// The size in bytes of each entity's snapshot file when the manifest was written.
    var snapshotBytes: [String: Int64] = [:]
    /// Whether git merged the snapshot files one by one since the store last checked what spans them.
    var needsReconciliation = false

    func encoded() throws -> [UInt8] {
        var members: [String: JSONValue] = [
            "format": .string(Self.formatName), "version": .int(version), "sequence": .int(Int64(clamping: sequence)),
            "nextID": .int(nextID),
        ]
        if counters.usesBlocks {
            members["nextIDs"] = .object(
                Dictionary(uniqueKeysWithValues: counters.byBlock.map { (String($0.key), JSONValue.int($0.value)) }))
        }
        if let schema { members["schema"] = .object(["value": schema]) }
        if !snapshotBytes.isEmpty { members["snapshotBytes"] = .object(snapshotBytes.mapValues { .int($0) }) }
        if needsReconciliation { members["reconcile"] = .bool(true) }
        return try LineFraming.encode(members)
    }

    /// Decodes the manifest file's bytes. The version is checked before the checksum, so that a newer
    /// format with a different framing still gives ``StorageError/Code/newerFormatVersion``.
    static func decode(_ bytes: [UInt8], path: String) throws -> Manifest {
        var line = bytes[...]
        if line.last == 0x0A { line = line.dropLast() }
        if line.last == 0x0D { line = line.dropLast() }
        if line.contains(0x0A) {
            throw StorageError(.malformedLine, "the manifest must be a single line", file: path, line: 2)
        }
        return try [UInt8](line).withUnsafeBufferPointer { buffer in
            if LineFraming.isConflictMarker(buffer) {
                throw StorageError(.mergeConflict, "git merge-conflict marker in the manifest; resolve the conflict", file: path, line: 1)
            }
            let value: JSONValue
            do throws(StorageError) { value = try JSONReader().parse(buffer) } catch {
                throw StorageError(.invalidJSON, "manifest is not JSON: \(error.message)", file: path, line: 1, offset: error.offset)
            }
            guard case .string(formatName)? = value["format"] else {
                throw StorageError(.missingManifest, "not a Folio manifest (no \"format\":\"folio-store\")", file: path, line: 1)
            }
            guard case .int(let version)? = value["version"], version >= 1 else {
                throw StorageError(.malformedLine, "manifest \"version\" must be a positive integer", file: path, line: 1)
            }
            if version > currentVersion {
                throw StorageError(
                    .newerFormatVersion,
                    "the store has format version \(version) but this Folio reads up to \(currentVersion); upgrade Folio",
                    file: path, line: 1)
            }
            let members: [String: JSONValue]
            do { members = try LineFraming.decode(buffer) } catch var error as StorageError {
                error.file = path
                error.line = 1
                throw error
            }
            guard case .int(let sequence)? = members["sequence"], SequenceLimits.isValid(sequence, allowsZero: true) else {
                throw StorageError(
                    .malformedLine, "manifest member \"sequence\" must be an integer from 0 to 2^62-1", file: path, line: 1)
            }
            guard case .int(let nextID)? = members["nextID"], IdentifierLimits.isValidCounter(nextID) else {
                throw StorageError(.malformedLine, "manifest member \"nextID\" must be an integer from 1 to 2^62", file: path, line: 1)
            }
            var byBlock: [Int64: Int64] = [:]
            if let counters = members["nextIDs"] {
                guard case .object(let entries) = counters else {
                    throw StorageError(.malformedLine, "manifest \"nextIDs\" must be an object of counters by block", file: path, line: 1)
                }
                for (key, value) in entries {
                    guard let block = Int64(key), IdentifierBlocks.isValid(block), String(block) == key,
                        case .int(let next) = value, IdentifierLimits.isValidCounter(next),
                        IdentifierBlocks.block(of: next) == block
                            || next == (block + 1) << IdentifierBlocks.counterBits
                    else {
                        throw StorageError(
                            .malformedLine,
                            "manifest \"nextIDs\" member \"\(key)\" must map a block number (0 to 2^30-1) to an identifier in that block",
                            file: path, line: 1)
                    }
                    byBlock[block] = next
                }
            }
            var schema: JSONValue? = nil
            if let box = members["schema"] {
                guard let inner = box["value"] else {
                    throw StorageError(.malformedLine, "manifest \"schema\" must be {\"value\":…}", file: path, line: 1)
                }
                schema = inner
            }
            var snapshotBytes: [String: Int64] = [:]
            if let sizes = members["snapshotBytes"] {
                guard case .object(let byEntity) = sizes else {
                    throw StorageError(.malformedLine, "manifest \"snapshotBytes\" must be an object of sizes", file: path, line: 1)
                }
                for (entity, size) in byEntity {
                    guard case .int(let bytes) = size, bytes >= 0 else {
                        throw StorageError(.malformedLine, "manifest \"snapshotBytes\" of \(entity) must be a size in bytes", file: path, line: 1)
                    }
                    snapshotBytes[entity] = bytes
                }
            }
            var needsReconciliation = false
            if let flag = members["reconcile"] {
                guard case .bool(let value) = flag else {
                    throw StorageError(.malformedLine, "manifest \"reconcile\" must be true or false", file: path, line: 1)
                }
                needsReconciliation = value
            }
            return Manifest(
                version: version, sequence: UInt64(sequence), counters: IdentifierCounters(highest: nextID, byBlock: byBlock), schema: schema,
                snapshotBytes: snapshotBytes, needsReconciliation: needsReconciliation)
        }
    }
}
