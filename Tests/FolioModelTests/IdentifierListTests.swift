import Testing
@testable import Folio

@Suite("Identifier lists")
struct IdentifierListTests {
    @Test func identifiersComeOutInIncreasingOrderWhateverOrderTheyWentIn() {
        var list = IdentifierList()
        for id: Int64 in [5, 1, 9, 3, 9, 7, 1] { list.insert(id) }
        #expect(Array(list) == [1, 3, 5, 7, 9])
        #expect(list.count == 5)
        #expect(list.first == 1)
        #expect(list.contains(7))
        #expect(!list.contains(4))
    }

    @Test func removingFromAShortListShiftsAndRemovingTwiceOrAbsentDoesNothing() {
        var list: IdentifierList = [1, 2, 3, 4]
        list.remove(2)
        list.remove(2)
        list.remove(42)
        list.remove(4)  // the last one
        #expect(Array(list) == [1, 3])
        #expect(list.count == 2)
        list.remove(1)
        list.remove(3)
        #expect(list.isEmpty)
        #expect(list.first == nil)
    }

    @Test func aLongListMarksRemovalsThenDropsThemAndAgreesWithASetThroughout() {
        var list = IdentifierList()
        var model = Set<Int64>()
        for id in Int64(1)...20_000 {
            list.insert(id)
            model.insert(id)
        }
        // Remove every third identifier, reinsert some of them, and check against a set as it goes:
        // the removals pass the point where marked identifiers are dropped together.
        var generator = SystemRandomNumberGenerator()
        for id in stride(from: Int64(2), through: 20_000, by: 3) {
            list.remove(id)
            model.remove(id)
            if Int.random(in: 0..<10, using: &generator) == 0 {
                list.insert(id)
                model.insert(id)
            }
            if id % 999 == 0 {
                #expect(list.count == model.count)
                #expect(list.contains(id) == model.contains(id))
            }
        }
        #expect(list.count == model.count)
        #expect(Array(list) == model.sorted())
        list.insert(30_000)
        list.insert(2)
        model.insert(30_000)
        model.insert(2)
        #expect(Array(list) == model.sorted())
    }

    /// Deleting every record of one key, in identifier order (what deleting fetched models does), takes
    /// a list from marking through dropping to shifting, and leaves it empty.
    @Test func removingEveryIdentifierInIncreasingOrderPassesFromMarkingToShiftingAndEmptiesTheList() {
        let count = 20 * IdentifierList.shiftingLimit + 3
        var list = IdentifierList()
        for id in 1...Int64(count) { list.insert(id) }
        for id in 1...Int64(count) {
            list.remove(id)
            #expect(list.count == count - Int(id))
            if id % 500 == 0 || Int(id) > count - IdentifierList.shiftingLimit - 2 {
                #expect(list.first == (Int(id) < count ? id + 1 : nil))
                #expect(!list.contains(id))
            }
        }
        #expect(list.isEmpty)
        #expect(Array(list).isEmpty)
        list.insert(7)
        #expect(Array(list) == [7])
    }

    /// Inserts at the end and in the middle, removals, reinsertions of removed identifiers: after each
    /// operation the list agrees with a set, across the sizes where it shifts, marks and drops marks.
    @Test(arguments: [UInt64(1), 2, 3])
    func randomInsertsAndRemovalsAgreeWithASet(seed: UInt64) {
        var random = SplitMix64(state: seed)
        var list = IdentifierList()
        var model = Set<Int64>()
        var next: Int64 = 1
        for step in 0..<30_000 {
            let choice = random.next() % 10
            if choice < 4 || model.isEmpty {
                list.insert(next)  // an append
                model.insert(next)
                next += 1 + Int64(random.next() % 3)
            } else if choice < 5 {
                let id = Int64(random.next() % UInt64(next))  // in the middle, maybe present or removed
                list.insert(id)
                model.insert(id)
            } else {
                let id = Int64(random.next() % UInt64(next))
                list.remove(id)
                model.remove(id)
            }
            let probe = Int64(random.next() % UInt64(next + 1))
            #expect(list.contains(probe) == model.contains(probe))
            #expect(list.count == model.count)
            if step % 1_000 == 0 {
                #expect(Array(list) == model.sorted())
                #expect(list.identifiers == model.sorted())
                #expect(list.first == model.min())
            }
        }
        #expect(Array(list) == model.sorted())
        #expect(list.identifiers == model.sorted())
    }

    @Test func mergingTwoSortedListsKeepsEachIdentifierOnce() {
        #expect([Int64].mergingSorted([1, 3, 5, 9], [2, 3, 9, 10]) == [1, 2, 3, 5, 9, 10])
        #expect([Int64].mergingSorted([], [4, 6]) == [4, 6])
        #expect([Int64].mergingSorted([4, 6], []) == [4, 6])
    }
}
