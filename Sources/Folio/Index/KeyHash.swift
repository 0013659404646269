/// A key's hash, worked out once: the table stores it in place of the key, compares it before reading
/// any key, and rehashes this integer, not every string, when it grows.
struct KeyHash: Hashable {
    let value: Int

    /// Which hash a key gets.
    enum Hashing {
        /// The key's own hash.
        case standard
        /// Only the lowest bits of it, so that different keys share hashes: for tests of the paths
        /// that keep such keys apart, which 64-bit hashes almost never take.
        case keepingLowBits(Int)
    }

    init(_ key: QueryKey, _ hashing: Hashing) {
        switch hashing {
        case .standard: value = key.hashValue
        case .keepingLowBits(let bits): value = key.hashValue & ((1 << bits) - 1)
        }
    }

    /// The table's hash of the key: the key's own hash, worked out once, mixed with the table's seed.
    ///
    /// Without this, each probe and each move while the table grows runs the standard hasher (SipHash)
    /// over the integer again, which is most of what building a large index costs. The stored hash
    /// already comes from the standard hasher (seeded per process); the mix below is a bijection of
    /// `hash ^ seed`, so tables with different seeds still order their keys differently, as the
    /// standard library's tables rely on.
    func _rawHashValue(seed: Int) -> Int {
        var mixed = UInt64(truncatingIfNeeded: value ^ seed)
        mixed ^= mixed >> 33
        mixed &*= 0xff51_afd7_ed55_8ccd
        mixed ^= mixed >> 33
        mixed &*= 0xc4ce_b9fe_1a85_ec53
        mixed ^= mixed >> 33
        return Int(truncatingIfNeeded: mixed)
    }
}
