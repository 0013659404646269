import Foundation
import FolioStorage
import Testing

/// `folio compact` leaves every date attribute in the canonical form: the fewest fraction digits that
/// read back as the same date, where stores written before carried the fraction's binary expansion.
@Suite("Compact rewrites old date forms")
struct CompactDateRewriteTests {
    static let oldForm = "2022-07-20T05:19:19.3229999542236328Z"
    static let newForm = "2022-07-20T05:19:19.323Z"

    /// A library store whose first author was born at a date in the old long form, compacted so that
    /// the old form is in the snapshot as well as in history.
    static func writeOldFormStore(to url: URL) throws {
        try LibraryStore.write(to: url)
        let store = try Store.open(at: url)
        defer { store.close() }
        try store.write(author: "old build") { transaction in
            try transaction.update(entity: "Author", id: 1, values: ["born": .string(oldForm)])
            try transaction.update(entity: "Book", id: 3, values: ["published": .string("1968-11-01T00:00:00.5Z")])
        }
        try store.compact()
    }

    static func snapshot(_ entity: String, in url: URL) throws -> String {
        try String(contentsOf: url.appendingPathComponent("snapshots/\(entity).jsonl"), encoding: .utf8)
    }

    @Test func compactRewritesLongFractionsInTheShortestForm() throws {
        let scratch = ScratchDirectory()
        defer { scratch.remove() }
        let url = scratch.url.appendingPathComponent("Library")
        try Self.writeOldFormStore(to: url)
        #expect(try Self.snapshot("Author", in: url).contains("\"born\":\"\(Self.oldForm)\""))
        let booksBefore = try Self.snapshot("Book", in: url)

        let run = try folio("compact", url.path)
        #expect(run.status == 0, "\(run)")
        #expect(run.stdout.contains("dates: 1 record(s) rewritten in the canonical form"))
        let authors = try Self.snapshot("Author", in: url)
        #expect(authors.contains("\"born\":\"\(Self.newForm)\""))
        #expect(!authors.contains("3229999542236328"))
        // Dates already in the canonical form, and every other value, keep their bytes.
        #expect(try Self.snapshot("Book", in: url) == booksBefore)

        let store = try Store.open(at: url)
        defer { store.close() }
        #expect(store.records(of: "Author").first { $0.id == 1 }?.values["born"] == .string(Self.newForm))

        let again = try folio("compact", url.path)
        #expect(again.status == 0, "\(again)")
        #expect(!again.stdout.contains("dates:"))
    }
}
