import Testing
@_spi(FolioEngine) @testable import FolioStorage

@Suite("Dense table of record numbers")
struct DenseTableTests {
    /// The same operations on a dictionary and on the table give the same contents.
    @Test func agreesWithADictionaryThroughInsertsOverwritesRemovalsAndFarNumbers() {
        var table = DenseTable<String>()
        var reference: [Int64: String] = [:]
        var generator = SystemRandomNumberGenerator()
        // Mostly dense numbers, some far beyond (they start in the overflow and move into the slots as
        // the table grows past them), some negative.
        let numbers: [Int64] = (0..<3000).map { _ in
            switch Int.random(in: 0..<10, using: &generator) {
            case 0: return Int64.random(in: 5000..<200_000, using: &generator)
            case 1: return Int64.random(in: (1 << 40)..<(1 << 41), using: &generator)
            case 2: return -Int64.random(in: 1..<100, using: &generator)
            default: return Int64.random(in: 0..<6000, using: &generator)
            }
        }
        for (step, number) in numbers.enumerated() {
            if step % 3 == 2 {
                #expect(table.removeValue(forKey: number) == reference.removeValue(forKey: number))
            } else {
                table[number] = "v\(step)"
                reference[number] = "v\(step)"
            }
            #expect(table.count == reference.count)
        }
        for number in Set(numbers) { #expect(table[number] == reference[number]) }
        #expect(table[123_456_789] == nil)
        let listed = Dictionary(table.map { ($0.key, $0.value) }, uniquingKeysWith: { first, _ in first })
        #expect(listed == reference)
        #expect(Array(table).count == reference.count)
        // Numbers in the overflow (sparse ones) and in chunks come in one increasing order.
        var walked: [(Int64, String)] = []
        table.forEachInNumberOrder { walked.append(($0, $1)) }
        #expect(walked.map(\.0) == reference.keys.sorted())
        #expect(walked.allSatisfy { reference[$0.0] == $0.1 })
    }

    /// A number first stored far beyond the slots, then set again once the table has grown towards it:
    /// growing moves it into the slots, and it must still be counted once.
    @Test func aFarNumberSetAgainAfterTheSlotsGrowTowardsItIsCountedOnce() {
        var table = DenseTable<String>()
        table[10_000] = "far"
        #expect(table.count == 1)
        // Enough values that 10,000 is within the slots' reach (twice the values held, plus room),
        // though not yet in them.
        for number in 0..<3_000 { table[Int64(number)] = "near" }
        #expect(table.count == 3_001)
        table[10_000] = "far again"
        #expect(table.count == 3_001)
        #expect(table[10_000] == "far again")
        #expect(Array(table).count == 3_001)
    }

    /// Removing one value on a condition sees the value in place, in the slots and beyond them.
    @Test func removesOneValueWhenItsConditionHoldsInPlace() {
        final class Box {}
        var table = DenseTable<Box?>()
        let held = Box()
        table[3] = held
        table[4] = Box()
        table[1 << 40] = Box()
        table[(1 << 40) + 1] = held
        let unique: (inout Box?) -> Bool = { isKnownUniquelyReferenced(&$0) }
        #expect(table.removeValue(forKey: 3, where: unique) == true)
        #expect(table.removeValue(forKey: 4, where: unique) == false)
        #expect(table.removeValue(forKey: 1 << 40, where: unique) == false)
        #expect(table.removeValue(forKey: (1 << 40) + 1, where: unique) == true)
        #expect(table.removeValue(forKey: 5, where: unique) == false)
        #expect(table.removeValue(forKey: 1 << 41, where: unique) == false)
        #expect(table.count == 2)
        #expect(table[3] != nil && table[4] == nil && table[1 << 40] == nil && table[(1 << 40) + 1] != nil)
        withExtendedLifetime(held) {}
    }

    /// A copy of the table is a value of its own: changes to either, in any chunk of slots and in the
    /// overflow, leave the other as it was.
    @Test func aCopyKeepsItsValuesWhileTheOriginalChangesInEveryChunk() {
        var original = DenseTable<String>()
        for number in 0..<10_000 { original[Int64(number)] = "v\(number)" }
        original[1 << 40] = "far"
        let copy = original
        for number in stride(from: 0, to: 10_000, by: 1_000) { original[Int64(number)] = "changed" }
        original[1 << 40] = nil
        original[12_000] = "new"
        #expect(copy.count == 10_001)
        #expect((0..<10_000).allSatisfy { copy[Int64($0)] == "v\($0)" })
        #expect(copy[1 << 40] == "far" && copy[12_000] == nil)
        #expect(original.count == 10_001)
        #expect(original[3_000] == "changed" && original[3_001] == "v3001" && original[12_000] == "new")
        var numbers: [Int64] = []
        copy.forEachInNumberOrder { number, _ in numbers.append(number) }
        #expect(numbers == (0..<10_000).map(Int64.init) + [1 << 40])
    }

    /// A table that holds only recent numbers (a context that lets go of the models it saved) keeps
    /// slots for them, not for every number before them, and not in the overflow.
    @Test func aTableOfRecentNumbersReleasesTheChunksItNoLongerUses() {
        var table = DenseTable<Int>()
        for number in 0..<1_000_000 {
            table[Int64(number)] = number
            if number >= 10_000 { table[Int64(number - 10_000)] = nil }
        }
        #expect(table.count == 10_000)
        #expect(table.overflow.isEmpty)
        #expect(table.allocatedChunks <= 10_000 / DenseTable<Int>.chunkSize + 2)
        #expect(table[989_999] == nil && table[990_000] == 990_000 && table[999_999] == 999_999)
        #expect(table.map(\.key) == (990_000..<1_000_000).map(Int64.init))
        // A number far beyond any chunk still goes to the overflow.
        table[1 << 40] = 1
        #expect(table.overflow.count == 1 && table.count == 10_001)
    }

    /// A few thousand numbers picked from a million (a fetch's results registered in a context) stay in
    /// the overflow instead of allocating a chunk for each, and move into a chunk once it fills up.
    @Test func sparseNumbersStayInTheOverflowUntilTheirChunkIsDenseEnough() {
        var table = DenseTable<Int>()
        for number in stride(from: 0, to: 1_000_000, by: 200) { table[Int64(number)] = number }
        #expect(table.count == 5_000)
        #expect(table.allocatedChunks <= (2 * 5_000 + 4_096) / DenseTable<Int>.chunkSize)
        for number in 0..<20_000 { table[Int64(number)] = number }
        #expect(table.count == 5_000 - 100 + 20_000)
        #expect((0..<20_000).allSatisfy { table[Int64($0)] == $0 })
        #expect(table[999_800] == 999_800 && table[999_801] == nil)
        var previous: Int64 = -1
        var inOrder = true
        table.forEachInNumberOrder { number, _ in
            inOrder = inOrder && number > previous
            previous = number
        }
        #expect(inOrder)
    }

    /// A chunk is only as long as its highest value needs: a table of one record (a transaction of one
    /// insert) does not make and clear a whole chunk of slots.
    @Test func aChunkIsOnlyAsLongAsItsHighestValueNeeds() {
        let size = DenseTable<String>.chunkSize
        var table = DenseTable<String>()
        table[5] = "five"
        #expect(table.length(ofChunk: 0) == 6)
        #expect(table[5] == "five" && table[4] == nil && table[6] == nil && table[Int64(size - 1)] == nil)
        table[Int64(size - 10)] = "far in the chunk"
        #expect(table.length(ofChunk: 0) == size - 9 && table.pages[0].chunks[0]?.capacity ?? 0 <= size)
        #expect(table.removeValue(forKey: Int64(size - 1), where: { _ in true }) == false)
        #expect(table.map(\.key) == [5, Int64(size - 10)])
        table[5] = nil
        table[Int64(size - 10)] = nil
        #expect(table.isEmpty && table.allocatedChunks == 0)
    }

    @Test func numbersGivenOutInOrderAreAppendedAndACopyKeepsItsOwnValues() {
        let size = DenseTable<String>.chunkSize
        let total = size + size / 2
        var table = DenseTable<String>()
        for number in 1...total { table[Int64(number)] = "v\(number)" }
        #expect(table.count == total && table.allocatedChunks == 2)
        #expect(table.length(ofChunk: 0) == size && table.length(ofChunk: 1) == total + 1 - size)
        // Clearing past a chunk's end changes nothing.
        table[Int64(total + 100)] = nil
        #expect(table.count == total && table.length(ofChunk: 1) == total + 1 - size)
        let copy = table
        table[Int64(total + 1)] = "appended after the copy"
        table[2] = "changed after the copy"
        #expect(copy.count == total && copy[Int64(total + 1)] == nil && copy[2] == "v2")
        #expect(table.count == total + 1 && table[Int64(total + 1)] == "appended after the copy" && table[2] == "changed after the copy")
        #expect(table.map(\.key) == (1...total + 1).map(Int64.init))
    }

    /// What a single save into a large store costs: a change to a table shared with a reader copies the
    /// page and the chunk it touches, and shares every other chunk and page with the reader's version.
    @Test func aChangeToASharedTableCopiesOnlyThePageAndTheChunkItTouches() {
        let perPage = DenseTable<Int>.chunkSize * DenseTable<Int>.pageSize
        var table = DenseTable<Int>()
        for number in 0..<(3 * perPage) { table[Int64(number)] = number }
        let reader = table
        table[Int64(3 * perPage)] = -1
        func storage(_ table: DenseTable<Int>, chunk: Int) -> UnsafeRawPointer? {
            let page = chunk / DenseTable<Int>.pageSize, index = chunk % DenseTable<Int>.pageSize
            return table.pages[page].chunks[index]?.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) }
        }
        func chunkList(_ table: DenseTable<Int>, page: Int) -> UnsafeRawPointer? {
            table.pages[page].chunks.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) }
        }
        let lastChunk = 3 * DenseTable<Int>.pageSize - 1
        #expect(
            storage(table, chunk: 0) == storage(reader, chunk: 0) && storage(table, chunk: lastChunk - 1) == storage(reader, chunk: lastChunk - 1))
        #expect(chunkList(table, page: 0) == chunkList(reader, page: 0) && chunkList(table, page: 1) == chunkList(reader, page: 1))
        #expect(reader[Int64(3 * perPage)] == nil && table[Int64(3 * perPage)] == -1 && reader.count == 3 * perPage)
        table[Int64(perPage + 5)] = -5
        #expect(storage(table, chunk: DenseTable<Int>.pageSize) != storage(reader, chunk: DenseTable<Int>.pageSize))
        #expect(chunkList(table, page: 1) != chunkList(reader, page: 1) && chunkList(table, page: 2) == chunkList(reader, page: 2))
        #expect(reader[Int64(perPage + 5)] == perPage + 5 && table[Int64(perPage + 5)] == -5)
    }

    @Test func walksDenseNumbersInOrder() {
        var table = DenseTable<Int>()
        table.reserveCapacity(100)
        for number in (1...100).reversed() { table[Int64(number)] = number }
        #expect(table.map(\.key) == (1...100).map(Int64.init))
        table[50] = nil
        #expect(table.count == 99)
        #expect(!table.contains { $0.key == 50 })
        table.removeAll()
        #expect(table.count == 0 && table[1] == nil)
    }

    @Test func walksEveryNumberInIncreasingOrderIncludingFarAndNegativeOnes() {
        var table = DenseTable<Int64>()
        let numbers: [Int64] = [7, 1 << 41, 3, -5, 1 << 40, 12, -900, 1, .max, .min]
        for number in numbers { table[number] = number &* 2 }
        var walked: [(Int64, Int64)] = []
        table.forEachInNumberOrder { walked.append(($0, $1)) }
        #expect(walked.map(\.0) == numbers.sorted())
        #expect(walked.allSatisfy { $0.1 == $0.0 &* 2 })
    }

    /// Moving every value out gives them in number order (dense chunks, far numbers and negative ones),
    /// leaves the table empty and usable, and leaves it no reference to any of them.
    @Test func removingAllInNumberOrderMovesEveryValueOutAndLeavesTheTableEmpty() {
        var table = DenseTable<Slot>()
        table.reserveCapacity(5_000)
        // Three chunks of slots, and the overflow before, between and after them.
        let numbers = Array(stride(from: Int64(1), through: 4_500, by: 7)) + [1 << 40, -5, .max, .min, 1 << 41]
        for number in numbers { table[number] = Slot(tag: Int(truncatingIfNeeded: number), marker: Marker()) }
        _ = table.removeValue(forKey: 15)  // 1 + 2 × 7
        weak let firstMarker = table[1]?.marker
        weak let farMarker = table[1 << 40]?.marker

        var moved = table.removeAllInNumberOrder()
        #expect(moved.map(\.tag) == numbers.filter { $0 != 15 }.sorted().map { Int(truncatingIfNeeded: $0) })
        #expect(table.isEmpty)
        #expect(table[1] == nil && table[1 << 40] == nil && table.count == 0)
        // The array holds the only references.
        #expect(isKnownUniquelyReferenced(&moved[0].marker))
        moved.removeAll()
        #expect(firstMarker == nil && farMarker == nil)

        table[3] = Slot(tag: 3, marker: Marker())
        var walked: [Int64] = []
        table.forEachInNumberOrder { number, _ in walked.append(number) }
        #expect(walked == [3] && table.count == 1)
    }

    private final class Marker {}
    private struct Slot {
        var tag: Int
        var marker: Marker
    }

    /// `touch` reads the first word of the object each present value refers to (a Swift object's type)
    /// and nothing for numbers without a value or outside the chunks, and retains nothing.
    @Test func touchReadsTheReferencedObjectOfEachValueInAChunkAndRetainsNothing() throws {
        var table = DenseTable<Slot>()
        table.reserveCapacity(3_000)
        for number in Int64(1)...3_000 where number % 3 != 0 { table[number] = Slot(tag: Int(number), marker: Marker()) }
        table[1 << 40] = Slot(tag: 0, marker: Marker())  // far away: in the overflow, not touched
        _ = table.removeValue(forKey: 10)
        let offset = try #require(MemoryLayout<Slot>.offset(of: \Slot.marker))
        let sample = try #require(table[1]).marker
        let typeWord = Unmanaged.passUnretained(sample).toOpaque().load(as: UInt.self)
        #expect(typeWord != 0)

        let numbers: [Int64] = Array(0...3_100) + [1 << 40, -5]
        let present = numbers.filter { $0 >= 1 && $0 <= 3_000 && $0 % 3 != 0 && $0 != 10 }.count
        #expect(table.touch(numbers, referenceAt: offset) == UInt(present) &* typeWord)
        #expect(table.touch([3, 6, 10, 5_000], referenceAt: offset) == 0)
        // An offset that does not fit in the value reads nothing.
        #expect(table.touch(numbers, referenceAt: MemoryLayout<Slot>.size) == 0)
        #expect(table.touch(numbers, referenceAt: -8) == 0)
        // Nothing was retained: a marker goes away with its slot.
        weak let second = table[2]?.marker
        #expect(second != nil)
        _ = table.removeValue(forKey: 2)
        #expect(second == nil)
    }
}
