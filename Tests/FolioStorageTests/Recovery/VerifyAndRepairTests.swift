import Foundation
import Testing
@testable import FolioStorage

@Suite("Verify and repair")
struct VerifyAndRepairTests {
    @Test func verificationListsEveryProblemNotJustTheFirst() throws {
        try withTemporaryDirectory { url in
            _ = try makeStore(at: url, transactions: 12, compactAfter: 6)
            let journal = url.appending("journal.jsonl")
            var bytes = try readBytes(journal)
            let starts = [0] + bytes.indices.filter { bytes[$0] == 0x0A }.map { $0 + 1 }
            bytes[starts[1] + 30] ^= 0x04
            bytes[starts[4] + 30] ^= 0x04
            try writeBytes(bytes, to: journal)
            let snapshot = url.appending("snapshots/Item.jsonl")
            var snapshotBytes = try readBytes(snapshot)
            snapshotBytes[snapshotBytes.count - 10] ^= 0x02
            try writeBytes(snapshotBytes, to: snapshot)
            let verification = StoreVerifier.verify(at: url)
            let located = verification.problems.map {
                "\(($0.file ?? "").split(separator: "/").suffix(2).joined(separator: "/")):\($0.line ?? 0) \($0.code)"
            }
            #expect(located.contains("s/journal.jsonl:2 checksumMismatch") || located.contains { $0.hasSuffix("journal.jsonl:2 checksumMismatch") })
            #expect(located.contains { $0.hasSuffix("journal.jsonl:5 checksumMismatch") })
            #expect(
                located.contains {
                    $0.hasSuffix("snapshots/Item.jsonl") == false && $0.contains("snapshots/Item.jsonl:") && $0.hasSuffix("checksumMismatch")
                })
        }
    }

    @Test func aHealthyStoreVerifiesClean() throws {
        try withTemporaryDirectory { url in
            _ = try makeStore(at: url, transactions: 12, compactAfter: 6)
            let verification = StoreVerifier.verify(at: url)
            #expect(verification.isHealthy)
            #expect(verification.warnings.isEmpty)
        }
    }

    @Test func repairTruncatesATornTailAndSaysSo() throws {
        try withTemporaryDirectory { url in
            let content = try makeStore(at: url, transactions: 5)
            let journal = url.appending("journal.jsonl")
            let intact = try readBytes(journal)
            try writeBytes(intact + Array(#"{"$crc":"ab"#.utf8), to: journal)
            #expect(StoreVerifier.verify(at: url).warnings.count == 1)
            let report = try StoreRepair.repair(at: url)
            #expect(report.actions.count == 1)
            #expect(report.actions.first?.contains("line 6") == true)
            #expect(report.remainingProblems.isEmpty)
            #expect(try readBytes(journal) == intact)
            #expect(try String(contentsOf: url.appending("journal.jsonl.corrupt-tail"), encoding: .utf8) == "{\"$crc\":\"ab\n")
            #expect(StoreContent(try Store.open(at: url)) == content)
        }
    }

    @Test func repairWithoutPermissionNeverDropsAMidFileLine() throws {
        try withTemporaryDirectory { url in
            _ = try makeStore(at: url, transactions: 5)
            let journal = url.appending("journal.jsonl")
            var bytes = try readBytes(journal)
            bytes[20] ^= 0x01
            try writeBytes(bytes, to: journal)
            let report = try StoreRepair.repair(at: url)
            #expect(report.actions.isEmpty)
            #expect(report.remainingProblems.first?.code == .checksumMismatch)
            #expect(try readBytes(journal) == bytes)
        }
    }

    @Test func repairMovesDamagedLinesAsideAfterABackup() throws {
        try withTemporaryDirectory { url in
            let store = try Store.open(at: url)
            var ids: [Int64] = []
            for n in 0..<6 {
                try store.write { tx in
                    let id = tx.allocateID()
                    ids.append(id)
                    try tx.insert(entity: "Item", id: id, values: ["n": .int(Int64(n))])
                }
            }
            store.close()
            let journal = url.appending("journal.jsonl")
            var bytes = try readBytes(journal)
            let starts = [0] + bytes.indices.filter { bytes[$0] == 0x0A }.map { $0 + 1 }
            bytes[starts[2] + 25] ^= 0x01  // line 3
            try writeBytes(bytes, to: journal)
            let report = try StoreRepair.repair(at: url, options: RepairOptions(moveDamagedLines: true))
            #expect(report.backups.count == 1)
            #expect(try readBytes(URL(fileURLWithPath: report.backups[0])) == bytes)
            #expect(report.actions.contains { $0.contains("moved line 3") })
            #expect(report.actions.contains { $0.contains("empty transaction 3") })
            #expect(report.remainingProblems.isEmpty)
            let repaired = try Store.open(at: url)
            #expect(repaired.lastSequence == 6)
            #expect(repaired.count(of: "Item") == 5)
            #expect(repaired.record(id: ids[2]) == nil)
            #expect(FileManager.default.fileExists(atPath: url.appending("journal.jsonl.damaged").path))
        }
    }
}
