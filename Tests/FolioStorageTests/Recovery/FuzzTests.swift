import Foundation
import Testing
@testable import FolioStorage

/// Random damage to real store files: the loader never crashes or hangs; it opens (recovering a torn
/// tail) or throws a ``StorageError``; verification lists problems instead of stopping. 400 cases by
/// default, 5,000 with `FOLIO_LONG_TESTS=1`. Reproducible: the seed is printed in each failure.
@Suite("Fuzzing the loader", .timeLimit(.minutes(30)))
struct FuzzTests {
    static func mutate(_ bytes: [UInt8], other: [UInt8], using random: inout SeededGenerator) -> [UInt8] {
        var bytes = bytes
        for _ in 0..<Int.random(in: 1...3, using: &random) {
            let count = bytes.count
            switch Int.random(in: 0..<8, using: &random) {
            case 0 where count > 0:  // flip bits
                bytes[Int.random(in: 0..<count, using: &random)] ^= UInt8.random(in: 1...255, using: &random)
            case 1 where count > 0:  // truncate
                bytes.removeLast(Int.random(in: 1...count, using: &random))
            case 2:  // insert random bytes
                let junk = (0..<Int.random(in: 1...40, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
                bytes.insert(contentsOf: junk, at: Int.random(in: 0...count, using: &random))
            case 3 where count > 0:  // duplicate a range (a bad union merge)
                let start = Int.random(in: 0..<count, using: &random)
                let end = Int.random(in: start...count, using: &random)
                bytes.insert(contentsOf: bytes[start..<end], at: Int.random(in: 0...count, using: &random))
            case 4:  // concatenate another file
                bytes += other
            case 5 where count > 0:  // delete a range
                let start = Int.random(in: 0..<count, using: &random)
                bytes.removeSubrange(start..<min(count, start + Int.random(in: 1...200, using: &random)))
            case 6:  // append NULs or a conflict marker
                bytes += Bool.random(using: &random) ? [UInt8](repeating: 0, count: 12) : Array("<<<<<<< HEAD\n".utf8)
            default:  // swap two lines
                var lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: false).map { Array($0) }
                if lines.count > 2 {
                    lines.swapAt(Int.random(in: 0..<lines.count, using: &random), Int.random(in: 0..<lines.count, using: &random))
                    bytes = Array(lines.joined(separator: [0x0A]))
                }
            }
        }
        return bytes
    }

    @Test func randomlyDamagedFilesNeverCrashTheLoader() throws {
        try withTemporaryDirectory { root in
            let template = root.appending("template")
            try makeDamageTemplate(at: template)
            let files = ["journal.jsonl", "snapshots/Item.jsonl", "snapshots/Tag.jsonl", "history.jsonl", "manifest.json"]
            let originals = try files.map { try readBytes(template.appending($0)) }
            let seed = UInt64(Date().timeIntervalSince1970)
            var random = SeededGenerator(seed: seed)
            var opened = 0
            var refused = 0
            for iteration in 0..<(longTests ? 5000 : 400) {
                let work = root.appending("work")
                try copyDirectory(template, to: work)
                let target = Int.random(in: 0..<files.count, using: &random)
                let other = originals[Int.random(in: 0..<files.count, using: &random)]
                try writeBytes(Self.mutate(originals[target], other: other, using: &random), to: work.appending(files[target]))
                do {
                    let store = try Store.open(at: work)
                    opened += 1
                    _ = store.entityNames.map { store.records(of: $0) }
                    store.close()
                } catch let error as StorageError {
                    refused += 1
                    #expect(error.file != nil, "seed \(seed) iteration \(iteration): \(error) names no file")
                    let verification = StoreVerifier.verify(at: work)
                    #expect(!verification.problems.isEmpty, "seed \(seed) iteration \(iteration): open failed but verify found nothing")
                } catch {
                    Issue.record("seed \(seed) iteration \(iteration): untyped error \(error)")
                }
            }
            #expect(opened > 0 && refused > 0)
        }
    }

    @Test func randomBytesNeverCrashTheJSONReader() {
        var random = SeededGenerator(seed: 1234)
        let alphabet = Array(#"{}[],:"\/0123456789.eE+-truefalsnl u"#.utf8) + [0x00, 0xFF, 0xC3, 0xA9, 0x0A]
        for _ in 0..<(longTests ? 200_000 : 20_000) {
            let bytes = (0..<Int.random(in: 0...40, using: &random)).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &random)] }
            do {
                let value = try JSONReader().parse(bytes)
                // Whatever parses must re-encode and parse back to the same value.
                if let canonical = try? value.canonicalBytes() { #expect(try JSONReader().parse(canonical) == value) }
            } catch {
                #expect(error.code == .invalidJSON)
            }
        }
    }
}
