/// Property names in the order a producer writes them (a model type's properties in declaration
/// order), with the sorted ``RecordLayout`` they make and where each value goes in it.
///
/// A producer that writes the same names in the same order for every record works the arrangement out
/// once, puts each value straight at its place in the record (``sortedPositions``) and makes the record
/// with ``record(sortedValues:)``: no sorting, no copying, no hashing of names and no lookup in the table
/// of layouts per record.
public final class RecordArrangement: Sendable {
    /// The names, in the producer's order, in storage of the arrangement's own that lives exactly as
    /// long as it does. A producer that keeps the arrangement alive reads them without retaining an
    /// array per record: every producer of a type shares its arrangement, on every core that encodes,
    /// and retaining the same arrays for each record would make the cores contend for their reference counts.
    nonisolated(unsafe) package let nameStorage: UnsafeBufferPointer<String>
    /// For each position in ``names``, the position of its value in the record: where a producer that
    /// follows the arrangement puts that value, so that the record needs no reordering. In the
    /// arrangement's own storage, as ``nameStorage``.
    nonisolated(unsafe) package let sortedPositionStorage: UnsafeBufferPointer<Int>
    /// The layout the names sort into.
    let layout: RecordLayout

    /// The names, in the producer's order.
    public var names: [String] { Array(nameStorage) }
    /// For each position in ``names``, the position of its value in the record.
    public var sortedPositions: [Int] { Array(sortedPositionStorage) }

    /// The arrangement of `names`; nil if a name repeats.
    public init?(names: [String]) {
        guard let (layout, order) = RecordLayout.interned(unsortedNames: names) else { return nil }
        self.layout = layout
        let nameStorage = UnsafeMutableBufferPointer<String>.allocate(capacity: names.count)
        _ = nameStorage.initialize(from: names)
        let sortedPositionStorage = UnsafeMutableBufferPointer<Int>.allocate(capacity: order.count)
        for (sorted, position) in order.enumerated() { sortedPositionStorage[position] = sorted }
        self.nameStorage = UnsafeBufferPointer(nameStorage)
        self.sortedPositionStorage = UnsafeBufferPointer(sortedPositionStorage)
    }

    deinit {
        let nameStorage = UnsafeMutableBufferPointer(mutating: nameStorage)
        _ = nameStorage.deinitialize()
        nameStorage.deallocate()
        UnsafeMutableBufferPointer(mutating: sortedPositionStorage).deallocate()
    }

    /// A record of `values`, given already in the record's order (each name's value at its
    /// ``sortedPositions`` entry); nil if there is not one value per name.
    public func record(sortedValues values: ContiguousArray<JSONValue>) -> RecordValues? {
        guard values.count == nameStorage.count else { return nil }
        return RecordValues(layout: layout, values: values)
    }
}
