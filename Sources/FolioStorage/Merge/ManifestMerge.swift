/// A three-way merge of `manifest.json`, which git calls for when both sides compacted.
///
/// Every member merges on its own: the compaction point is the base's plus what each side compacted
/// (`ours + theirs − base`, the point ``JournalThreeWayMerge`` gives the journal's mark); each block's
/// identifier counter is the larger of the sides'; the schema and each snapshot size are taken from the
/// side that changed them. A snapshot size both sides changed is left out, since git merges that
/// snapshot too: the loader then reads the file instead of trusting its header's count. Both sides
/// changing the schema differently is refused. The merged manifest is marked
/// (``Manifest/needsReconciliation``): git merges each snapshot file without seeing the others, so the
/// store mends what spans them when it next opens (``CrossFileReconciliation``).
package enum ManifestMerge {
    /// Merges the bytes of three manifests into the bytes of one.
    package static func merge(base: [UInt8], ours: [UInt8], theirs: [UInt8]) throws(JournalThreeWayMerge.Refusal) -> [UInt8] {
        func decode(_ bytes: [UInt8], _ name: String) throws(JournalThreeWayMerge.Refusal) -> Manifest {
            do { return try Manifest.decode(bytes, path: name) } catch let error as StorageError {
                throw JournalThreeWayMerge.Refusal(message: "not a Folio manifest: \(error.message)", file: name, line: error.line)
            } catch {
                throw JournalThreeWayMerge.Refusal(message: "not a Folio manifest: \(error)", file: name, line: 1)
            }
        }
        // A manifest added on both sides has an empty base: a store that was never compacted.
        let o = base.isEmpty ? Manifest() : try decode(base, "base")
        let a = try decode(ours, "ours"), b = try decode(theirs, "theirs")
        guard a.sequence >= o.sequence, b.sequence >= o.sequence else {
            throw JournalThreeWayMerge.Refusal(message: "a side's manifest is older than the merge base's: the files are not one store's history")
        }
        let (sum, overflow) = a.sequence.addingReportingOverflow(b.sequence)
        guard !overflow, sum - o.sequence <= SequenceLimits.maximum else {
            throw JournalThreeWayMerge.Refusal(message: "the merged compaction point is past the largest sequence number")
        }
        var merged = Manifest()
        merged.version = max(a.version, b.version)
        merged.sequence = sum - o.sequence
        merged.needsReconciliation = true
        var byBlock = a.counters.byBlock
        for (block, next) in b.counters.byBlock { byBlock[block] = max(byBlock[block] ?? 0, next) }
        merged.counters = IdentifierCounters(highest: max(a.nextID, b.nextID), byBlock: byBlock)
        merged.schema = try pick(o.schema, a.schema, b.schema) {
            "both sides changed the store's schema differently: migrate once, after merging"
        }
        for entity in Set(a.snapshotBytes.keys).union(b.snapshotBytes.keys) {
            let (was, ours, theirs) = (o.snapshotBytes[entity], a.snapshotBytes[entity], b.snapshotBytes[entity])
            if ours == theirs {
                merged.snapshotBytes[entity] = ours
            } else if ours == was {
                merged.snapshotBytes[entity] = theirs
            } else if theirs == was {
                merged.snapshotBytes[entity] = ours
            }
        }
        do { return try merged.encoded() } catch {
            throw JournalThreeWayMerge.Refusal(message: "the merged manifest cannot be written: \(error)")
        }
    }

    /// The three-way choice for one value: equal sides, else the side that changed it.
    static func pick<Value: Equatable>(_ base: Value, _ ours: Value, _ theirs: Value, conflict: () -> String)
        throws(JournalThreeWayMerge.Refusal) -> Value
    {
        if ours == theirs || theirs == base { return ours }
        if ours == base { return theirs }
        throw JournalThreeWayMerge.Refusal(message: conflict())
    }
}
