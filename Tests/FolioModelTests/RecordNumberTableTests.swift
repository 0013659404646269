import Testing
@testable import Folio

/// The hash table a context's registry keeps a few thousand live models in.
@Suite("Record number table")
struct RecordNumberTableTests {
    @Test(arguments: [1, 2, 3])
    func agreesWithADictionaryThroughInsertsUpdatesAndRemovals(seed: UInt64) {
        var random = SplitMix64(state: seed)
        var table = RecordNumberTable<Int>()
        var reference: [Int64: Int] = [:]
        // Few distinct keys, including 0 and negatives, so that runs collide and removals shift them.
        for step in 0..<40_000 {
            let key = Int64.random(in: -50...2_000, using: &random)
            switch Int.random(in: 0..<3, using: &random) {
            case 0, 1:
                #expect(table.updateValue(step, forKey: key) == reference.updateValue(step, forKey: key))
            default:
                #expect(table.removeValue(forKey: key) == reference.removeValue(forKey: key))
            }
            #expect(table.count == reference.count)
        }
        for key in Int64(-60)...2_010 {
            #expect(table[key] == reference[key], "key \(key)")
        }
        var visited: [Int64: Int] = [:]
        table.forEach { visited[$0] = $1 }
        #expect(visited == reference)
    }

    @Test func removingWherePassesTheValueInPlaceAndKeepsItWhenAsked() {
        final class Box {}
        var table = RecordNumberTable<Box>()
        let held = Box()
        table[0] = Box()
        table[7] = held
        table[8] = Box()
        let heldRemains = table.removeValue(forKey: 7, where: { isKnownUniquelyReferenced(&$0) })
        let unheldRemains = table.removeValue(forKey: 8, where: { isKnownUniquelyReferenced(&$0) })
        let zeroRemains = table.removeValue(forKey: 0, where: { isKnownUniquelyReferenced(&$0) })
        let absentRemains = table.removeValue(forKey: 9, where: { _ in true })
        #expect(heldRemains && !unheldRemains && !zeroRemains && !absentRemains)
        #expect(table[7] === held && table[8] == nil && table[0] == nil && table.count == 1)
    }

    @Test func reservingCapacityKeepsWhatIsThere() {
        var table = RecordNumberTable<Int64>(minimumCapacity: 2)
        for key in Int64(1)...100 { table[key * 1_000_003] = key }
        table.reserveCapacity(10_000)
        #expect(table.count == 100)
        #expect((Int64(1)...100).allSatisfy { table[$0 * 1_000_003] == $0 })
    }
}
