import Foundation
import FolioStorage
import Testing

@Suite("info, log, cat and show")
struct InspectionTests {
    @Test func infoShowsFormatEntitiesCountsAndTheLastTransaction() throws {
        let scratch = ScratchDirectory()
        defer { scratch.remove() }
        let store = scratch.appending("library")
        try LibraryStore.write(to: store)
        let run = try folio("info", store.path)
        #expect(run.status == 0, "\(run)")
        #expect(run.stdout.contains("folio-store version 1"))
        #expect(run.stdout.contains("Schema      version 1.0.0, 2 entities"))
        #expect(run.stdout.contains("Sequence    2 (last transaction"))
        #expect(run.stdout.contains("by editor, 1 change)"))
        #expect(run.stdout.contains("Journal     2 transactions"))
        #expect(run.stdout.contains("blobs 13 B"))
        let json = try #require(try run.jsonLinesOf(folio("info", store.path, "--json")).first?.objectValue)
        #expect(json["lastSequence"]?.intValue == 2)
        #expect(json["entities"]?.objectValue?["Book"]?.objectValue?["records"]?.intValue == 3)
        #expect(json["compactionDue"]?.boolValue == false)
    }

    @Test func logIsNewestFirstAndFilters() throws {
        let path = DemoStore.path
        let all = try folio("log", path)
        #expect(all.status == 0)
        let headers = all.stdout.split(separator: "\n").filter { $0.hasPrefix("transaction ") }
        #expect(headers.map { $0.split(separator: " ")[1] } == ["4", "3", "2", "1"])
        let demo = try folio("log", path, "--author", "demo", "-p")
        #expect(demo.stdout.contains("Author: demo"))
        #expect(demo.stdout.contains("~ Trip "))
        #expect(demo.stdout.contains("\"notes\":\"Upgraded to a room with a view\""))
        #expect(!demo.stdout.contains("transaction 3 "))
        let cookbooks = try folio("log", path, "--entity", "Cookbook", "--stat")
        #expect(cookbooks.stdout.contains(" Cookbook | +12"))
        #expect(!cookbooks.stdout.contains("Trip |"))
        let recipes = try folio("log", path, "--entity", "Recipe", "--oneline")
        #expect(recipes.stdout.split(separator: "\n").count == 1, "Recipe includes its subentities: one transaction")
        let future = try folio("log", path, "--since", "2999-01-01")
        #expect(future.status == 0)
        #expect(future.stdout.isEmpty)
        let lines = try folio("log", path, "-n", "2", "--json", "-p").jsonLines()
        #expect(lines.count == 2)
        #expect(lines[0].objectValue?["seq"]?.intValue == 4)
        #expect(lines[0].objectValue?["changes"]?.arrayValue?.first?.objectValue?["kind"]?.stringValue == "update")
    }

    @Test func logFiltersByIdentifierAndTime() throws {
        let scratch = ScratchDirectory()
        defer { scratch.remove() }
        let store = scratch.appending("library")
        try LibraryStore.write(to: store)
        let book = try folio("log", store.path, "--id", "5", "-p", "--reverse")
        let marks = book.stdout.split(separator: "\n").filter { $0.hasPrefix("+ ") || $0.hasPrefix("~ ") }
        #expect(marks.count == 2)
        #expect(marks[0].hasPrefix("+ Book 5 "))
        #expect(marks[1] == "~ Book 5 {\"price\":10.0}")
        #expect(try folio("log", store.path, "--until", "2000-01-01").stdout.isEmpty)
        #expect(try folio("log", store.path, "--since", "1h", "--oneline").stdout.split(separator: "\n").count == 2)
    }

    @Test func logShowsAMigrationReadably() throws {
        let scratch = ScratchDirectory()
        defer { scratch.remove() }
        let path = scratch.appending("migrated")
        let store = try Store.open(at: path)
        try store.write { tx in
            try tx.insert(entity: "Trip", id: tx.allocateID(), values: ["name": .string("Oslo"), "legacy": .int(1)])
            try tx.insert(entity: "Old", id: tx.allocateID(), values: [:])
        }
        try store.write(author: "migration") { tx in
            try tx.migrate(RecordMigration(entity: "Trip", renamedMembers: ["name": "title"], removedMembers: ["legacy"]))
            try tx.migrate(RecordMigration(entity: "Old", removesEntity: true))
        }
        store.close()
        let log = try folio("log", path.path)
        #expect(log.status == 0, "\(log)")
        #expect(log.stdout.contains("2 migrations (Old, Trip)"))
        #expect(log.stdout.contains("migrate Trip: remove legacy; rename name → title"))
        #expect(log.stdout.contains("migrate Old: remove the entity and its records"))
        let trips = try folio("log", path.path, "--entity", "Trip", "--oneline")
        #expect(trips.stdout.split(separator: "\n").count == 2, "\(trips)")
        let json = try folio("log", path.path, "-n", "1", "--json").jsonLines()
        #expect(json.first?.objectValue?["migrations"]?.arrayValue?.count == 2)
        let info = try folio("info", path.path)
        #expect(info.stdout.contains("by migration, 0 changes, migrates Old, Trip)"), "\(info)")
    }

    @Test func catPrintsJSONLinesWhenPipedAndFiltersSortsLimits() throws {
        let path = DemoStore.path
        let run = try folio("cat", path, "Trip", "--where", "destination == Rome and price < 600", "--sort", "-price", "--limit", "3")
        #expect(run.status == 0, "\(run)")
        let records = try run.jsonLines().map { try #require($0.objectValue) }
        #expect(records.count == 3)
        let prices = records.compactMap { $0["values"]?.objectValue?["price"]?.doubleValue }
        #expect(prices == prices.sorted(by: >))
        #expect(prices.allSatisfy { $0 < 600 })
        #expect(records.allSatisfy { $0["entity"]?.stringValue == "Trip" && $0["values"]?.objectValue?["destination"]?.stringValue == "Rome" })

        let july = try folio("cat", path, "Trip", "--where", "startDate >= 2026-07-01 and startDate < 2026-08-01", "--count")
        #expect(july.stdout == "123\n", "the demo found 123 trips in July 2026 with #Predicate")
        let tarts = try folio("cat", path, "Recipe", "--where", "name contains TART", "--fields", "name", "--sort", "name")
        let names = try tarts.jsonLines().compactMap { $0.objectValue?["values"]?.objectValue?["name"]?.stringValue }
        #expect(names.count == 12)
        #expect(names == names.sorted())
        #expect(try tarts.jsonLines().allSatisfy { $0.objectValue?["values"]?.objectValue?.count == 1 })
        let orBoth = try folio("cat", path, "Trip", "--where", "destination = Oslo or destination = Lima", "--where", "nights >= 7", "--count")
        let oslo = try folio("cat", path, "Trip", "--where", "destination = Oslo and nights >= 7", "--count")
        let lima = try folio("cat", path, "Trip", "--where", "destination = Lima and nights >= 7", "--count")
        #expect(Int(orBoth.stdout.dropLast())! == Int(oslo.stdout.dropLast())! + Int(lima.stdout.dropLast())!)
    }

    @Test func catPrintsAnAlignedTableOnRequest() throws {
        let scratch = ScratchDirectory()
        defer { scratch.remove() }
        let store = scratch.appending("library")
        try LibraryStore.write(to: store)
        let run = try folio("cat", store.path, "Book", "--table", "--fields", "title,pages,price", "--sort", "title")
        #expect(run.status == 0, "\(run)")
        #expect(
            run.stdout == """
                ID  title                      pages  price
                 3  A Wizard of Earthsea         183    9.5
                 4  The Left Hand of Darkness    304   12.0
                 5  The Summer Book              172   10.0
                (3 records)

                """)
    }

    @Test func showPrintsValuesRelationshipsBothWaysAndHistory() throws {
        let scratch = ScratchDirectory()
        defer { scratch.remove() }
        let store = scratch.appending("library")
        try LibraryStore.write(to: store)
        let book = try folio("show", store.path, "5")
        #expect(book.status == 0, "\(book)")
        #expect(book.stdout.hasPrefix("Book 5\n"))
        #expect(book.stdout.contains("  title      The Summer Book"))
        #expect(book.stdout.contains("  author     → Author 2 \"Tove Jansson\""))
        #expect(book.stdout.contains("Referred to by\n  Author 2 \"Tove Jansson\" via books"))
        #expect(book.stdout.contains("inserted by setup"))
        #expect(book.stdout.contains("updated by editor: price = 10.0"))
        let json = try #require(try folio("show", store.path, "1", "--json").jsonLines().first?.objectValue)
        #expect(json["entity"]?.stringValue == "Author")
        #expect(json["referredToBy"]?.arrayValue?.count == 2)
        let missing = try folio("show", store.path, "99")
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("No record with identifier 99"))
    }

    @Test func aDeletedRecordIsShownFromItsHistory() throws {
        let scratch = ScratchDirectory()
        defer { scratch.remove() }
        let store = scratch.appending("library")
        try LibraryStore.write(to: store)
        try LibraryStore.append(to: store) { t in try t.delete(entity: "Book", id: 4, tombstone: ["title": .string("The Left Hand of Darkness")]) }
        let run = try folio("show", store.path, "4")
        #expect(run.status == 0, "\(run)")
        #expect(run.stdout.contains("Book 4 — deleted"))
        #expect(run.stdout.contains("deleted by test"))
    }
}

extension FolioRun {
    /// Helper for reading another run's JSON lines inline.
    func jsonLinesOf(_ other: FolioRun) throws -> [JSONValue] { try other.jsonLines() }
}
