import Foundation
import FolioStorage
import Testing

@Suite("export and import")
struct ExportImportTests {
    @Test func jsonlRoundTripsIntoANewStoreWithTheSameIdentifiers() throws {
        let scratch = ScratchDirectory()
        defer { scratch.remove() }
        let exported = try folio("export", DemoStore.path)
        #expect(exported.status == 0)
        #expect(exported.stdout.split(separator: "\n").count == 5007)
        let file = scratch.appending("all.jsonl")
        try Data(exported.stdout.utf8).write(to: file)
        let copy = scratch.appending("copy")
        let imported = try folio("import", copy.path, file.path)
        #expect(imported.status == 0, "\(imported)")
        #expect(imported.stdout.contains("Imported 5007 records into \(copy.path) in transaction 1:"))
        #expect(imported.stdout.contains("  Trip: 3000"))
        #expect(try folio("export", copy.path).stdout == exported.stdout)
        let fromStdin = try folio("import", scratch.appending("piped").path, "-", input: Data(exported.stdout.utf8))
        #expect(fromStdin.status == 0, "\(fromStdin)")
    }

    @Test func jsonCarriesTheSchemaAndANonEmptyStoreGetsNewIdentifiersWithRelationshipsRewritten() throws {
        let scratch = ScratchDirectory()
        defer { scratch.remove() }
        let library = scratch.appending("library")
        try LibraryStore.write(to: library)
        let file = scratch.appending("library.json")
        let export = try folio("export", library.path, "--format", "json", "--entity", "Author", "--output", file.path)
        #expect(export.status == 0, "\(export)")
        #expect(export.stderr.contains("Exported 2 records"))
        let document = try JSONReader().parse(Array(try Data(contentsOf: file)))
        #expect(document.objectValue?["format"]?.stringValue == "folio-export")
        #expect(document.objectValue?["schema"] == LibraryStore.schema)

        let books = try folio("export", library.path, "--entity", "Book")
        let booksFile = scratch.appending("books.jsonl")
        try Data(books.stdout.utf8).write(to: booksFile)
        // Importing the books again into the same store: identifiers 3–5 are taken, so they get 6–8, and
        // their 'author' references (to records outside the file) are kept.
        let again = try folio("import", library.path, booksFile.path)
        #expect(again.stdout.contains("(with new identifiers)"), "\(again)")
        let titles = try folio("cat", library.path, "Book", "--where", "id > 5", "--fields", "title,author").jsonLines()
        #expect(titles.count == 3)
        #expect(titles.map { $0.objectValue?["values"]?.objectValue?["author"]?.intValue } == [1, 1, 2])

        // A json export imported into a new store brings its schema along.
        let fresh = scratch.appending("fresh")
        #expect(try folio("import", fresh.path, file.path).status == 0)
        let info = try folio("info", fresh.path)
        #expect(info.stdout.contains("Schema      version 1.0.0, 2 entities"), "\(info)")
    }

    @Test func csvExportsOneEntityAndImportsBackTyped() throws {
        let scratch = ScratchDirectory()
        defer { scratch.remove() }
        let library = scratch.appending("library")
        try LibraryStore.write(to: library)
        let csv = try folio("export", library.path, "--format", "csv", "--entity", "Book")
        #expect(csv.status == 0, "\(csv)")
        let lines = csv.stdout.components(separatedBy: "\r\n")
        #expect(lines[0] == "id,cover,pages,price,published,title,author")
        #expect(lines[3] == "5,,172,10.0,1972-01-01T00:00:00Z,The Summer Book,2")
        let file = scratch.appending("books.csv")
        try Data(csv.stdout.utf8).write(to: file)
        // Into a store that knows the schema, cells are typed by it.
        let target = scratch.appending("target")
        try LibraryStore.write(to: target)
        let imported = try folio("import", target.path, file.path, "--entity", "Book")
        #expect(imported.status == 0, "\(imported)")
        let copies = try folio("cat", target.path, "Book", "--where", "title == 'The Summer Book'").jsonLines()
        #expect(copies.count == 2)
        let values = try #require(copies.last?.objectValue?["values"]?.objectValue)
        #expect(values["pages"] == .int(172))
        #expect(values["price"] == .double(10.0))
        #expect(values["published"] == .string("1972-01-01T00:00:00Z"))
        let noEntity = try folio("import", target.path, file.path)
        #expect(noEntity.status == 64)
    }

    @Test func aBadImportFileChangesNothing() throws {
        let scratch = ScratchDirectory()
        defer { scratch.remove() }
        let library = scratch.appending("library")
        try LibraryStore.write(to: library)
        let file = scratch.appending("bad.jsonl")
        try Data("{\"entity\":\"Book\",\"id\":90,\"values\":{}}\nnot json\n".utf8).write(to: file)
        let run = try folio("import", library.path, file.path)
        #expect(run.status == 1)
        #expect(run.stderr.contains("bad.jsonl:2 is not valid JSON"))
        #expect(try folio("cat", library.path, "Book", "--count").stdout == "3\n")
    }
}
