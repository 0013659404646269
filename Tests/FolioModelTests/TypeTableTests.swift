import Dispatch
import Foundation
import Testing
@testable import Folio

@Suite("Type table")
struct TypeTableTests {
    static let types: [any Any.Type] = [
        Int.self, String.self, Double.self, Bool.self, [Int].self, [String].self, Set<Int>.self, Int?.self,
        [String: Int].self, UInt8.self, Float.self, Int16.self,
    ]

    @Test func aTypeHasNoValueUntilOneIsRecordedAndThenKeepsTheFirst() {
        let table = TypeTable<String>()
        #expect(table.value(for: Int.self) == nil)
        #expect(table.count == 0)
        #expect(table.value(for: Int.self) { "first" } == "first")
        #expect(table.value(for: Int.self) { "second" } == "first")
        #expect(table.value(for: String.self) { "text" } == "text")
        #expect(table.value(for: Int.self) == "first")
        #expect(table.value(for: Double.self) == nil)
        #expect(table.count == 2)
    }

    /// Threads racing to record the same types may each work a value out, but every one of them is
    /// answered with the one value recorded, and no type's entry is lost to another's.
    @Test func threadsRacingOnNewTypesAllGetTheOneValueRecordedForEach() {
        let table = TypeTable<Int>()
        // Collected under an NSLock (a pthread mutex, which ThreadSanitizer follows; it does not see
        // through `Mutex`'s futex on Linux).
        let answers = LockedAnswers(count: Self.types.count)
        let threads = 8
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            for round in 0..<50 {
                for (position, type) in Self.types.enumerated() {
                    let answer = table.value(for: type) {
                        // Working a value out takes a while, so that the threads do race.
                        Thread.sleep(forTimeInterval: 0.001)
                        return thread * 1_000 + round
                    }
                    answers.append(answer, at: position)
                }
            }
        }
        #expect(table.count == Self.types.count)
        let collected = answers.all
        for (position, type) in Self.types.enumerated() {
            #expect(Set(collected[position]).count == 1, "\(type)")
            #expect(collected[position].count == threads * 50)
            #expect(table.value(for: type) == collected[position].first)
        }
    }

    /// Each type's answers, as the racing threads got them.
    final class LockedAnswers: @unchecked Sendable {
        private let lock = NSLock()
        private var answers: [[Int]]

        init(count: Int) {
            answers = Array(repeating: [], count: count)
        }

        func append(_ answer: Int, at position: Int) {
            lock.withLock { answers[position].append(answer) }
        }

        var all: [[Int]] { lock.withLock { answers } }
    }
}
