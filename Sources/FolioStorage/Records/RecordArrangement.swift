/// Property names in the order a producer writes them (a model type's properties in declaration
/// order), with the sorted ``RecordLayout`` they make and where each value goes in it.
///
/// A producer that writes the same names in the same order for every record works the arrangement out
/// once, puts each value straight at its place in the record (``sortedPositions``) and makes the record
/// with ``record(sortedValues:)``: no sorting, no copying, no hashing of names and no lookup in the table
/// of layouts per record.
package final class RecordArrangement: Sendable {
    /// The names, in the producer's order.
    package let names: [String]
    /// For each position in ``names``, the position of its value in the record: where a producer that
    /// follows the arrangement puts that value, so that the record needs no reordering.
    package let sortedPositions: [Int]
    /// The layout the names sort into.
    let layout: RecordLayout

    /// The arrangement of `names`; nil if a name repeats.
    package init?(names: [String]) {
        guard let (layout, order) = RecordLayout.interned(unsortedNames: names) else { return nil }
        self.layout = layout
        self.names = names
        var sortedPositions = [Int](repeating: 0, count: order.count)
        for (sorted, position) in order.enumerated() { sortedPositions[position] = sorted }
        self.sortedPositions = sortedPositions
    }

    /// A record of `values`, given already in the record's order (each name's value at its
    /// ``sortedPositions`` entry); nil if there is not one value per name.
    package func record(sortedValues values: ContiguousArray<JSONValue>) -> RecordValues? {
        guard values.count == names.count else { return nil }
        return RecordValues(layout: layout, values: values)
    }
}
