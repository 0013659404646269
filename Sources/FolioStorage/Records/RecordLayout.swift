import Foundation

/// The property names of a record, sorted, shared by every record that has exactly those names.
///
/// Most records of an entity have the same names, so a store of a million records holds a handful of
/// layouts and each record only its values (see ``RecordValues``). Layouts are interned: the same names
/// give the same instance, so comparing two records' layouts is usually a pointer comparison.
package final class RecordLayout: Sendable {
    /// The names, sorted with `String`'s `<` (no duplicates).
    package let names: [String]
    /// Slots by name, for layouts too wide for a linear search.
    private let slotsByName: [String: Int]
    /// Whether `names` are also in UTF-8 byte order, the canonical writer's member order (always, unless
    /// some name is not in Unicode normal form C).
    let isInByteOrder: Bool
    /// The canonical bytes before each value of an object with these names, one after the other:
    /// `{"first":`, then `,"second":` and so on. Written once here instead of once per record.
    let memberPrefixes: [UInt8]
    /// Where each name's piece of ``memberPrefixes`` ends.
    let memberPrefixEnds: [Int]

    fileprivate init(sortedNames: [String]) {
        self.names = sortedNames
        self.isInByteOrder = zip(sortedNames, sortedNames.dropFirst()).allSatisfy { CanonicalJSONWriter.utf8Precedes($0, $1) }
        var prefixes: [UInt8] = []
        var ends: [Int] = []
        for (position, name) in sortedNames.enumerated() {
            prefixes.append(position == 0 ? UInt8(ascii: "{") : UInt8(ascii: ","))
            CanonicalJSONWriter.writeString(name, into: &prefixes)
            prefixes.append(UInt8(ascii: ":"))
            ends.append(prefixes.count)
        }
        self.memberPrefixes = prefixes
        self.memberPrefixEnds = ends
        self.slotsByName =
            sortedNames.count > Self.linearSearchLimit
            ? Dictionary(uniqueKeysWithValues: sortedNames.enumerated().map { ($0.element, $0.offset) })
            : [:]
    }

    /// Up to this many names, a linear search (comparing mostly small, inline strings) beats hashing.
    private static let linearSearchLimit = 8

    /// The position of `name`'s value, if the layout has it.
    @inline(__always)
    package func slot(of name: String) -> Int? {
        if names.count > Self.linearSearchLimit { return slotsByName[name] }
        for index in names.indices where names[index] == name { return index }
        return nil
    }

    /// The empty layout.
    package static let empty = RecordLayout(sortedNames: [])

    /// The layout for `sortedNames`, which must be sorted and free of duplicates.
    package static func interned(sortedNames: [String]) -> RecordLayout {
        if sortedNames.isEmpty { return empty }
        return LayoutTable.shared.layout(forSortedNames: sortedNames)
    }

    /// The layout for `names` in any order, with the permutation that sorts them (`order[k]` is the
    /// position in `names` of the layout's `k`th name); nil if a name repeats.
    ///
    /// Models encode their properties in declaration order, the same for every instance, so the answer
    /// is remembered for the sequences seen.
    static func interned(unsortedNames names: [String]) -> (layout: RecordLayout, order: [Int])? {
        LayoutTable.shared.arrangement(for: names) {
            let order = names.indices.sorted { names[$0] < names[$1] }
            let sorted = order.map { names[$0] }
            for index in sorted.indices.dropFirst() where sorted[index] == sorted[index - 1] { return nil }
            return (interned(sortedNames: sorted), order)
        }
    }
}

/// The process-wide table of interned layouts.
///
/// It holds at most ``capacity`` layouts. When a new one would go past that (a process that has seen a
/// pathological mix of property sets), the table starts again empty, so that the layouts in use from
/// then on are shared again; records keep the layouts they have, and a layout nothing refers to any
/// more is freed. Two instances with the same names then exist, which costs memory but never
/// correctness: records compare their layouts' names when the instances differ.
final class LayoutTable: Sendable {
    static let shared = LayoutTable()
    let capacity: Int

    /// The interned layouts and arrangements, changed together under one lock.
    private struct Tables: Sendable {
        var layouts: [[String]: RecordLayout] = [:]
        /// The layout returned last: bulk loads ask for the same one again and again.
        var last: RecordLayout?
        var arrangements: [[String]: (layout: RecordLayout, order: [Int])] = [:]
        var lastArrangement: (names: [String], layout: RecordLayout, order: [Int])?
    }

    private let tables = LockedState(Tables())

    init(capacity: Int = 4096) {
        self.capacity = capacity
    }

    func arrangement(for names: [String], make: () -> (layout: RecordLayout, order: [Int])?) -> (layout: RecordLayout, order: [Int])? {
        let known = tables.withLock { tables -> (layout: RecordLayout, order: [Int])? in
            if let last = tables.lastArrangement, last.names == names { return (last.layout, last.order) }
            if let found = tables.arrangements[names] {
                tables.lastArrangement = (names, found.layout, found.order)
                return found
            }
            return nil
        }
        if let known { return known }
        // `make` interns the sorted layout, which takes the lock itself.
        guard let made = make() else { return nil }
        let capacity = capacity
        tables.withLock { tables in
            if tables.arrangements.count >= capacity { tables.arrangements.removeAll() }
            tables.arrangements[names] = made
            tables.lastArrangement = (names, made.layout, made.order)
        }
        return made
    }

    /// The layout of `names`, which must be sorted and free of duplicates: the table's, or a new one.
    func layout(forSortedNames names: [String]) -> RecordLayout {
        let capacity = capacity
        return tables.withLock { tables in
            if let last = tables.last, last.names == names { return last }
            if let found = tables.layouts[names] {
                tables.last = found
                return found
            }
            let layout = RecordLayout(sortedNames: names)
            if tables.layouts.count >= capacity { tables.layouts.removeAll() }
            tables.layouts[names] = layout
            tables.last = layout
            return layout
        }
    }
}
