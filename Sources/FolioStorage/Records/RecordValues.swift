/// The values of one record by property name, kept compactly: a shared ``RecordLayout`` (the sorted
/// names) and the values in that order.
///
/// It reads like a `[String: JSONValue]` (subscript by name, iteration as `(key, value)` pairs, literals)
/// but costs one small array per record instead of a hash table, and the storage engine and the model
/// layer's index share the same array. Iteration is in name order, which is also the order the
/// canonical writer emits.
public struct RecordValues: Hashable, Sendable, ExpressibleByDictionaryLiteral {
    /// The names of the values, shared with every record that has the same names.
    public private(set) var layout: RecordLayout
    /// The values, in ``layout`` order.
    public private(set) var values: ContiguousArray<JSONValue>

    /// No values.
    public init() {
        self.layout = .empty
        self.values = []
    }

    /// The values of a dictionary.
    public init(_ dictionary: [String: JSONValue]) {
        let names = dictionary.keys.sorted()
        self.layout = RecordLayout.interned(sortedNames: names)
        var values = ContiguousArray<JSONValue>()
        values.reserveCapacity(names.count)
        for name in names { values.append(dictionary[name] ?? .null) }
        self.values = values
    }

    /// Values in the order of `layout`'s names; the callers (merging, filtering) make one value per name.
    /// Others build records from a dictionary or from ``init(names:values:)``, which check what they get.
    init(layout: RecordLayout, values: ContiguousArray<JSONValue>) {
        assert(layout.names.count == values.count, "a record needs one value per name of its layout")
        self.layout = layout
        self.values = values
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
            // Records live long: keep no spare capacity.
            self.values = unordered.capacity > unordered.count ? unordered.withUnsafeBufferPointer { ContiguousArray($0) } : unordered
            return
        }
        guard let (layout, order) = RecordLayout.interned(unsortedNames: names) else { return nil }
        self.layout = layout
        self.values = ContiguousArray(order.map { unordered[$0] })
    }

    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        var dictionary: [String: JSONValue] = [:]
        for (name, value) in elements { dictionary[name] = value }
        self.init(dictionary)
    }

    /// The number of values.
    public var count: Int { values.count }

    /// Whether there are no values.
    public var isEmpty: Bool { values.isEmpty }

    /// The names, sorted.
    public var keys: [String] { layout.names }

    /// The values as a dictionary.
    public var dictionary: [String: JSONValue] {
        var result: [String: JSONValue] = [:]
        result.reserveCapacity(values.count)
        for (index, name) in layout.names.enumerated() { result[name] = values[index] }
        return result
    }

    /// The value of `name`, if the record has one. Setting `nil` removes the name.
    public subscript(name: String) -> JSONValue? {
        get {
            guard let slot = layout.slot(of: name) else { return nil }
            return values[slot]
        }
        set {
            if let slot = layout.slot(of: name) {
                if let newValue {
                    values[slot] = newValue
                } else {
                    var names = layout.names
                    names.remove(at: slot)
                    values.remove(at: slot)
                    layout = RecordLayout.interned(sortedNames: names)
                }
            } else if let newValue {
                var names = layout.names
                let position = names.firstIndex { name < $0 } ?? names.count
                names.insert(name, at: position)
                values.insert(newValue, at: position)
                layout = RecordLayout.interned(sortedNames: names)
            }
        }
    }

    /// These values with `changes` applied: their names added or replaced.
    public func merging(_ changes: RecordValues) -> RecordValues {
        if changes.layout === layout || isEmpty { return changes }
        if changes.isEmpty { return self }
        // An update mostly sets names the values have already: those values are replaced in place and the
        // layout kept, without comparing the names in order (a `String` comparison each) or making a list.
        if changes.layout.names.count <= layout.names.count {
            var replaced = values
            var hasEveryName = true
            for (position, name) in changes.layout.names.enumerated() {
                guard let slot = layout.slot(of: name) else {
                    hasEveryName = false
                    break
                }
                replaced[slot] = changes.values[position]
            }
            if hasEveryName { return RecordValues(layout: layout, values: replaced) }
        }
        // Both name lists are sorted: merge them in one pass.
        let names = layout.names, changedNames = changes.layout.names
        var mergedNames: [String] = []
        var merged = ContiguousArray<JSONValue>()
        mergedNames.reserveCapacity(names.count + changedNames.count)
        merged.reserveCapacity(names.count + changedNames.count)
        var i = 0, j = 0
        while i < names.count || j < changedNames.count {
            if j == changedNames.count || (i < names.count && names[i] < changedNames[j]) {
                mergedNames.append(names[i])
                merged.append(values[i])
                i += 1
            } else {
                if i < names.count && names[i] == changedNames[j] { i += 1 }
                mergedNames.append(changedNames[j])
                merged.append(changes.values[j])
                j += 1
            }
        }
        let mergedLayout = mergedNames.count == names.count ? layout : RecordLayout.interned(sortedNames: mergedNames)
        return RecordValues(layout: mergedLayout, values: merged)
    }

    /// The values whose names satisfy `isIncluded`.
    public func filter(_ isIncluded: (String) throws -> Bool) rethrows -> RecordValues {
        var names: [String] = []
        var kept = ContiguousArray<JSONValue>()
        for (index, name) in layout.names.enumerated() where try isIncluded(name) {
            names.append(name)
            kept.append(values[index])
        }
        if names.count == layout.names.count { return self }
        return RecordValues(layout: RecordLayout.interned(sortedNames: names), values: kept)
    }

    public static func == (lhs: RecordValues, rhs: RecordValues) -> Bool {
        (lhs.layout === rhs.layout || lhs.layout.names == rhs.layout.names) && lhs.values == rhs.values
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(layout.names)
        hasher.combine(values)
    }
}

extension RecordValues: Sequence {
    /// Name–value pairs in name order.
    public struct Iterator: IteratorProtocol {
        let record: RecordValues
        var index = 0

        public mutating func next() -> (key: String, value: JSONValue)? {
            guard index < record.values.count else { return nil }
            defer { index += 1 }
            return (record.layout.names[index], record.values[index])
        }
    }

    public func makeIterator() -> Iterator { Iterator(record: self) }

    public var underestimatedCount: Int { values.count }
}

extension RecordValues: CustomStringConvertible {
    public var description: String { dictionary.description }
}
