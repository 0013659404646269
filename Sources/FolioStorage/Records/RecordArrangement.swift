/// Property names in the order a producer writes them (a model type's properties in declaration
/// order), with the sorted ``RecordLayout`` they make and where each value goes in it.
///
/// A producer that writes the same names in the same order for every record works the arrangement out
/// once and then makes each record with ``values(_:)``: no sorting, no hashing of names and no lookup in
/// the table of layouts per record.
public struct RecordArrangement: Sendable {
    /// The names, in the producer's order.
    public let names: [String]
    /// The layout the names sort into.
    let layout: RecordLayout
    /// For each position of ``layout``, the position in ``names`` of its value.
    let order: [Int]

    /// The arrangement of `names`; nil if a name repeats.
    public init?(names: [String]) {
        guard let (layout, order) = RecordLayout.interned(unsortedNames: names) else { return nil }
        self.names = names
        self.layout = layout
        self.order = order
    }

    /// A record of `values`, given in the order of ``names``; nil if there is not one value per name.
    public func values(_ values: ContiguousArray<JSONValue>) -> RecordValues? {
        guard values.count == order.count else { return nil }
        var sorted = ContiguousArray<JSONValue>()
        sorted.reserveCapacity(order.count)
        for position in order { sorted.append(values[position]) }
        return RecordValues(layout: layout, values: sorted)
    }
}
