import Foundation
import FolioStorage
import Testing
@testable import folio

/// A `folio serve` server started in-process on a free port, over a copy of the library store.
final class ServedLibrary {
    let scratch: ScratchDirectory
    let storeURL: URL
    let server: HTTPServer
    let stores: ServedStores
    var client: RawHTTPClient { RawHTTPClient(port: server.port) }

    init(limits: HTTPLimits = HTTPLimits(), name: String = #function, write: (URL) throws -> Void = { try LibraryStore.write(to: $0) }) throws {
        scratch = ScratchDirectory(name)
        storeURL = scratch.appending("library")
        try write(storeURL)
        (server, stores) = try ServeCommand.start(paths: [storeURL.path], host: "127.0.0.1", port: 0, limits: limits)
    }

    func stop() {
        server.stop()
        stores.closeAll()
        scratch.remove()
    }
}

@Suite("folio serve: the HTTP protocol")
struct ServeProtocolTests {
    @Test func aWellFormedGetIsAnsweredWithThePageAndSecurityHeaders() throws {
        let served = try ServedLibrary()
        defer { served.stop() }
        let response = try served.client.get("/")
        #expect(response.status == 200, "\(response)")
        #expect(response.header("content-type") == "text/html; charset=utf-8")
        #expect(response.header("content-security-policy")?.contains("default-src 'none'") == true)
        #expect(response.header("x-content-type-options") == "nosniff")
        #expect(response.body.contains(">library</a>"))
        #expect(Int(response.header("content-length") ?? "") == response.body.utf8.count)
    }

    @Test func headAnswersTheHeadersOfGetWithoutTheBody() throws {
        let served = try ServedLibrary()
        defer { served.stop() }
        let get = try served.client.get("/library/Book")
        let head = try served.client.get("/library/Book", method: "HEAD")
        #expect(head.status == 200)
        #expect(head.body.isEmpty)
        #expect(head.header("content-length") == get.header("content-length"))
    }

    @Test func aKeptAliveConnectionServesSeveralRequestsInOrder() throws {
        let served = try ServedLibrary()
        defer { served.stop() }
        let request = "GET /index.json HTTP/1.1\r\nHost: localhost\r\n\r\nGET /library.json HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"
        let raw = String(decoding: try served.client.exchange(request), as: UTF8.self)
        #expect(raw.components(separatedBy: "HTTP/1.1 200 OK").count == 3, "\(raw.prefix(500))")
        #expect(raw.contains("Connection: keep-alive"))
        #expect(raw.contains("\"stores\":["))
        #expect(raw.contains("\"recentTransactions\":["))
    }

    /// Each malformed request gets its status and a closed connection; the server then still serves.
    @Test(arguments: [
        ("GARBAGE\r\n\r\n", 400),
        ("GET /\r\n\r\n", 400),
        ("GET  / HTTP/1.1\r\nHost: localhost\r\n\r\n", 400),
        ("GET / HTTP/2.0\r\nHost: localhost\r\n\r\n", 505),
        ("GET / FOO/1.1\r\nHost: localhost\r\n\r\n", 400),
        ("GET relative HTTP/1.1\r\nHost: localhost\r\n\r\n", 400),
        ("GET http:/ HTTP/1.1\r\nHost: localhost\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nHost: localhost\r\nHost: b\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nHost a\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nHost: localhost\r\n folded: value\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nHost : a\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nHost: a\u{01}b\r\n\r\n", 400),
        ("GET / HTTP/1.1\rHost: localhost\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nHost: localhost\r\nContent-Length: 5\r\n\r\nhello", 413),
        ("GET / HTTP/1.1\r\nHost: localhost\r\nContent-Length: -1\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\n", 501),
        ("POST / HTTP/1.1\r\nHost: localhost\r\n\r\n", 405),
        ("DELETE /library HTTP/1.1\r\nHost: localhost\r\n\r\n", 405),
        ("GET /%zz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n", 400),
        ("GET /%ff%fe HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n", 400),
        ("GET /library/Book?where=%G1 HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n", 421),
    ])
    func malformedRequestsGetTheirStatusAndTheServerKeepsServing(request: String, status: Int) throws {
        let served = try ServedLibrary(name: "malformed\(status)")
        defer { served.stop() }
        let raw = try served.client.exchange(request)
        let response = try #require(RawHTTPClient.parse(raw), "no response to \(request.debugDescription)")
        #expect(response.status == status, "\(request.debugDescription): \(response)")
        if status == 405 { #expect(response.header("allow") == "GET, HEAD") }
        #expect(response.header("connection") == "close")
        #expect(try served.client.get("/").status == 200)
    }

    @Test func anAbsoluteFormTargetIsReadAsItsPath() throws {
        let served = try ServedLibrary()
        defer { served.stop() }
        for target in ["http://127.0.0.1/library/Book.json?sort=-price", "HTTPS://localhost:1/library/Book.json?sort=-price"] {
            let raw = try served.client.exchange("GET \(target) HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
            let response = try #require(RawHTTPClient.parse(raw))
            #expect(response.status == 200, "\(target): \(response)")
            #expect(response.body.contains("\"sort\":\"-price\""), "\(target)")
        }
        let bare = RawHTTPClient.parse(try served.client.exchange("GET http://localhost HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"))
        #expect(bare?.status == 200)
        #expect(bare?.body.contains("<h1>Stores</h1>") == true)
    }

    @Test func aHugeRequestLineOrHeadIsRefusedWithoutReadingItAll() throws {
        let served = try ServedLibrary()
        defer { served.stop() }
        let longLine = "GET /" + String(repeating: "a", count: 9000) + " HTTP/1.1\r\nHost: localhost\r\n\r\n"
        #expect(RawHTTPClient.parse(try served.client.exchange(longLine))?.status == 414)
        let bigHeader = "GET / HTTP/1.1\r\nHost: localhost\r\nX-Big: " + String(repeating: "b", count: 40_000) + "\r\n\r\n"
        #expect(RawHTTPClient.parse(try served.client.exchange(bigHeader))?.status == 431)
        let manyHeaders = "GET / HTTP/1.1\r\nHost: localhost\r\n" + (0..<101).map { "X-\($0): v\r\n" }.joined() + "\r\n"
        #expect(RawHTTPClient.parse(try served.client.exchange(manyHeaders))?.status == 431)
        // A megabyte with no line end at all.
        let endless = [UInt8](repeating: UInt8(ascii: "x"), count: 1 << 20)
        #expect(RawHTTPClient.parse(try served.client.exchange(endless))?.status == 414)
        #expect(try served.client.get("/").status == 200)
    }

    @Test(arguments: [
        "/..", "/../../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd", "/library/%2E%2E/%2E%2E", "/library/.", "/library/a%2Fb",
        "/library/Book%00", "/./library",
    ])
    func pathsThatTryToLeaveTheStoresAreRefused(path: String) throws {
        let served = try ServedLibrary(name: "dots")
        defer { served.stop() }
        let response = try served.client.get(path)
        #expect(response.status == 400, "\(path): \(response)")
        #expect(!response.body.contains("root:"))
    }

    @Test func unknownStoresEntitiesAndRecordsAre404AndBadParametersAre400() throws {
        let served = try ServedLibrary()
        defer { served.stop() }
        let cases: [(String, Int, String)] = [
            ("/nostore", 404, "No store named"),
            ("/library/Bok", 404, "Did you mean &#39;Book&#39;?"),
            ("/library/Book/99", 404, "No record with identifier 99"),
            ("/library/Author/3", 404, "is a Book, not a Author"),
            ("/library/Book/abc", 404, "not a record identifier"),
            ("/library/Book/3/nothing", 404, "stores no attribute"),
            ("/library/-/nothing", 404, "No page"),
            ("/library/Book?where=price%20%3C", 400, "expected a value after"),
            ("/library/Book?where=prise%20%3C%203", 400, "Did you mean &#39;price&#39;?"),
            ("/library/Book?sort=,-", 400, "The sort"),
            ("/library/Book?page=0", 400, "page=0"),
            ("/library/Book?size=100000", 400, "size=100000"),
            ("/library/-/log?page=x", 400, "page=x"),
        ]
        for (path, status, text) in cases {
            let response = try served.client.get(path)
            #expect(response.status == status, "\(path): \(response)")
            #expect(response.body.contains(text), "\(path): \(response.body.suffix(600))")
        }
        let json = try served.client.get("/library/Book/99.json")
        #expect(json.status == 404)
        let error = try JSONReader().parse(json.body).objectValue?["error"]?.objectValue
        #expect(error?["status"]?.intValue == 404)
        #expect(error?["message"]?.stringValue?.contains("99") == true)
    }

    @Test func aClientThatSendsItsHeadTooSlowlyGets408AndAnIdleOneIsClosed() throws {
        var limits = HTTPLimits()
        limits.headTimeoutMilliseconds = 300
        limits.idleTimeoutMilliseconds = 300
        let served = try ServedLibrary(limits: limits)
        defer { served.stop() }
        let started = Date()
        let response = RawHTTPClient.parse(try served.client.exchange("GET / HTTP/1.1\r\nHost: localhost\r\n"))
        #expect(response?.status == 408)
        #expect(Date().timeIntervalSince(started) < 4)
        let idle = try served.client.exchange([])
        #expect(idle.isEmpty, "an idle connection is closed without a response")
        #expect(Date().timeIntervalSince(started) < 8)
        #expect(try served.client.get("/").status == 200)
    }

    @Test func connectionsBeyondTheLimitAreAnswered503() throws {
        var limits = HTTPLimits()
        limits.maximumConnections = 2
        let served = try ServedLibrary(limits: limits)
        defer { served.stop() }
        let held = try (0..<2).map { _ in try served.client.makeConnection() }
        defer { for descriptor in held { close(descriptor) } }
        for descriptor in held { RawHTTPClient.sendBytes(descriptor, Array("GET / HTTP/1.1\r\n".utf8)) }
        // The accept loop counts a connection as soon as it takes it: wait until both are taken.
        let deadline = Date().addingTimeInterval(5)
        while served.server.openConnections < 2, Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        let refused = RawHTTPClient.parse(try served.client.exchange("GET / HTTP/1.1\r\nHost: localhost\r\n\r\n"))
        #expect(refused?.status == 503)
        for descriptor in held { RawHTTPClient.sendBytes(descriptor, Array("Host: localhost\r\nConnection: close\r\n\r\n".utf8)) }
        for descriptor in held { #expect(RawHTTPClient.parse(RawHTTPClient.readAll(descriptor))?.status == 200) }
    }

    /// Random bytes and mangled requests: every one gets a 2xx or 4xx/5xx response of the server's own
    /// making (never a 500, never silence), and the server serves afterwards. Set FOLIO_FUZZ_SEED to
    /// replay a failure.
    @Test func fuzzedRequestsNeverCrashOrStopTheServer() throws {
        var limits = HTTPLimits()
        limits.headTimeoutMilliseconds = 500
        limits.idleTimeoutMilliseconds = 200
        let served = try ServedLibrary(limits: limits)
        defer { served.stop() }
        let seed = ProcessInfo.processInfo.environment["FOLIO_FUZZ_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 1...UInt64.max)
        var random = SplitMix64(seed: seed)
        let templates = [
            "GET /library/Book?where=price%20%3C%2010&sort=-price&page=1 HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/json\r\n\r\n",
            "HEAD /library/Book/3.json HTTP/1.0\r\n\r\n", "GET /library/-/log?size=2 HTTP/1.1\r\nHost: localhost\r\n\r\n",
        ]
        for round in 0..<150 {
            var bytes: [UInt8]
            if round % 3 == 0 {
                bytes = (0..<Int(random.next() % 200)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            } else {
                bytes = Array(templates[Int(random.next() % UInt64(templates.count))].utf8)
                for _ in 0..<(1 + random.next() % 6) {
                    let position = Int(random.next() % UInt64(bytes.count))
                    switch random.next() % 3 {
                    case 0: bytes[position] = UInt8(truncatingIfNeeded: random.next())
                    case 1: bytes.remove(at: position)
                    default: bytes.insert(UInt8(truncatingIfNeeded: random.next()), at: position)
                    }
                }
            }
            bytes += Array("\r\n\r\n".utf8)
            let raw = try served.client.exchange(bytes, timeout: 5)
            let response = RawHTTPClient.parse(raw)
            // Empty lines before a request are skipped (RFC 9112 §2.2): only them is no request at all.
            if bytes.allSatisfy({ $0 == 0x0D || $0 == 0x0A }) {
                #expect(raw.isEmpty, "seed \(seed) round \(round)")
                continue
            }
            #expect(response != nil, "seed \(seed) round \(round): no response to \(bytes)")
            if let status = response?.status {
                #expect(status != 500 && (200..<600).contains(status), "seed \(seed) round \(round): \(status) for \(bytes)")
            }
        }
        #expect(try served.client.get("/").status == 200, "seed \(seed)")
    }

    @Test func pathsQueriesAndValuesAreEncodedAndEscaped() {
        #expect(PercentEncoding.decode("%2e%2E") == "..")
        #expect(PercentEncoding.decode("a+b", plusIsSpace: true) == "a b")
        #expect(PercentEncoding.decode("%e2%82") == nil, "a cut UTF-8 sequence")
        #expect(PercentEncoding.decode("%4") == nil)
        let awkward = "Café/é ?&=#%\"<>"
        #expect(PercentEncoding.decode(Substring(PercentEncoding.encode(awkward))) == awkward)
        #expect(!PercentEncoding.encode(awkward).contains("/"))
        #expect(HTMLEscaping.escape("<script>\"'&") == "&lt;script&gt;&quot;&#39;&amp;")
        #expect(HTMLEscaping.escape("a\u{0}b\u{1B}c\u{85}") == "a\u{2400}b\u{241B}c\\u{85}")
        #expect(HTMLEscaping.truncated("abcdef", to: 4) == ("abcd", 2))
        #expect(ServeSite.isLoopbackHost("127.0.0.1:8080") && ServeSite.isLoopbackHost("LOCALHOST") && ServeSite.isLoopbackHost("[::1]:1"))
        #expect(!ServeSite.isLoopbackHost("127.0.0.1.evil.example:80") && !ServeSite.isLoopbackHost("[::1]x"))
    }

    @Test func storeNamesAreUniqueAndAvoidTheServersOwnAddresses() {
        let stores = ServedStores(paths: ["/a/Trips", "/b/Trips/", "/c/index.json", "/d/-"])
        #expect(stores.entries.map(\.name) == ["Trips", "Trips-2", "index.json-2", "--2"])
    }
}

/// A small seeded generator, so that a failing fuzz round can be replayed from its seed.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
