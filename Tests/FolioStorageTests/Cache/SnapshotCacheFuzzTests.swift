import Foundation
import Testing
@testable import FolioStorage

/// Random damage to a valid snapshot cache (flipped bytes, truncations, insertions, deletions, and
/// hostile counts with their checksums made right again): opening, lookups and reading records never
/// trap, and each either fails with a typed error or answers exactly what a scan of the records gives.
/// 2,000 cases, 20,000 with `FOLIO_LONG_TESTS=1`; `FOLIO_FUZZ_SEED` replays another seed.
@Suite("Fuzzing snapshot caches with a seed", .timeLimit(.minutes(30)))
struct SnapshotCacheFuzzTests {
    static var iterations: Int { ProcessInfo.processInfo.environment["FOLIO_LONG_TESTS"] == nil ? 2_000 : 20_000 }
    static var seed: UInt64 { ProcessInfo.processInfo.environment["FOLIO_FUZZ_SEED"].flatMap { UInt64($0) } ?? 0xCAC4E }

    /// One mutation of `bytes`, described for the failure message.
    static func mutate(_ bytes: [UInt8], using random: inout SeededGenerator) -> ([UInt8], String) {
        var bytes = bytes
        let headerLength = Int(LittleEndianReader.u32(bytes, at: 12))
        switch Int.random(in: 0..<6, using: &random) {
        case 0, 1:
            // Most flips land in the header and directories, where they change the most.
            var flipped: [Int] = []
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                let limit = Bool.random(using: &random) ? min(bytes.count, headerLength + 4_096) : bytes.count
                let at = Int.random(in: 0..<limit, using: &random)
                bytes[at] ^= UInt8(1 << Int.random(in: 0..<8, using: &random))
                flipped.append(at)
            }
            return (bytes, "flipped bytes \(flipped)")
        case 2:
            let length = Int.random(in: 0..<bytes.count, using: &random)
            return (Array(bytes[0..<length]), "truncated to \(length)")
        case 3:
            let at = Int.random(in: 0...bytes.count, using: &random)
            let inserted = (0..<Int.random(in: 1...24, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
            bytes.insert(contentsOf: inserted, at: at)
            return (bytes, "inserted \(inserted.count) bytes at \(at)")
        case 4:
            let at = Int.random(in: 0..<bytes.count, using: &random)
            let count = Int.random(in: 1...min(24, bytes.count - at), using: &random)
            bytes.removeSubrange(at..<(at + count))
            return (bytes, "removed \(count) bytes at \(at)")
        default:
            // A hostile field in the header, checksums made right: only the bounds checks stand between
            // it and an allocation or a read outside the file.
            let at = Int.random(in: 28..<(headerLength - 8), using: &random)
            let values: [UInt64] = [.max, 1 << 62, 1 << 40, UInt64(bytes.count), UInt64(bytes.count) + 1, 0, UInt64(UInt32.max)]
            let value = values[Int.random(in: 0..<values.count, using: &random)]
            SnapshotCacheRegions.store(value, in: &bytes, at: at)
            SnapshotCacheRegions.resign(&bytes)
            return (bytes, "stored \(value) at \(at), re-signed")
        }
    }

    @Test func damagedCachesFailWithATypedErrorOrAnswerExactlyAsAScan() throws {
        try withTemporaryDirectory { url in
            let fixture = try SnapshotCacheFixture.make(at: url, count: 60)
            let original = try fixture.cacheBytes()
            let baseline = try #require(try fixture.open().success)
            var expectations: [(member: String, key: JSONValue, records: [StoredRecord]?)] = []
            for member in SnapshotCacheFixture.members {
                for key in fixture.keys(of: member) {
                    let answered = try baseline.lookup(member: member, key: key) != nil
                    expectations.append((member, key, answered ? try fixture.scan(member: member, key: key) : nil))
                }
            }
            var random = SeededGenerator(seed: Self.seed)
            var outcomes: [String: Int] = [:]
            for iteration in 0..<Self.iterations {
                let (bytes, mutation) = Self.mutate(original, using: &random)
                try fixture.writeCache(bytes)
                let context = "seed \(Self.seed), case \(iteration): \(mutation)"
                let cache: SnapshotCache
                switch try fixture.open() {
                case .failure(let problem):
                    #expect(problem.path == fixture.cache, "\(context)")
                    // A re-signed edit of the snapshot's identity is a valid cache of another snapshot.
                    #expect(problem.reason != .missing && (problem.reason != .stale || mutation.hasSuffix("re-signed")), "\(context): \(problem)")
                    outcomes[problem.reason.rawValue, default: 0] += 1
                    continue
                case .success(let opened):
                    cache = opened
                }
                outcomes["opened", default: 0] += 1
                for _ in 0..<6 {
                    let (member, key, expected) = expectations[Int.random(in: 0..<expectations.count, using: &random)]
                    do {
                        // No answer is always safe (the caller reads the snapshot); a re-signed edit of a member's
                        // name gives it. An answer must be exactly the scan's.
                        guard let postings = try cache.lookup(member: member, key: key) else {
                            #expect(expected == nil || mutation.hasSuffix("re-signed"), "\(context): \(member) = \(key)")
                            continue
                        }
                        let expected = try #require(expected, "\(context): \(member) = \(key) has an answer")
                        let records = try cache.readRecords(postings)
                        #expect(records.map(\.id) == expected.map(\.id), "\(context): \(member) = \(key)")
                        #expect(records.map(\.values) == expected.map(\.values), "\(context): \(member) = \(key)")
                    } catch let error as StorageError {
                        #expect(error.file == fixture.cache, "\(context): \(error)")
                        outcomes["lookup failed", default: 0] += 1
                    }
                }
                let member = SnapshotCacheFixture.members[Int.random(in: 0..<SnapshotCacheFixture.members.count, using: &random)]
                do {
                    guard let missing = try cache.missingPostings(member: member) else {
                        #expect(mutation.hasSuffix("re-signed"), "\(context)")
                        continue
                    }
                    #expect(try cache.readRecords(missing).map(\.id) == fixture.trips.filter { $0.values[member] == nil }.map(\.id), "\(context)")
                } catch let error as StorageError {
                    #expect(error.file == fixture.cache, "\(context): \(error)")
                }
            }
            // The mutations reach every kind of outcome, so none of the checks above is idle.
            for kind in ["opened", "damaged", "truncated", "foreign", "lookup failed"] {
                #expect(outcomes[kind, default: 0] > 0, "\(kind): \(outcomes)")
            }
        }
    }
}
