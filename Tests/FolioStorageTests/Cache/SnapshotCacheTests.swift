import Foundation
import Testing
@testable import FolioStorage

/// The snapshot cache: a derived binary index of one snapshot file. Its answers must be exactly what a
/// scan of the records gives, and every way it can be unusable must be told by its reason, never by a
/// wrong answer or a trap.
@Suite("Snapshot cache")
struct SnapshotCacheTests {
    private func withFixture(_ body: (SnapshotCacheFixture) throws -> Void) throws {
        try withTemporaryDirectory { url in try body(try SnapshotCacheFixture.make(at: url)) }
    }

    private func reason(_ fixture: SnapshotCacheFixture) throws -> SnapshotCacheProblem.Reason? {
        try fixture.open().failure?.reason
    }

    // MARK: Answers

    @Test func lookupsReturnExactlyTheRecordsAScanFinds() throws {
        try withFixture { fixture in
            let cache = try #require(try fixture.open().success)
            #expect(cache.entity == "Trip")
            #expect(cache.members == SnapshotCacheFixture.members)
            #expect(cache.source.records == UInt64(fixture.trips.count))
            var nonEmpty = 0
            for member in SnapshotCacheFixture.members {
                for key in fixture.keys(of: member) {
                    let expected = try fixture.scan(member: member, key: key)
                    guard let postings = try cache.lookup(member: member, key: key) else {
                        // Only an object, array or over-long key, of a member some records hold such values in, is
                        // unanswered.
                        let long = try CanonicalJSONWriter().bytes(key).count > SnapshotCacheFile.maximumKeyBytes
                        #expect(key.arrayValue != nil || key.objectValue != nil || long, "\(member) \(key)")
                        #expect(cache.isFullyIndexed(member: member) == false)
                        continue
                    }
                    let records = try cache.readRecords(postings)
                    #expect(records.map(\.id) == expected.map(\.id), "\(member) = \(key)")
                    #expect(records.map(\.values) == expected.map(\.values), "\(member) = \(key)")
                    #expect(postings.map(\.id) == postings.map(\.id).sorted())
                    if !expected.isEmpty { nonEmpty += 1 }
                }
            }
            #expect(nonEmpty > 15)
            #expect(try cache.lookup(member: "destination", key: .string("Nowhere")) == [])
            #expect(try cache.lookup(member: "destination", key: .string("Zürich 東京"))?.isEmpty == false)
            #expect(try cache.lookup(member: "destination", key: .string("quo\"te\\back\nline\u{2028}"))?.isEmpty == false)
        }
    }

    @Test func recordsLackingAMemberAreListedAsMissing() throws {
        try withFixture { fixture in
            let cache = try #require(try fixture.open().success)
            for member in SnapshotCacheFixture.members {
                let missing = try #require(try cache.missingPostings(member: member))
                #expect(missing.map(\.id) == fixture.trips.filter { $0.values[member] == nil }.map(\.id), "\(member)")
                #expect(try cache.readRecords(missing).allSatisfy { $0.values[member] == nil })
            }
            #expect(try cache.missingPostings(member: "note")?.isEmpty == false)
            #expect(try cache.missingPostings(member: "destination") == [])
        }
    }

    @Test func objectsArraysAndLongKeysAreListedAsUnindexed() throws {
        try withFixture { fixture in
            let cache = try #require(try fixture.open().success)
            let tags = try #require(try cache.unindexedPostings(member: "tags"))
            #expect(
                tags.map(\.id) == fixture.trips.filter { $0.values["tags"]?.arrayValue != nil || $0.values["tags"]?.objectValue != nil }.map(\.id))
            #expect(cache.isFullyIndexed(member: "tags") == false)
            #expect(try cache.lookup(member: "tags", key: .array([.string("a"), .int(1)])) == nil)
            #expect(
                try cache.lookup(member: "tags", key: .string("single"))?.count
                    == fixture.trips.filter { $0.values["tags"] == .string("single") }.count)

            let long = JSONValue.string(String(repeating: "long ", count: 300))
            #expect(try cache.unindexedPostings(member: "note")?.map(\.id) == fixture.trips.filter { $0.values["note"] == long }.map(\.id))
            #expect(try cache.lookup(member: "note", key: long) == nil)

            // A member no record holds an object, array or long key in answers every key, compound ones with [].
            #expect(cache.isFullyIndexed(member: "destination") == true)
            #expect(try cache.lookup(member: "destination", key: .array([])) == [])
            #expect(try cache.lookup(member: "destination", key: .string(String(repeating: "x", count: 5_000))) == [])
        }
    }

    @Test func keysMatchByTheirCanonicalBytes() throws {
        try withFixture { fixture in
            let cache = try #require(try fixture.open().success)
            let integer = try #require(try cache.lookup(member: "price", key: .int(3)))
            let double = try #require(try cache.lookup(member: "price", key: .double(3.0)))
            #expect(!integer.isEmpty && !double.isEmpty)
            #expect(Set(integer.map(\.id)).isDisjoint(with: double.map(\.id)))
            let zero = try #require(try cache.lookup(member: "price", key: .double(0.0)))
            let negativeZero = try #require(try cache.lookup(member: "price", key: .double(-0.0)))
            #expect(!zero.isEmpty && !negativeZero.isEmpty)
            #expect(Set(zero.map(\.id)).isDisjoint(with: negativeZero.map(\.id)))
            #expect(try cache.lookup(member: "flag", key: .null)?.count == fixture.trips.filter { $0.values["flag"] == .null }.count)
            #expect(try cache.lookup(member: "flag", key: .bool(true))?.isEmpty == false)
            #expect(try cache.lookup(member: "price", key: .double(.nan)) == [])
            #expect(cache.keyCount(member: "price") == 6)
        }
    }

    @Test func aMemberThatIsNotIndexedHasNoAnswer() throws {
        try withFixture { fixture in
            let cache = try #require(try fixture.open().success)
            #expect(try cache.lookup(member: "startDate", key: .string("City0")) == nil)
            #expect(try cache.missingPostings(member: "startDate") == nil)
            #expect(try cache.unindexedPostings(member: "startDate") == nil)
            #expect(cache.isFullyIndexed(member: "startDate") == nil)
        }
    }

    @Test func openingReadsTheHeaderAndDirectoriesAndALookupOnlyItsPostings() throws {
        try withFixture { fixture in
            let counting = ReadCountingFileSystem()
            let cache = try #require(try fixture.open(fileSystem: counting).success)
            let bytes = try fixture.cacheBytes()
            let regions = try SnapshotCacheRegions(bytes)
            // The prefix is read twice (once alone, once with the header).
            #expect(counting.bytesRead(from: fixture.cache) == Int64(SnapshotCacheFile.prefixLength + regions.directories.upperBound))
            #expect(regions.postings.count > regions.directories.upperBound)
            let before = counting.bytesRead(from: fixture.cache)
            let postings = try #require(try cache.lookup(member: "destination", key: .string("City1")))
            #expect(counting.bytesRead(from: fixture.cache) - before == Int64(postings.count * SnapshotCacheFile.postingLength))
            let snapshotBefore = counting.bytesRead(from: fixture.snapshot)
            _ = try cache.readRecords(postings)
            #expect(counting.bytesRead(from: fixture.snapshot) - snapshotBefore == Int64(postings.reduce(0) { $0 + $1.length + 2 }))
        }
    }

    @Test func theCacheLivesInTheStoresCacheFolderAndIsRewrittenAtomically() throws {
        try withFixture { fixture in
            #expect(fixture.cache == fixture.directory.path + "/cache/Trip.snapshot-cache")
            #expect(fixture.paths.cacheDirectory == fixture.directory.path + "/cache")
            let first = try fixture.cacheBytes()
            try fixture.buildCaches()
            #expect(try fixture.cacheBytes() == first, "the same snapshot gives the same cache")
            #expect(
                try FileManager.default.contentsOfDirectory(atPath: fixture.paths.cacheDirectory).sorted()
                    == [".gitignore", "Tag.snapshot-cache", "Trip.snapshot-cache"], "the caches, and the file that keeps them out of git")
        }
    }

    @Test func recordsInMemoryWithTheirLinesGiveTheBytesOfACacheBuiltFromTheFile() throws {
        try withFixture { fixture in
            let fs = PosixFileSystem()
            let file = try fs.open(fixture.snapshot, .read)
            defer { fs.close(file) }
            var records: [(posting: SnapshotCachePosting, values: RecordValues)] = []
            var headerLine: [UInt8] = []
            _ = try LineScanner.scan(fs, file) { line in
                if line.number == 1 {
                    headerLine = Array(line.bytes)
                    return
                }
                let (id, values) = try #require(try SnapshotFile.fastRecord(line.bytes))
                records.append((SnapshotCachePosting(id: id, offset: line.offset, length: line.bytes.count), values))
            }
            let cached = try #require(try fixture.open().success)
            var source = cached.source
            #expect(source.headerLineChecksum == CRC32.checksum(headerLine))
            #expect(try SnapshotCacheBuilder.build(source: source, members: SnapshotCacheFixture.members, records: records) == fixture.cacheBytes())
            #expect(throws: StorageError.self) {
                try SnapshotCacheBuilder.build(source: source, members: ["rank"], records: records.reversed())
            }
            source.records += 1
            #expect(throws: StorageError.self) { try SnapshotCacheBuilder.build(source: source, members: ["rank"], records: records) }
        }
    }

    @Test func theBuilderRefusesADamagedSnapshotAndBadMemberLists() throws {
        try withFixture { fixture in
            for members in [["a", "a"], [""]] {
                #expect(throws: StorageError.self) {
                    try SnapshotCacheBuilder.build(snapshotAt: fixture.snapshot, members: members, fileSystem: PosixFileSystem())
                }
            }
            var bytes = try readBytes(URL(fileURLWithPath: fixture.snapshot))
            let secondLine = try #require(bytes.firstIndex(of: 0x0A)) + 1
            bytes[secondLine + 30] ^= 0x01
            try writeBytes(bytes, to: URL(fileURLWithPath: fixture.snapshot))
            do {
                _ = try SnapshotCacheBuilder.build(snapshotAt: fixture.snapshot, members: ["rank"], fileSystem: PosixFileSystem())
                Issue.record("a damaged snapshot was indexed")
            } catch let error as StorageError {
                #expect(error.file == fixture.snapshot)
                #expect(error.line == 2)
            }
        }
    }

    // MARK: Unusable caches

    @Test func aMissingCacheIsMissing() throws {
        try withFixture { fixture in
            try FileManager.default.removeItem(atPath: fixture.cache)
            let problem = try #require(try fixture.open().failure)
            #expect(problem.reason == .missing)
            #expect(problem.path == fixture.cache)
        }
    }

    @Test func aSnapshotRewrittenByALaterCompactionMakesTheCacheStale() throws {
        try withFixture { fixture in
            let store = try Store.open(at: fixture.directory, configuration: StoreConfiguration(compactionThreshold: nil))
            try store.write(author: "tests") { tx in try tx.insert(entity: "Trip", id: tx.allocateID(), values: ["destination": .string("City0")]) }
            try store.compact()
            store.close()
            #expect(try reason(fixture) == .stale)
            // Built again, it is usable and sees the new record.
            try fixture.buildCaches()
            let cache = try #require(try fixture.open().success)
            #expect(
                try cache.lookup(member: "destination", key: .string("City0"))?.count
                    == (try fixture.scan(member: "destination", key: .string("City0")).count + 1))
        }
    }

    @Test func aSnapshotEditedInPlaceOrRemovedMakesTheCacheStale() throws {
        try withFixture { fixture in
            // The same bytes written again: a new modification time.
            let url = URL(fileURLWithPath: fixture.snapshot)
            let bytes = try readBytes(url)
            try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -3600)], ofItemAtPath: fixture.snapshot)
            #expect(try reason(fixture) == .stale)
            try fixture.buildCaches()
            #expect(try fixture.open().success != nil)
            try FileManager.default.removeItem(at: url)
            #expect(try reason(fixture) == .stale)
            try writeBytes(bytes, to: url)
            #expect(try reason(fixture) == .stale)
        }
    }

    @Test func anotherEntitysCacheCopiedInPlaceIsForeign() throws {
        try withFixture { fixture in
            try FileManager.default.removeItem(atPath: fixture.cache)
            try FileManager.default.copyItem(atPath: fixture.paths.snapshotCache("Tag"), toPath: fixture.cache)
            let problem = try #require(try fixture.open().failure)
            #expect(problem.reason == .foreign)
            #expect(problem.detail.contains("Tag"))
        }
    }

    @Test func anotherMagicVersionOrKindOfFileIsForeign() throws {
        try withFixture { fixture in
            let original = try fixture.cacheBytes()
            for offset in [0, 7, 8, 11] {
                var bytes = original
                bytes[offset] ^= 0x02
                try fixture.writeCache(bytes)
                #expect(try reason(fixture) == .foreign, "byte \(offset)")
            }
            try fixture.writeCache(Array("{\"$crc\":\"00000000\"}\n".utf8))
            #expect(try reason(fixture) == .foreign)
            try FileManager.default.removeItem(atPath: fixture.cache)
            try FileManager.default.createDirectory(atPath: fixture.cache, withIntermediateDirectories: false)
            #expect(try reason(fixture) == .foreign)
            try FileManager.default.removeItem(atPath: fixture.cache)
            try FileManager.default.createSymbolicLink(atPath: fixture.cache, withDestinationPath: fixture.paths.snapshotCache("Tag"))
            #expect(try reason(fixture) == .foreign)

            // A cache folder that is a link to a folder elsewhere: neither read nor written.
            let valid = try SnapshotCacheBuilder.build(snapshotAt: fixture.snapshot, members: ["rank"], fileSystem: PosixFileSystem())
            let elsewhere = fixture.directory.appending("elsewhere")
            try FileManager.default.moveItem(atPath: fixture.paths.cacheDirectory, toPath: elsewhere.path)
            try FileManager.default.createSymbolicLink(atPath: fixture.paths.cacheDirectory, withDestinationPath: elsewhere.path)
            try FileManager.default.removeItem(at: elsewhere.appending("Trip.snapshot-cache"))
            try writeBytes(valid, to: elsewhere.appending("Trip.snapshot-cache"))
            #expect(try reason(fixture) == .foreign)
            do {
                try fixture.buildCaches()
                Issue.record("a cache was written through a linked folder")
            } catch let error as StorageError {
                #expect(error.code == .outsideStore)
            }
        }
    }

    @Test func aTruncatedCacheIsTruncated() throws {
        try withFixture { fixture in
            let original = try fixture.cacheBytes()
            let regions = try SnapshotCacheRegions(original)
            for length in [
                0, 1, 7, 8, 27, 28, 60, regions.headerLength - 1, regions.headerLength, regions.directories.upperBound,
                original.count / 2, original.count - 1,
            ] {
                try fixture.writeCache(Array(original[0..<length]))
                #expect(try reason(fixture) == .truncated, "truncated to \(length) of \(original.count) bytes")
            }
        }
    }

    @Test func aFlippedByteInTheHeaderOrADirectoryIsDamage() throws {
        try withFixture { fixture in
            let original = try fixture.cacheBytes()
            let regions = try SnapshotCacheRegions(original)
            // Every byte after the magic and version: the prefix, the header, the directories.
            for offset in 12..<regions.directories.upperBound {
                var bytes = original
                bytes[offset] ^= UInt8(1 << (offset % 8))
                try fixture.writeCache(bytes)
                // The prefix's checksum is checked before its lengths are believed.
                #expect(try reason(fixture) == .damaged, "byte \(offset)")
            }
            // A file longer than it was written.
            try fixture.writeCache(original + [0])
            #expect(try reason(fixture) == .damaged)
        }
    }

    @Test func aFlippedPostingByteNeverYieldsAWrongRecord() throws {
        try withFixture { fixture in
            let original = try fixture.cacheBytes()
            let regions = try SnapshotCacheRegions(original)
            var expectations: [(member: String, key: JSONValue, ids: [Int64])] = []
            for member in ["destination", "note", "rank"] {
                for key in fixture.keys(of: member) { expectations.append((member, key, try fixture.scan(member: member, key: key).map(\.id))) }
            }
            var caught = 0, caughtByChecksum = 0
            for offset in stride(from: regions.postings.lowerBound, to: regions.postings.upperBound, by: 23) {
                var bytes = original
                bytes[offset] ^= UInt8(1 << (offset % 8))
                try fixture.writeCache(bytes)
                let cache = try #require(try fixture.open().success, "postings are read only by lookups")
                for (member, key, ids) in expectations {
                    do {
                        guard let postings = try cache.lookup(member: member, key: key) else { continue }
                        let records = try cache.readRecords(postings)
                        #expect(records.map(\.id) == ids, "byte \(offset): \(member) = \(key)")
                    } catch let error as StorageError {
                        #expect(error.file == fixture.cache)
                        caught += 1
                        if error.code == .checksumMismatch && error.message.contains("fail their checksum") { caughtByChecksum += 1 }
                    }
                }
                for member in ["destination", "note"] {
                    do {
                        let missing = try cache.missingPostings(member: member) ?? []
                        #expect(try cache.readRecords(missing).map(\.id) == fixture.trips.filter { $0.values[member] == nil }.map(\.id))
                    } catch let error as StorageError {
                        #expect(error.file == fixture.cache)
                        caught += 1
                    }
                }
            }
            #expect(caught > 0)
            #expect(caughtByChecksum > 0, "the postings' own checksum catches flips before any line is read")
        }
    }

    @Test func aPostingThatPointsAtTheWrongLineIsRefusedByReadRecord() throws {
        try withFixture { fixture in
            let cache = try #require(try fixture.open().success)
            let postings = try #require(try cache.lookup(member: "destination", key: .string("City0")))
            let first = try #require(postings.first)
            let other = try #require(postings.dropFirst().first)
            let forged = [
                (SnapshotCachePosting(id: other.id, offset: first.offset, length: first.length), StorageError.Code.inconsistentStore),
                (SnapshotCachePosting(id: first.id, offset: first.offset + 1, length: first.length - 1), .malformedLine),
                (SnapshotCachePosting(id: first.id, offset: first.offset, length: first.length - 1), .malformedLine),
                (SnapshotCachePosting(id: first.id, offset: first.offset, length: first.length + 1), .malformedLine),
                (SnapshotCachePosting(id: first.id, offset: 0, length: first.length), .malformedLine),
                (SnapshotCachePosting(id: first.id, offset: cache.source.size - 2, length: 50), .malformedLine),
                (SnapshotCachePosting(id: first.id, offset: Int64.max - 10, length: Int(Int32.max)), .malformedLine),
                (SnapshotCachePosting(id: first.id, offset: -5, length: 10), .malformedLine),
            ]
            for (posting, code) in forged {
                do {
                    let record = try cache.readRecord(posting)
                    Issue.record("read \(record.id) through a forged posting \(posting)")
                } catch let error as StorageError {
                    #expect(error.code == code, "\(posting): \(error)")
                    #expect(error.file == fixture.cache)
                    #expect(error.message.contains("record \(posting.id)"))
                }
            }
            // A line whose checksum fails, with the posting's own id.
            var snapshot = try readBytes(URL(fileURLWithPath: fixture.snapshot))
            let digit = Int(first.offset) + first.length - 3
            snapshot[digit] ^= 0x01
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: fixture.snapshot))
            try handle.seek(toOffset: UInt64(digit))
            try handle.write(contentsOf: [snapshot[digit]])
            try handle.close()
            #expect(throws: StorageError.self) { try cache.readRecord(first) }
        }
    }

    @Test func countsClaimingMoreThanTheFileHoldsAreDamageWithoutAHugeAllocation() throws {
        try withFixture { fixture in
            let original = try fixture.cacheBytes()
            let regions = try SnapshotCacheRegions(original)
            let entityLength = Int(LittleEndianReader.u32(original, at: 84))
            let firstMember = SnapshotCacheFile.fixedHeaderLength + entityLength
            let nameLength = Int(LittleEndianReader.u32(original, at: firstMember))
            let member = firstMember + 4 + nameLength
            let huge = UInt64(1) << 60
            let edits: [(String, (inout [UInt8]) -> Void)] = [
                ("member count", { SnapshotCacheRegions.store(UInt32.max, in: &$0, at: 88) }),
                ("entity name length", { SnapshotCacheRegions.store(UInt32.max, in: &$0, at: 84) }),
                ("member name length", { SnapshotCacheRegions.store(UInt32.max - 1, in: &$0, at: firstMember) }),
                ("directory length", { SnapshotCacheRegions.store(huge, in: &$0, at: member + 8) }),
                ("key count", { SnapshotCacheRegions.store(huge, in: &$0, at: member + 16) }),
                ("directory offset", { SnapshotCacheRegions.store(huge, in: &$0, at: member) }),
                ("missing postings count", { SnapshotCacheRegions.store(huge, in: &$0, at: member + 36) }),
                ("unindexed postings offset", { SnapshotCacheRegions.store(UInt64.max, in: &$0, at: member + 48) }),
            ]
            for (name, edit) in edits {
                var bytes = original
                edit(&bytes)
                SnapshotCacheRegions.resign(&bytes)
                try fixture.writeCache(bytes)
                let counting = ReadCountingFileSystem()
                let found = try fixture.open(fileSystem: counting).failure?.reason
                #expect(found == .damaged, "\(name)")
                #expect(counting.largestRead <= original.count, "\(name): read \(counting.largestRead) bytes at once")
            }
            // A header length past the file, its prefix re-signed: nothing sized by it either.
            var bytes = original
            SnapshotCacheRegions.store(UInt32.max, in: &bytes, at: 12)
            SnapshotCacheRegions.store(CRC32.checksum(Array(bytes[0..<24])), in: &bytes, at: 24)
            try fixture.writeCache(bytes)
            #expect(try reason(fixture) == .damaged)

            // A file length past the file's size, re-signed: truncated, and nothing sized by it.
            bytes = original
            SnapshotCacheRegions.store(huge, in: &bytes, at: 16)
            SnapshotCacheRegions.resign(&bytes)
            try fixture.writeCache(bytes)
            #expect(try reason(fixture) == .truncated)

            // A directory entry claiming 2^60 postings, its directory re-signed too.
            bytes = original
            let directoryOffset = Int(LittleEndianReader.u64(original, at: member))
            SnapshotCacheRegions.store(huge, in: &bytes, at: directoryOffset + 24)
            let directoryLength = Int(LittleEndianReader.u64(original, at: member + 8))
            SnapshotCacheRegions.store(
                CRC32.checksum(Array(bytes[directoryOffset..<(directoryOffset + directoryLength)])), in: &bytes, at: member + 24)
            SnapshotCacheRegions.resign(&bytes)
            try fixture.writeCache(bytes)
            #expect(try reason(fixture) == .damaged)
            #expect(regions.directories.contains(directoryOffset))
        }
    }

    // MARK: The store's tools

    @Test func verifyRepairAndCompactionLeaveTheCacheFolderAlone() throws {
        try withFixture { fixture in
            let leftover = fixture.cache + ".tmp-1-abc"
            try writeBytes([1, 2, 3], to: URL(fileURLWithPath: leftover))
            let verification = StoreVerifier.verify(at: fixture.directory)
            #expect(verification.isHealthy, "\(verification.problems)")
            #expect(verification.warnings.contains { $0.contains("Trip.snapshot-cache.tmp-1-abc") })
            let report = try StoreRepair.repair(at: fixture.directory)
            #expect(report.remainingProblems.isEmpty)
            #expect(!FileManager.default.fileExists(atPath: leftover))
            #expect(try fixture.open().success != nil, "repair keeps the cache")

            try writeBytes([1, 2, 3], to: URL(fileURLWithPath: leftover))
            let store = try Store.open(at: fixture.directory, configuration: StoreConfiguration(compactionThreshold: nil))
            try store.write(author: "tests") { tx in try tx.insert(entity: "Trip", id: tx.allocateID(), values: ["destination": .string("City9")]) }
            try store.compact()
            store.close()
            #expect(!FileManager.default.fileExists(atPath: leftover), "compaction removes leftover temporary files")
            #expect(FileManager.default.fileExists(atPath: fixture.cache))
            #expect(StoreVerifier.verify(at: fixture.directory).isHealthy)
        }
    }

    // MARK: Rebuilt after a load

    /// After a load, a missing cache is written from the records in memory when none changed since the
    /// snapshot, and from the snapshot read again when some did: both give the bytes a build from the
    /// file alone gives.
    @Test func aCacheRebuiltAfterALoadIsTheOneTheSnapshotGives() throws {
        try withFixture { fixture in
            let expected = try Data(contentsOf: URL(fileURLWithPath: fixture.cache))
            var configuration = StoreConfiguration(compactionThreshold: nil)
            configuration.cachedMembers = ["Trip": SnapshotCacheFixture.members]

            try FileManager.default.removeItem(atPath: fixture.cache)
            var store = try Store.open(at: fixture.directory, configuration: configuration)
            #expect(store.records(of: "Trip").count == fixture.trips.count)
            store.close()
            #expect(try Data(contentsOf: URL(fileURLWithPath: fixture.cache)) == expected, "from the loaded records")

            store = try Store.open(at: fixture.directory, configuration: configuration)
            try store.write(author: "tests") { tx in
                try tx.update(entity: "Trip", id: fixture.trips[0].id, values: ["destination": .string("Elsewhere")])
            }
            store.close()
            try FileManager.default.removeItem(atPath: fixture.cache)
            store = try Store.open(at: fixture.directory, configuration: configuration)
            #expect(store.records(of: "Trip").first { $0.id == fixture.trips[0].id }?.values["destination"] == .string("Elsewhere"))
            store.close()
            #expect(try Data(contentsOf: URL(fileURLWithPath: fixture.cache)) == expected, "from the snapshot, with a journal over it")
        }
    }
}
