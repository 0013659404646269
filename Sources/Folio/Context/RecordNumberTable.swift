/// A hash table from record numbers to values: open addressing with linear probing in one array of
/// slots, at most half full, with deletion by backward shift (no tombstones). Key 0 marks an empty
/// slot, so the value of number 0 (which no store writes, but a damaged one may hold) is kept apart.
///
/// A context registers and sweeps thousands of models per fetch; `Dictionary` spends most of that on
/// SipHash. Here a number's slot is multiply-shift hashing with an odd multiplier drawn at random once
/// per process, so that numbers a hostile store chose cannot be made to collide.
struct RecordNumberTable<Value> {
    private struct Slot {
        /// The record number, or 0 for an empty slot.
        var key: Int64
        var value: Value?
    }

    private var slots: ContiguousArray<Slot>
    /// 64 minus the base-2 logarithm of the number of slots: a hash's top bits pick the slot.
    private var shift: UInt64
    private let multiplier: UInt64
    /// The value of number 0.
    private var zeroValue: Value?
    /// The number of values.
    private(set) var count = 0

    /// An empty table with room for `minimumCapacity` values before it grows.
    init(minimumCapacity: Int = 0) {
        multiplier = RecordNumberTableSeed.multiplier
        let slotCount = Self.slotCount(for: minimumCapacity)
        slots = ContiguousArray(repeating: Slot(key: 0, value: nil), count: slotCount)
        shift = UInt64(64 - slotCount.trailingZeroBitCount)
    }

    var isEmpty: Bool { count == 0 }

    /// The value of `key`, or nil; setting nil removes it.
    subscript(key: Int64) -> Value? {
        get {
            if key == 0 { return zeroValue }
            guard let slot = find(key).found else { return nil }
            return slots[slot].value
        }
        set {
            if let newValue { updateValue(newValue, forKey: key) } else { removeValue(forKey: key) }
        }
    }

    /// Sets the value of `key`; returns the value it replaced.
    @discardableResult
    mutating func updateValue(_ value: Value, forKey key: Int64) -> Value? {
        if key == 0 {
            let old = zeroValue
            zeroValue = value
            if old == nil { count += 1 }
            return old
        }
        var place = find(key)
        if let slot = place.found {
            let old = slots[slot].value
            slots[slot].value = value
            return old
        }
        if (count + 1) * 2 > slots.count {
            grow(to: slots.count * 2)
            place = find(key)
        }
        slots[place.empty] = Slot(key: key, value: value)
        count += 1
        return nil
    }

    /// Removes the value of `key`; returns it.
    @discardableResult
    mutating func removeValue(forKey key: Int64) -> Value? {
        if key == 0 {
            defer { if zeroValue != nil { zeroValue = nil; count -= 1 } }
            return zeroValue
        }
        guard let slot = find(key).found else { return nil }
        let old = slots[slot].value
        remove(at: slot)
        return old
    }

    /// Removes the value of `key` if `shouldRemove`, passed the value in place, returns true. Returns
    /// whether a value remains.
    mutating func removeValue(forKey key: Int64, where shouldRemove: (inout Value) -> Bool) -> Bool {
        if key == 0 {
            guard var value = zeroValue.take() else { return false }
            if shouldRemove(&value) { count -= 1; return false }
            zeroValue = value
            return true
        }
        guard let slot = find(key).found else { return false }
        let remove = slots.withUnsafeMutableBufferPointer { buffer -> Bool in
            guard var value = buffer[slot].value.take() else { return true }
            defer { buffer[slot].value = value }
            return shouldRemove(&value)
        }
        guard remove else { return true }
        self.remove(at: slot)
        return false
    }

    /// Makes room for `capacity` values in all without growing.
    mutating func reserveCapacity(_ capacity: Int) {
        let needed = Self.slotCount(for: capacity)
        if needed > slots.count { grow(to: needed) }
    }

    /// Calls `body` with every key and value, in no particular order.
    func forEach(_ body: (Int64, Value) throws -> Void) rethrows {
        if let zeroValue { try body(0, zeroValue) }
        for slot in slots where slot.key != 0 {
            if let value = slot.value { try body(slot.key, value) }
        }
    }

    // MARK: Machinery

    /// A power of two at least twice `capacity`, and at least 8 (at most 2⁴⁰: no registry comes near).
    private static func slotCount(for capacity: Int) -> Int {
        var slots = 8
        while slots / 2 < capacity && slots < 1 << 40 { slots *= 2 }
        return slots
    }

    private func home(of key: Int64) -> Int {
        Int(truncatingIfNeeded: (UInt64(bitPattern: key) &* multiplier) >> shift)
    }

    /// The slot holding `key`, or else the empty slot where it would go.
    private func find(_ key: Int64) -> (found: Int?, empty: Int) {
        let mask = slots.count - 1
        return slots.withUnsafeBufferPointer { buffer in
            var slot = home(of: key)
            while true {
                let stored = buffer[slot].key
                if stored == key { return (slot, slot) }
                if stored == 0 { return (nil, slot) }
                slot = (slot + 1) & mask
            }
        }
    }

    /// Empties `slot` and moves later slots of the same run back, so that every key stays reachable
    /// from its home slot without passing an empty one.
    private mutating func remove(at slot: Int) {
        let mask = slots.count - 1
        let shift = self.shift, multiplier = self.multiplier
        slots.withUnsafeMutableBufferPointer { buffer in
            var hole = slot
            var next = (slot + 1) & mask
            while buffer[next].key != 0 {
                let home = Int(truncatingIfNeeded: (UInt64(bitPattern: buffer[next].key) &* multiplier) >> shift)
                // The entry may move into the hole unless its home lies cyclically after the hole,
                // up to where it is now.
                let homeAfterHole = hole <= next ? (home > hole && home <= next) : (home > hole || home <= next)
                if !homeAfterHole {
                    buffer[hole] = buffer[next]
                    hole = next
                }
                next = (next + 1) & mask
            }
            buffer[hole] = Slot(key: 0, value: nil)
        }
        count -= 1
    }

    private mutating func grow(to slotCount: Int) {
        let old = slots
        slots = ContiguousArray(repeating: Slot(key: 0, value: nil), count: slotCount)
        shift = UInt64(64 - slotCount.trailingZeroBitCount)
        count = zeroValue == nil ? 0 : 1
        for slot in old where slot.key != 0 {
            let place = find(slot.key)
            slots[place.empty] = slot
            count += 1
        }
    }
}

/// The multiplier every ``RecordNumberTable`` of the process hashes with.
private enum RecordNumberTableSeed {
    static let multiplier: UInt64 = {
        var generator = SystemRandomNumberGenerator()
        return generator.next() | 1
    }()
}
