import Foundation
import Testing
@testable import FolioStorage

/// What git answers is parsed within bounds: a listing or a blob in an unexpected form is a typed
/// `gitFailed`, never a trap or an allocation of a size git claims.
@Suite("Parsing git's answers")
struct GitAnswerParsingTests {
    static let object = String(repeating: "ab", count: 20)

    @Test func aTreeListingGivesEachEntrysKindObjectSizeAndPath() throws {
        let listing =
            "100644 blob \(Self.object)     120\tjournal.jsonl\u{0}120000 blob \(Self.object)      11\tsnapshots/Item.jsonl\u{0}"
            + "160000 commit \(Self.object)       -\tblobs\u{0}"
        let entries = try GitTreeListing.parse(Array(listing.utf8), tree: "HEAD:s")
        #expect(
            entries == [
                GitTreeEntry(kind: .regularFile, object: Self.object, size: 120, path: "journal.jsonl"),
                GitTreeEntry(kind: .symbolicLink, object: Self.object, size: 11, path: "snapshots/Item.jsonl"),
                GitTreeEntry(kind: .submodule, object: Self.object, size: 0, path: "blobs"),
            ])
    }

    @Test(arguments: [
        "100644 blob \(object) 99999999999999999999\tjournal.jsonl",
        "100644 blob \(object) -5\tjournal.jsonl",
        "100644 blob XYZ 5\tjournal.jsonl",
        "040000 tree \(object) -\tsnapshots",
        "100644 blob \(object) 5 journal.jsonl",
        "100644 blob \(object) 5\t",
    ])
    func anUnexpectedListingIsGitFailing(_ listing: String) {
        #expect { try GitTreeListing.parse(Array(listing.utf8), tree: "HEAD:s") } throws: { ($0 as? StorageError)?.code == .gitFailed }
    }

    @Test func randomListingsNeverTrap() {
        var random = SeededGenerator(seed: 3)
        let valid = Array("100644 blob \(Self.object)     120\tjournal.jsonl\u{0}".utf8)
        for _ in 0..<2_000 {
            var bytes = valid
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                bytes[Int.random(in: 0..<bytes.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
            }
            if let entries = try? GitTreeListing.parse(bytes, tree: "t") {
                #expect(entries.allSatisfy { $0.size >= 0 && !$0.path.isEmpty })
            }
        }
    }

    @Test func aBlobIsReadAtTheSizeTheListingGaveIt() throws {
        let answer = Array("\(Self.object) blob 5\nhello\n".utf8)
        let batch = try GitObjectBatch.parse(answer, objects: [(Self.object, 5)])
        #expect(batch.ranges[Self.object].map { Array(batch.buffer[$0]) } == Array("hello".utf8))
    }

    @Test(arguments: [
        "OBJECT missing\n",
        "OBJECT blob 6\nhello!\n",
        "OBJECT blob 5\nhel",
        "OBJECT blob 5\nhelloX",
        "OBJECT tree 5\nhello\n",
        "",
    ])
    func anAnswerOfAnotherObjectSizeOrLengthIsGitFailing(_ template: String) {
        let answer = Array(template.replacingOccurrences(of: "OBJECT", with: Self.object).utf8)
        #expect { try GitObjectBatch.parse(answer, objects: [(Self.object, 5)]) } throws: { ($0 as? StorageError)?.code == .gitFailed }
    }

    @Test(arguments: ["", "-h", "--output=/tmp/x", "HEAD\nmain", "a\u{0}b", "x\u{7F}"])
    func anOptionOrAControlCharacterIsNoRevision(_ revision: String) {
        #expect { try GitStoreRevision.checkRevision(revision) } throws: { ($0 as? StorageError)?.code == .unknownRevision }
    }

    @Test func aStorePathIsNormalizedAndKeptInsideTheRepository() throws {
        #expect(try GitStoreRevision.normalizedStorePath("./data//Items.folio/") == "data/Items.folio")
        #expect(try GitStoreRevision.normalizedStorePath(".") == "")
        for path in ["/etc", "../x", "a/../../b", "a\nb"] {
            #expect { try GitStoreRevision.normalizedStorePath(path) } throws: { ($0 as? StorageError)?.code == .noStoreAtRevision }
        }
    }
}
