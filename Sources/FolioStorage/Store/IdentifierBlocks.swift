/// How record identifiers are split into allocation blocks, so that copies of one store (clones of a git
/// repository) that insert records independently never hand out the same identifier.
///
/// An identifier is `block << 32 | counter`: the top 30 of its 62 bits name the block, the low 32 count
/// within it (from 1). Block 0 is the one every store used before blocks existed: its identifiers are
/// 1, 2, 3, …, exactly as before. A copy that allocates per clone takes a random block of its own
/// (``IdentifierBlockFile``), so two clones collide only if they draw the same one of 2^30 − 1 blocks.
enum IdentifierBlocks {
    /// The bits of an identifier that count within its block.
    static let counterBits: Int64 = 32
    /// The number of blocks: identifiers stay within 1…2^62 − 1.
    static let blockCount: Int64 = 1 << 30

    /// The block an identifier (or a counter: the next identifier to hand out) lies in.
    static func block(of id: Int64) -> Int64 { id >> counterBits }

    /// The first identifier of a block, which a block nobody has used starts at.
    static func first(in block: Int64) -> Int64 { block << counterBits | 1 }

    /// Whether `next`, a counter of `block`, has run past the block's last identifier.
    static func isExhausted(_ next: Int64, in block: Int64) -> Bool { next > block << counterBits | 0xFFFF_FFFF }

    /// Whether `block` can be allocated from.
    static func isValid(_ block: Int64) -> Bool { block >= 0 && block < blockCount }
}

/// The next identifier of every allocation block a store's records and transactions have used.
///
/// `highest` is the largest counter of all (the manifest's and the journal's `nextID`, as stores before
/// blocks wrote it); `byBlock` holds each block's own counter, so that a clone allocating in a block
/// below the highest never reuses an identifier of its own block, even one whose record was deleted
/// and compacted away. `byBlock[block(of: highest)] == highest` always holds.
struct IdentifierCounters: Hashable, Sendable {
    private(set) var highest: Int64 = 1
    private(set) var byBlock: [Int64: Int64] = [:]

    init() {}

    /// Counters as a manifest records them: its `nextID` and its `nextIDs` by block.
    init(highest: Int64, byBlock: [Int64: Int64]) {
        self.byBlock = byBlock
        note(highest)
    }

    /// The next identifier to allocate in `block`.
    func next(in block: Int64) -> Int64 {
        byBlock[block] ?? (block == IdentifierBlocks.block(of: highest) ? highest : IdentifierBlocks.first(in: block))
    }

    /// Records that identifiers below `next` in its block are used.
    mutating func note(_ next: Int64) {
        let block = IdentifierBlocks.block(of: next)
        if next <= highest && block == IdentifierBlocks.block(of: highest) { return }
        if next > highest { highest = next }
        if next > byBlock[block] ?? 0 { byBlock[block] = next }
        // The invariant: the highest counter's block has its entry, even for counters noted before.
        let top = IdentifierBlocks.block(of: highest)
        if byBlock[top] ?? 0 < highest { byBlock[top] = highest }
    }

    /// Whether any block but 0 is in use (a manifest then records `nextIDs`; older stores never do).
    var usesBlocks: Bool { byBlock.keys.contains { $0 != 0 } }
}
