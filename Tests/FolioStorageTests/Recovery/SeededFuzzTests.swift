import Foundation
import Testing
@testable import FolioStorage

/// Seeded damage to journals, snapshots, history and manifests, including hostile edits with correct
/// checksums (huge counts, sequences and identifiers, numbers past 64 bits, lines past the limit):
/// opening never crashes or hangs, reads through a buffer of at most the line limit, and gives either
/// exactly the original state (or, for a journal whose first lines are intact, the state after them),
/// or a typed error naming a file that verification also reports. A re-signed edit that opens must
/// leave a store that can be written and opened again. 300 cases, 3,000 with `FOLIO_LONG_TESTS=1`;
/// `FOLIO_FUZZ_SEED` replays another seed.
///
/// The time limit only catches a hang: it is generous, so that a busy machine (where tests wait for
/// one of two cores) makes the suite slower, never failing it.
@Suite("Fuzzing store files with a seed", .timeLimit(.minutes(30)))
struct SeededFuzzTests {
    static let limit = 64 << 10
    static let files = ["journal.jsonl", "snapshots/Item.jsonl", "snapshots/Tag.jsonl", "history.jsonl", "manifest.json"]
    static let hostileValues: [JSONValue] = [
        .int(.max), .int(.min), .int(-1), .int(0), .int(50_000_000), .int(Int64.max >> 1), .double(1e300), .string("7"),
        .object(["$blob": .string("../../x")]),
    ]

    static func configuration(_ fs: any FileSystem, readOnly: Bool = true) -> StoreConfiguration {
        var configuration = StoreConfiguration(compactionThreshold: nil, readOnly: readOnly)
        configuration.maximumLineBytes = limit
        configuration.fileSystem = fs
        return configuration
    }

    static func lines(_ bytes: [UInt8]) -> [[UInt8]] {
        var lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: false).map(Array.init)
        if lines.last?.isEmpty == true { lines.removeLast() }
        return lines
    }

    /// An edit that keeps the checksum right: one member of one line set to a hostile value.
    static func resign(_ bytes: [UInt8], using random: inout SeededGenerator) -> [UInt8]? {
        var lines = lines(bytes)
        guard !lines.isEmpty else { return nil }
        let index = Int.random(in: 0..<lines.count, using: &random)
        guard var members = try? lines[index].withUnsafeBufferPointer({ try LineFraming.decode($0) }), !members.isEmpty else { return nil }
        let key = members.keys.sorted()[Int.random(in: 0..<members.count, using: &random)]
        members[key] = hostileValues[Int.random(in: 0..<hostileValues.count, using: &random)]
        guard let line = try? LineFraming.encode(members) else { return nil }
        lines[index] = Array(line.dropLast())
        return Array(lines.joined(separator: [0x0A])) + [0x0A]
    }

    /// Damage of the kinds hand-made stores showed: a line without a newline past the limit, an
    /// integer no number holds, or the random damage of ``FuzzTests``.
    static func damage(_ bytes: [UInt8], other: [UInt8], using random: inout SeededGenerator) -> [UInt8] {
        var bytes = bytes
        switch Int.random(in: 0..<6, using: &random) {
        case 0:
            let at = Int.random(in: 0...bytes.count, using: &random)
            // Longer than the scanner's buffer, which a reader without a bound would grow to hold it.
            bytes.insert(
                contentsOf: repeatElement(UInt8(ascii: "7"), count: LineScanner.chunkSize + Int.random(in: 1...limit, using: &random)), at: at)
        case 1:
            if let digit = bytes.firstIndex(where: { $0 >= UInt8(ascii: "1") && $0 <= UInt8(ascii: "9") }) {
                bytes.insert(contentsOf: Array("12345678901234567890123".utf8), at: digit)
            }
        default:
            bytes = FuzzTests.mutate(bytes, other: other, using: &random)
        }
        return bytes
    }

    @Test func damagedOrHostileFilesGiveTheOriginalStateOrATypedError() throws {
        try withTemporaryDirectory { root in
            let template = root.appending("template")
            try makeDamageTemplate(at: template)
            let originals = try Self.files.map { try readBytes(template.appending($0)) }
            let posix = PosixFileSystem()
            // The state after each prefix of the journal's lines: what a journal cut after intact lines opens to.
            let journalLines = Self.lines(originals[0])
            var prefixStates: [StoreContent] = []
            for count in 0...journalLines.count {
                let copy = root.appending("prefix")
                try copyDirectory(template, to: copy)
                try writeBytes(journalLines.prefix(count).flatMap { $0 + [0x0A] }, to: copy.appending("journal.jsonl"))
                let store = try Store.open(at: copy, configuration: Self.configuration(posix))
                prefixStates.append(StoreContent(store))
                store.close()
            }
            let original = prefixStates[journalLines.count]
            // Blame read from the files reads less than an open: of a damaged store it may answer or
            // refuse, but where the opened store answers, it answers the same.
            let blamed = original.records.map(\.id) + [original.nextID + 5]
            let seed = ProcessInfo.processInfo.environment["FOLIO_FUZZ_SEED"].flatMap { UInt64($0) } ?? 2026_12_01
            var random = SeededGenerator(seed: seed)
            var outcomes = (original: 0, prefix: 0, refused: 0, edited: 0)
            for iteration in 0..<(longTests ? 3000 : 300) {
                let context = "seed \(seed) iteration \(iteration)"
                let work = root.appending("work")
                try copyDirectory(template, to: work)
                let target = Int.random(in: 0..<Self.files.count, using: &random)
                let other = originals[Int.random(in: 0..<Self.files.count, using: &random)]
                let resigned = Bool.random(using: &random) ? Self.resign(originals[target], using: &random) : nil
                let mutated = resigned ?? Self.damage(originals[target], other: other, using: &random)
                try writeBytes(mutated, to: work.appending(Self.files[target]))
                let fs = ReadCountingFileSystem()
                do {
                    let store = try Store.open(at: work, configuration: Self.configuration(fs))
                    let content = StoreContent(store)
                    store.close()
                    if content == original {
                        outcomes.original += 1
                    } else if target == 0, let count = prefixStates.firstIndex(of: content),
                        Self.lines(mutated).prefix(count).elementsEqual(journalLines.prefix(count))
                    {
                        outcomes.prefix += 1
                    } else if resigned != nil {
                        // A consistent edit, not damage: the store it leaves must go on working.
                        outcomes.edited += 1
                        let writable = try Store.open(at: work, configuration: Self.configuration(posix, readOnly: false))
                        try writable.write { tx in try tx.insert(entity: "Item", id: tx.allocateID(), values: ["title": .string("after")]) }
                        writable.close()
                        let reopened = try Store.open(at: work, configuration: Self.configuration(posix))
                        #expect(reopened.lastSequence == content.lastSequence + 1, "\(context)")
                        reopened.close()
                    } else {
                        Issue.record("\(context): damage to \(Self.files[target]) opened to \(content), not the original \(original)")
                    }
                } catch let error as StorageError {
                    outcomes.refused += 1
                    #expect(error.file != nil, "\(context): \(error) names no file")
                    let verification = StoreVerifier.verify(at: work, configuration: Self.configuration(fs))
                    #expect(!verification.problems.isEmpty, "\(context): open failed (\(error)) but verify found nothing")
                } catch {
                    Issue.record("\(context): untyped error \(error)")
                }
                let opened = try? Store.open(at: work, configuration: Self.configuration(posix))
                defer { opened?.close() }
                for id in [blamed.randomElement(using: &random), blamed.last].compactMap({ $0 }) {
                    do {
                        let blame = try Store.blame(id: id, inStoreAt: work, configuration: Self.configuration(fs))
                        if let blame, let full = try? opened?.blame(id: id) {
                            #expect(blame == full, "\(context): blame of \(id) from the files and from the opened store")
                        }
                    } catch is StorageError {
                    } catch {
                        Issue.record("\(context): blame of \(id): untyped error \(error)")
                    }
                }
                // The scanner's buffer is at most max(chunk, limit + 2) bytes, whatever the file holds.
                #expect(fs.largestRead <= max(LineScanner.chunkSize, Self.limit + 2), "\(context): a read of \(fs.largestRead) bytes")
            }
            print("FUZZ seed \(seed): \(outcomes)")
            #expect(outcomes.original > 0 && outcomes.refused > 0)
        }
    }
}
