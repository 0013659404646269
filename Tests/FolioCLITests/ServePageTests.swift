import Foundation
import FolioStorage
import Testing
@testable import folio

@Suite("folio serve: pages and their JSON")
struct ServePageTests {
    func json(_ response: RawResponse) throws -> [String: JSONValue] {
        try #require(try JSONReader().parse(response.body).objectValue, "\(response)")
    }

    @Test func theStorePageListsEntitiesCountsSchemaAndRecentTransactions() throws {
        let served = try ServedLibrary()
        defer { served.stop() }
        let page = try served.client.get("/library")
        #expect(page.status == 200)
        #expect(page.body.contains(">Book</a></td><td></td><td class=\"num\">3</td>"), "\(page.body)")
        #expect(page.body.contains("<td>born</td><td>attribute</td><td>Date</td><td>optional</td>"))
        #expect(page.body.contains("→ Book (to-many), inverse author, delete rule nullify"))
        #expect(page.body.contains("Unique: (name)"))
        #expect(page.body.contains("<td>editor</td><td>1 updated (Book)"))
        let object = try json(try served.client.get("/library.json"))
        let entities = object["entities"]?.arrayValue?.compactMap(\.objectValue) ?? []
        #expect(entities.map { $0["name"]?.stringValue } == ["Author", "Book"])
        #expect(entities.map { $0["records"]?.intValue } == [2, 3])
        #expect(object["recentTransactions"]?.arrayValue?.first?.objectValue?["author"]?.stringValue == "editor")
        #expect(object["schema"]?.objectValue?["entities"]?.objectValue?["Book"] != nil)
        let index = try json(try served.client.get("/", headers: ["Accept": "application/json"]))
        #expect(index["stores"]?.arrayValue?.first?.objectValue?["name"]?.stringValue == "library")
    }

    @Test func theTableSortsFiltersPagesAndChoosesColumns() throws {
        let served = try ServedLibrary()
        defer { served.stop() }
        func ids(_ query: String) throws -> [Int64] {
            let object = try json(try served.client.get("/library/Book.json?" + query))
            return object["records"]?.arrayValue?.compactMap { $0.objectValue?["id"]?.intValue } ?? []
        }
        #expect(try ids("") == [3, 4, 5])
        #expect(try ids("sort=-price") == [4, 5, 3])
        #expect(try ids("sort=price&size=2&page=2") == [4])
        #expect(try ids("where=pages%20%3E%20180") == [3, 4])
        #expect(try ids("where=pages%20%3E%20180&where=price%20%3E%2010") == [4])
        #expect(try ids("where=title%20contains%20summer") == [5])
        // In identifier order the walk stops at the window's end; the total still counts every record.
        let window = try json(try served.client.get("/library/Book.json?size=1&page=2"))
        #expect(window["records"]?.arrayValue?.compactMap { $0.objectValue?["id"]?.intValue } == [4])
        #expect(window["total"]?.intValue == 3)
        #expect(try json(try served.client.get("/library/Book.json?size=1&page=9"))["total"]?.intValue == 3)
        #expect(try json(try served.client.get("/library/Book.json?size=1&page=2&where=pages%20%3E%20180"))["total"]?.intValue == 2)
        let page = try json(try served.client.get("/library/Book.json?sort=price&size=1&page=2&fields=title"))
        #expect(page["total"]?.intValue == 3)
        #expect(page["pages"]?.intValue == 3)
        #expect(page["next"]?.stringValue == "/library/Book.json?sort=price&fields=title&page=3&size=1")
        #expect(page["previous"]?.stringValue == "/library/Book.json?sort=price&fields=title&page=1&size=1")
        #expect(page["records"]?.arrayValue?.first?.objectValue?["values"]?.objectValue?.keys.sorted() == ["title"])
        let html = try served.client.get("/library/Book?sort=-price&fields=title,price").body
        #expect(
            html.contains(
                "<th aria-sort=\"descending\"><a href=\"/library/Book?sort=price&amp;fields=title%2Cprice&amp;page=1&amp;size=50\">price ▼</a></th>"),
            "\(html)")
        #expect(html.contains("Records 1–3 of 3."))
        #expect(!html.contains(">pages<"), "only the chosen columns")
    }

    @Test func theCSVFormHoldsEveryFilteredRecord() throws {
        let served = try ServedLibrary()
        defer { served.stop() }
        let csv = try served.client.get("/library/Book.csv?where=pages%20%3E%20180&fields=title,price&size=1")
        #expect(csv.status == 200)
        #expect(csv.header("content-type") == "text/csv; charset=utf-8")
        #expect(csv.body == "id,title,price\r\n3,A Wizard of Earthsea,9.5\r\n4,The Left Hand of Darkness,12.0\r\n")
    }

    @Test func aRecordShowsItsValuesRelationshipsBothWaysAndHistory() throws {
        let served = try ServedLibrary()
        defer { served.stop() }
        let book = try served.client.get("/library/Book/5").body
        #expect(book.contains("<h1>Book 5</h1>"))
        #expect(book.contains("<a href=\"/library/Author/2\">Author 2 “Tove Jansson”</a>"))
        #expect(book.contains("<time datetime=\"1972-01-01T00:00:00.000Z\">1972-01-01 00:00:00 UTC</time>"))
        #expect(book.contains("<td>editor</td><td>updated</td><td><code>{&quot;price&quot;:10.0}</code></td>"))
        #expect(book.contains("<span class=\"nil\">nil</span>"), "the null cover")
        let author = try served.client.get("/library/Author/2").body
        #expect(author.contains("Referred to by"))
        #expect(author.contains("<a href=\"/library/Book/5\">Book 5 “The Summer Book”</a> <span class=\"dim\">via author</span>"))
        let object = try json(try served.client.get("/library/Author/1.json"))
        #expect(object["relationships"]?.objectValue?["books"] == .array([.int(3), .int(4)]))
        #expect(object["history"]?.arrayValue?.count == 1)
        #expect(object["referredToBy"]?.arrayValue?.count == 2)
    }

    @Test func theLogAndConflictsPagesListWhatTheStoreHolds() throws {
        let served = try ServedLibrary()
        defer { served.stop() }
        let log = try json(try served.client.get("/library/-/log.json?size=1"))
        #expect(log["total"]?.intValue == 2)
        #expect(log["transactions"]?.arrayValue?.first?.objectValue?["seq"]?.intValue == 2)
        #expect(log["transactions"]?.arrayValue?.first?.objectValue?["changes"]?.arrayValue?.count == 1)
        let html = try served.client.get("/library/-/log").body
        #expect(html.contains("<li>~ <a href=\"/library/Book/5\">Book 5</a> <code>{&quot;price&quot;:10.0}</code></li>"))
        let conflicts = try json(try served.client.get("/library/-/conflicts.json"))
        #expect(conflicts["conflicts"] == .array([]))
        #expect(try served.client.get("/library/-/conflicts").body.contains("No conflicts recorded"))
    }

    @Test func hostileValuesAreShownAsTextAndLongOnesAreCut() throws {
        let script = "<script>alert(1)</script>"
        let image = "\"><img src=x onerror=alert(1)>"
        let control = "bell\u{07}escape\u{1B}nul\u{0}"
        let huge = String(repeating: "ab<", count: 350_000)
        let served = try ServedLibrary { url in
            let store = try Store.open(at: url)
            defer { store.close() }
            try store.write { tx in
                for (index, text) in [script, image, control, huge].enumerated() {
                    try tx.insert(entity: "Note", id: tx.allocateID(), values: ["text": .string(text), "n": .int(Int64(index))])
                }
                try tx.insert(entity: "Note", id: tx.allocateID(), values: ["<b>key</b>": .string("x")])
            }
        }
        defer { served.stop() }
        for path in [
            "/library/Note", "/library/Note/1", "/library/Note/2", "/library/Note/3", "/library/Note/4", "/library/Note/5", "/library/-/log",
        ] {
            let page = try served.client.get(path)
            #expect(page.status == 200, "\(path)")
            #expect(!page.body.contains("<script>"), "\(path)")
            #expect(!page.body.contains("<img"), "\(path)")
            #expect(!page.body.contains("<b>"), "\(path)")
            #expect(!page.body.contains("\u{07}") && !page.body.contains("\u{1B}") && !page.body.contains("\u{0}"), "\(path)")
            #expect(page.body.utf8.count < 200_000, "\(path) is \(page.body.utf8.count) bytes")
        }
        let table = try served.client.get("/library/Note").body
        #expect(table.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
        #expect(table.contains("&quot;&gt;&lt;img src=x onerror=alert(1)&gt;"))
        #expect(table.contains("bell\u{2407}escape\u{241B}nul\u{2400}"))
        #expect(table.contains("<a href=\"/library/Note/4/text\" class=\"more\">1049880 more characters</a>"))
        let whole = try served.client.get("/library/Note/4/text")
        #expect(whole.header("content-type") == "text/plain; charset=utf-8")
        #expect(whole.body == huge)
        let record = try served.client.get("/library/Note/4").body
        #expect(record.contains("1048000 more characters"))
    }

    @Test func eachPageShowsWhatAnotherWriterAddedSinceTheLastLoad() throws {
        let served = try ServedLibrary()
        defer { served.stop() }
        #expect(try json(try served.client.get("/library/Book.json"))["total"]?.intValue == 3)
        // Another writer: the folio command in another process.
        let input = Data(#"{"entity":"Book","id":40,"values":{"title":"Moominland Midwinter","pages":168,"price":8.0}}"#.utf8 + [0x0A])
        let imported = try folio("import", served.storeURL.path, "-", input: input)
        #expect(imported.status == 0, "\(imported)")
        let after = try json(try served.client.get("/library/Book.json?sort=-id&size=1"))
        #expect(after["total"]?.intValue == 4)
        #expect(after["records"]?.arrayValue?.first?.objectValue?["id"]?.intValue == 40)
        #expect(try served.client.get("/library/Book/40").body.contains("Moominland Midwinter"))
    }

    @Test func aStoreThatCannotBeReadGets503AndRecoversWhenRestored() throws {
        let served = try ServedLibrary()
        defer { served.stop() }
        #expect(try served.client.get("/library/Book").status == 200)
        let manifest = served.storeURL.appendingPathComponent("manifest.json")
        let saved = try Data(contentsOf: manifest)
        let moved = served.scratch.appending("elsewhere")
        try FileManager.default.moveItem(at: served.storeURL, to: moved)
        try FileManager.default.createDirectory(at: served.storeURL, withIntermediateDirectories: true)
        try Data("not json".utf8).write(to: manifest)
        let broken = try served.client.get("/library/Book")
        #expect([200, 503].contains(broken.status), "\(broken)")
        let index = try served.client.get("/")
        #expect(index.status == 200)
        try FileManager.default.removeItem(at: served.storeURL)
        try FileManager.default.moveItem(at: moved, to: served.storeURL)
        #expect(try Data(contentsOf: manifest) == saved)
        #expect(try served.client.get("/library/Book").status == 200)
    }

    @Test func theCommandPrintsItsAddressAndWarnsWhenNotOnLoopback() throws {
        let scratch = ScratchDirectory()
        defer { scratch.remove() }
        let store = scratch.appending("library")
        try LibraryStore.write(to: store)
        let executable = try #require(folioExecutable())
        let process = Process()
        process.executableURL = executable
        process.arguments = ["serve", store.path, "--port", "0", "--host", "0.0.0.0"]
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        defer {
            process.terminate()
            let deadline = Date().addingTimeInterval(10)
            while process.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
            #expect(!process.isRunning, "SIGTERM stops the server")
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
        }
        let line = String(decoding: out.fileHandleForReading.availableLine(), as: UTF8.self)
        let port = try #require(
            line.split(separator: ":").last.flatMap { UInt16($0.trimmingCharacters(in: CharacterSet(charactersIn: "/\n"))) }, "\(line)")
        #expect(line.hasPrefix("Serving 1 store at http://127.0.0.1:"))
        let response = try RawHTTPClient(port: port).get("/library/Book/3.json")
        #expect(response.status == 200)
        let warning = String(decoding: err.fileHandleForReading.availableLine(), as: UTF8.self)
        #expect(warning.contains("Warning: listening on 0.0.0.0"))
        let usage = try folio("serve", store.path, "--port", "70000")
        #expect(usage.status == 64)
        #expect(usage.stderr.contains("Give a port from 0 to 65535."))
    }
}

extension FileHandle {
    /// Bytes up to and including the next newline (or the end of the stream).
    func availableLine() -> [UInt8] {
        var line: [UInt8] = []
        while let byte = try? read(upToCount: 1)?.first {
            line.append(byte)
            if byte == 0x0A { break }
        }
        return line
    }
}
