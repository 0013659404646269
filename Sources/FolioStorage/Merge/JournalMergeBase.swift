/// The store's state before the first transaction of a merged journal: what the manifest records
/// (the identifier counter and the schema of the last compaction).
package struct JournalMergeBase: Sendable, Hashable {
    /// The next identifier to allocate before the journal's first transaction.
    package var nextID: Int64
    /// The schema description before the journal's first transaction, if the store has one.
    package var schema: JSONValue?

    /// Creates a base from its values.
    package init(nextID: Int64 = 1, schema: JSONValue? = nil) {
        self.nextID = nextID
        self.schema = schema
    }

    /// The base a manifest's members describe (`nextID`, `schema.value`); a store without a manifest
    /// starts from identifier 1 and no schema.
    package init(manifest: [String: JSONValue]?) {
        self.init(nextID: manifest?["nextID"]?.intValue ?? 1, schema: manifest?["schema"]?.objectValue?["value"])
    }

    /// The base the manifest line `line` (without its terminator) describes, or the default base if the
    /// line cannot be read: a damaged manifest is for `StoreRepair` to report, not the merge.
    package init(manifestLine line: [UInt8]?) {
        let members = line.flatMap { line in try? line.withUnsafeBufferPointer { try LineFraming.decode($0) } }
        self.init(manifest: members)
    }
}
