/// The values of one record by property name, kept compactly: a shared ``RecordLayout`` (the sorted
/// names) and the values in that order.
///
/// It reads like a `[String: JSONValue]` (subscript by name, iteration as `(key, value)` pairs, literals)
/// but costs one small byte buffer per record (``PackedValues``) instead of a hash table, and the
/// storage engine and the model layer's index share the same buffer. Values are decoded as they are
/// read; changing one makes a new buffer, copying the other values' bytes. Iteration is in name order, which is also the order the
/// canonical writer emits.
public struct RecordValues: Hashable, Sendable, ExpressibleByDictionaryLiteral {
    /// The names of the values, shared with every record that has the same names.
    package private(set) var layout: RecordLayout
    /// The values, in ``layout`` order, packed into one buffer and decoded as they are read.
    ///
    /// A stored property: the model layer's index finds the reference to the buffer by its offset
    /// (`MemoryLayout.offset(of:)`), to bring the buffer into the cache ahead of reads.
    package private(set) var values: PackedValues

    /// No values.
    public init() {
        self.layout = .empty
        self.values = PackedValues()
    }

    /// The values of a dictionary.
    public init(_ dictionary: [String: JSONValue]) {
        let names = dictionary.keys.sorted()
        self.layout = RecordLayout.interned(sortedNames: names)
        var values = ContiguousArray<JSONValue>()
        values.reserveCapacity(names.count)
        for name in names { values.append(dictionary[name] ?? .null) }
        self.values = PackedEncoding.pack(values)
    }

    /// Values in the order of `layout`'s names; the callers make one value per name. Others build records
    /// from a dictionary or from ``init(names:values:)``, which check what they get.
    package init(layout: RecordLayout, values: ContiguousArray<JSONValue>) {
        assert(layout.names.count == values.count, "a record needs one value per name of its layout")
        self.layout = layout
        self.values = PackedEncoding.pack(values)
    }

    /// Packed values in the order of `layout`'s names, one per name.
    init(layout: RecordLayout, packed: PackedValues) {
        assert(layout.names.count == packed.count, "a record needs one value per name of its layout")
        self.layout = layout
        self.values = packed
    }

    /// The values of `layout`'s names copied from slots of other records, without decoding them:
    /// `sources(k)` names the record and slot of the `k`th value, or a value to encode.
    init(layout: RecordLayout, gathering sources: (Int) -> Source) {
        self.layout = layout
        self.values = PackedEncoding.pack(
            slotCount: layout.names.count,
            sizeOfSlot: { slot in
                switch sources(slot) {
                case .slot(let record, let source): return record.values.byteRange(ofSlot: source)?.count ?? 1
                case .value(let value): return PackedEncoding.size(of: value)
                }
            },
            writeSlot: { slot, writer in
                switch sources(slot) {
                case .slot(let record, let source):
                    record.values.withSlotBytes(source) { bytes in
                        if bytes.isEmpty { writer.append(PackedEncoding.null) } else { writer.append(bytes) }
                    }
                case .value(let value): PackedEncoding.append(value, into: &writer)
                }
            })
    }

    /// Where a gathered value comes from.
    enum Source {
        /// A slot of a record, copied as bytes.
        case slot(RecordValues, Int)
        /// A value, encoded.
        case value(JSONValue)
    }

    /// These values moved into `layout`: its `k`th value is this record's slot `sources[k]`. The bytes of
    /// each value are copied, not decoded.
    package func rearranged(into layout: RecordLayout, sources: [Int]) -> RecordValues {
        assert(layout.names.count == sources.count, "a record needs one value per name of its layout")
        return RecordValues(layout: layout) { .slot(self, sources[$0]) }
    }

    /// Values from name–value pairs in any order; nil if a name repeats or the counts differ.
    public init?(names: [String], values unordered: ContiguousArray<JSONValue>) {
        guard names.count == unordered.count else { return nil }
        var sorted = true
        for index in names.indices.dropFirst() where !(names[index - 1] < names[index]) {
            sorted = false
            break
        }
        if sorted {
            self.layout = RecordLayout.interned(sortedNames: names)
            self.values = PackedEncoding.pack(unordered)
            return
        }
        guard let (layout, order) = RecordLayout.interned(unsortedNames: names) else { return nil }
        self.layout = layout
        self.values = PackedEncoding.pack(
            slotCount: order.count, sizeOfSlot: { PackedEncoding.size(of: unordered[order[$0]]) },
            writeSlot: { PackedEncoding.append(unordered[order[$0]], into: &$1) })
    }

    /// Values from name–value pairs in any order, the values already packed one after the other in
    /// `data` (the value of `members[k].key` ends at `members[k].end`); nil if a name repeats or the
    /// ends do not divide `data`. The values' bytes are copied into the record's buffer in name order.
    package init?(members: [(key: String, end: Int)], packedSlots data: UnsafeBufferPointer<UInt8>) {
        var previous = 0
        for member in members {
            guard member.end >= previous, member.end <= data.count else { return nil }
            previous = member.end
        }
        guard previous == data.count else { return nil }
        let names = members.map(\.key)
        var sorted = true
        for index in names.indices.dropFirst() where !(names[index - 1] < names[index]) {
            sorted = false
            break
        }
        let layout: RecordLayout
        let order: [Int]?
        if sorted {
            layout = RecordLayout.interned(sortedNames: names)
            order = nil
        } else {
            guard let (unsortedLayout, unsortedOrder) = RecordLayout.interned(unsortedNames: names) else { return nil }
            layout = unsortedLayout
            order = unsortedOrder
        }
        self.layout = layout
        self.values = PackedEncoding.pack(slotCount: members.count, dataSize: data.count) { slot, writer in
            let source = order?[slot] ?? slot
            let start = source == 0 ? 0 : members[source - 1].end
            writer.append(UnsafeBufferPointer(rebasing: data[start..<members[source].end]))
        }
    }

    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        var dictionary: [String: JSONValue] = [:]
        for (name, value) in elements { dictionary[name] = value }
        self.init(dictionary)
    }

    /// The number of values.
    public var count: Int { layout.names.count }

    /// Whether there are no values.
    public var isEmpty: Bool { layout.names.isEmpty }

    /// The names, sorted.
    public var keys: [String] { layout.names }

    /// The value of slot `slot` (the position of its name in ``layout``), decoded; `.null` if there is no
    /// such slot.
    public func value(atSlot slot: Int) -> JSONValue {
        values.value(atSlot: slot)
    }

    /// The values as a dictionary.
    public var dictionary: [String: JSONValue] {
        var result: [String: JSONValue] = [:]
        result.reserveCapacity(count)
        for (index, name) in layout.names.enumerated() { result[name] = values.value(atSlot: index) }
        return result
    }

    /// The value of `name`, if the record has one. Setting `nil` removes the name.
    public subscript(name: String) -> JSONValue? {
        get {
            guard let slot = layout.slot(of: name) else { return nil }
            return values.value(atSlot: slot)
        }
        set {
            let old = self
            if let slot = layout.slot(of: name) {
                if let newValue {
                    self = RecordValues(layout: layout) { $0 == slot ? .value(newValue) : .slot(old, $0) }
                } else {
                    var names = layout.names
                    names.remove(at: slot)
                    self = RecordValues(layout: RecordLayout.interned(sortedNames: names)) { .slot(old, $0 < slot ? $0 : $0 + 1) }
                }
            } else if let newValue {
                var names = layout.names
                let position = names.firstIndex { name < $0 } ?? names.count
                names.insert(name, at: position)
                self = RecordValues(layout: RecordLayout.interned(sortedNames: names)) {
                    $0 == position ? .value(newValue) : .slot(old, $0 < position ? $0 : $0 - 1)
                }
            }
        }
    }

    /// Whether `name` has equal values here and in `other`, or neither has it: equal bytes, or equal
    /// decoded values (as ``==`` compares them), so that an unchanged value is not decoded.
    package func hasEqualValue(for name: String, in other: RecordValues) -> Bool {
        let slot = layout.slot(of: name)
        let otherSlot = other.layout === layout ? slot : other.layout.slot(of: name)
        guard let slot, let otherSlot else { return slot == nil && otherSlot == nil }
        return values.slotEquals(slot, other.values, otherSlot)
    }

    /// These values with `changes` applied: their names added or replaced.
    public func merging(_ changes: RecordValues) -> RecordValues {
        if changes.layout === layout || isEmpty { return changes }
        if changes.isEmpty { return self }
        // An update mostly sets names the values have already: those values are replaced in place and the
        // layout kept, without comparing the names in order (a `String` comparison each) or making a list.
        // Each slot says where its value comes from: `k >= 0` is this record's slot `k`, `~k` the changes'.
        if changes.layout.names.count <= layout.names.count {
            var sources = Array(layout.names.indices)
            var hasEveryName = true
            for (position, name) in changes.layout.names.enumerated() {
                guard let slot = layout.slot(of: name) else {
                    hasEveryName = false
                    break
                }
                sources[slot] = ~position
            }
            if hasEveryName { return gathered(layout, sources, changes) }
        }
        // Both name lists are sorted: merge them in one pass.
        let names = layout.names, changedNames = changes.layout.names
        var mergedNames: [String] = []
        var sources: [Int] = []
        mergedNames.reserveCapacity(names.count + changedNames.count)
        sources.reserveCapacity(names.count + changedNames.count)
        var i = 0, j = 0
        while i < names.count || j < changedNames.count {
            if j == changedNames.count || (i < names.count && names[i] < changedNames[j]) {
                mergedNames.append(names[i])
                sources.append(i)
                i += 1
            } else {
                if i < names.count && names[i] == changedNames[j] { i += 1 }
                mergedNames.append(changedNames[j])
                sources.append(~j)
                j += 1
            }
        }
        let mergedLayout = mergedNames.count == names.count ? layout : RecordLayout.interned(sortedNames: mergedNames)
        return gathered(mergedLayout, sources, changes)
    }

    /// A record of `layout` whose slot `k` is this record's slot `sources[k]`, or the changes' slot
    /// `~sources[k]` where that is negative.
    private func gathered(_ layout: RecordLayout, _ sources: [Int], _ changes: RecordValues) -> RecordValues {
        // Both buffers are read in place for the whole copy: a `Source` per slot would retain them.
        values.bytes.withUnsafeBufferPointer { mine in
            changes.values.bytes.withUnsafeBufferPointer { theirs in
                func bytes(ofSlot slot: Int) -> UnsafeBufferPointer<UInt8> {
                    let source = sources[slot]
                    let buffer = source >= 0 ? mine : theirs
                    let range = PackedReader.range(ofSlot: source >= 0 ? source : ~source, in: buffer) ?? 0..<0
                    return UnsafeBufferPointer(rebasing: buffer[range])
                }
                // A slot a broken buffer lacks is written as null, one byte.
                let packed = PackedEncoding.pack(
                    slotCount: layout.names.count,
                    sizeOfSlot: { Swift.max(1, bytes(ofSlot: $0).count) },
                    writeSlot: { slot, writer in
                        let value = bytes(ofSlot: slot)
                        if value.isEmpty { writer.append(PackedEncoding.null) } else { writer.append(value) }
                    })
                return RecordValues(layout: layout, packed: packed)
            }
        }
    }

    /// The values whose names satisfy `isIncluded`.
    public func filter(_ isIncluded: (String) throws -> Bool) rethrows -> RecordValues {
        var names: [String] = []
        var kept: [Int] = []
        for (index, name) in layout.names.enumerated() where try isIncluded(name) {
            names.append(name)
            kept.append(index)
        }
        if names.count == layout.names.count { return self }
        return rearranged(into: RecordLayout.interned(sortedNames: names), sources: kept)
    }

    /// Equal names and values. Values with equal bytes are equal; others are compared decoded, as
    /// `JSONValue` compares them (`0.0 == -0.0`, canonically equivalent strings are equal). A NaN, which
    /// stored values never hold, is equal to itself here, unlike `JSONValue`'s `==`.
    public static func == (lhs: RecordValues, rhs: RecordValues) -> Bool {
        guard lhs.layout === rhs.layout || lhs.layout.names == rhs.layout.names else { return false }
        if lhs.values.bytes == rhs.values.bytes { return true }
        for slot in lhs.layout.names.indices where !lhs.values.slotEquals(slot, rhs.values, slot) { return false }
        return true
    }

    /// Hashes the names and the decoded values, which equal records agree on whatever their bytes.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(layout.names)
        for slot in layout.names.indices { hasher.combine(values.value(atSlot: slot)) }
    }
}

extension RecordValues: Sequence {
    /// Name–value pairs in name order.
    public struct Iterator: IteratorProtocol {
        let record: RecordValues
        var index = 0

        public mutating func next() -> (key: String, value: JSONValue)? {
            guard index < record.layout.names.count else { return nil }
            defer { index += 1 }
            return (record.layout.names[index], record.values.value(atSlot: index))
        }
    }

    public func makeIterator() -> Iterator { Iterator(record: self) }

    public var underestimatedCount: Int { count }
}

extension RecordValues: CustomStringConvertible {
    public var description: String { dictionary.description }
}
