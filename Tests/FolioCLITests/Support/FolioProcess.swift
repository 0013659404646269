import Foundation
import FolioStorage
import Testing

/// What one run of the `folio` binary printed and returned.
struct FolioRun: CustomStringConvertible, Sendable {
    var status: Int32
    var stdout: String
    var stderr: String

    var description: String { "exit \(status)\n--- stdout\n\(stdout)\n--- stderr\n\(stderr)" }

    /// Standard output's lines as JSON values (for JSON-lines output).
    func jsonLines() throws -> [JSONValue] {
        try stdout.split(separator: "\n").map { try JSONReader().parse(String($0)) }
    }
}

/// Runs the built `folio` with arguments, like a user in a shell whose output is not a terminal.
func folio(_ arguments: String..., environment: [String: String] = [:], input: Data? = nil, directory: URL? = nil) throws -> FolioRun {
    try folio(arguments: arguments, environment: environment, input: input, directory: directory)
}

final class DataBox: @unchecked Sendable {
    var data = Data()
}

func folio(arguments: [String], environment: [String: String] = [:], input: Data? = nil, directory: URL? = nil) throws -> FolioRun {
    let executable = try #require(folioExecutable(), "the folio executable is built next to the tests")
    return try run(executable, arguments: arguments, environment: environment, input: input, directory: directory)
}

/// Runs the built `folio-bench` with arguments.
func folioBench(_ arguments: String...) throws -> FolioRun {
    let executable = try #require(builtExecutable(named: "folio-bench"), "the folio-bench executable is built next to the tests")
    return try run(executable, arguments: arguments)
}

/// Runs an executable with arguments and collects what it prints.
func run(
    _ executable: URL, arguments: [String], environment: [String: String] = [:], input: Data? = nil,
    directory: URL? = nil
) throws -> FolioRun {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    var env = ProcessInfo.processInfo.environment
    env["COLUMNS"] = "200"
    for (key, value) in environment { env[key] = value }
    process.environment = env
    if let directory { process.currentDirectoryURL = directory }
    let out = Pipe(), err = Pipe()
    process.standardOutput = out
    process.standardError = err
    let inPipe = Pipe()
    process.standardInput = inPipe
    try process.run()
    if let input { inPipe.fileHandleForWriting.write(input) }
    try? inPipe.fileHandleForWriting.close()
    // Read both pipes at once so that a full one cannot block the child.
    let errBox = DataBox()
    let group = DispatchGroup()
    group.enter()
    DispatchQueue.global().async {
        errBox.data = err.fileHandleForReading.readDataToEndOfFile()
        group.leave()
    }
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    group.wait()
    process.waitUntilExit()
    return FolioRun(
        status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
        stderr: String(decoding: errBox.data, as: UTF8.self))
}

/// A directory under the temporary directory, removed with `remove()`.
struct ScratchDirectory {
    let url: URL

    init(_ name: String = #function) {
        let safe = name.filter { $0.isLetter || $0.isNumber }
        url = FileManager.default.temporaryDirectory.appendingPathComponent("folio-cli-\(safe)-\(UUID().uuidString.prefix(8))")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    var path: String { url.path }

    func appending(_ component: String) -> URL { url.appendingPathComponent(component) }

    func remove() { try? FileManager.default.removeItem(at: url) }
}

/// The demo store's directory, removed when the test process exits.
nonisolated(unsafe) var demoStoreToRemove: String?

/// The store `folio demo --store` builds, made once for the whole run; tests copy it before changing it.
enum DemoStore {
    struct Built: Sendable {
        let url: URL
        let run: FolioRun
    }

    static let built: Built = {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("folio-cli-demo-\(UUID().uuidString.prefix(8))")
        let run = (try? folio("demo", "--store", url.path)) ?? FolioRun(status: -1, stdout: "", stderr: "could not run folio")
        demoStoreToRemove = url.path
        atexit { if let path = demoStoreToRemove { try? FileManager.default.removeItem(atPath: path) } }
        return Built(url: url, run: run)
    }()

    /// The demo store's path (building it on first use).
    static var path: String { built.url.path }

    /// A copy of the demo store to damage or change.
    static func copy(into scratch: ScratchDirectory, name: String = "store") throws -> URL {
        let destination = scratch.appending(name)
        try FileManager.default.copyItem(at: built.url, to: destination)
        return destination
    }
}

/// Edits a store file's bytes.
func editFile(_ url: URL, _ body: (inout [UInt8]) -> Void) throws {
    var bytes = [UInt8](try Data(contentsOf: url))
    body(&bytes)
    try Data(bytes).write(to: url)
}

/// The lines of a file (without their newline).
func fileLines(_ url: URL) throws -> [[UInt8]] {
    let bytes = [UInt8](try Data(contentsOf: url))
    var lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: false).map(Array.init)
    if lines.last?.isEmpty == true { lines.removeLast() }
    return lines
}

/// A small library store written with FolioStorage alone: authors, books with a cover blob, a schema
/// description in the model layer's format. Identifiers: authors 1–2, books 3–5.
enum LibraryStore {
    static let schema: JSONValue = {
        func attribute(_ type: String, optional: Bool = false, options: [String] = []) -> JSONValue {
            var members: [String: JSONValue] = ["kind": .string("attribute"), "type": .string(type)]
            if optional { members["optional"] = .bool(true) }
            if !options.isEmpty { members["options"] = .array(options.map { .string($0) }) }
            return .object(members)
        }
        func relationship(_ destination: String, toMany: Bool, inverse: String) -> JSONValue {
            .object([
                "kind": .string("relationship"), "destination": .string(destination), "toMany": .bool(toMany),
                "inverse": .string(inverse), "deleteRule": .string("nullify"), "optional": .bool(!toMany),
            ])
        }
        // Renamed from `name`: records may still hold the old key.
        var titleAttribute = attribute("String")
        if case .object(var members) = titleAttribute {
            members["originalName"] = .string("name")
            titleAttribute = .object(members)
        }
        return .object([
            "version": .string("1.0.0"),
            "entities": .object([
                "Author": .object([
                    "properties": .object([
                        "name": attribute("String", options: ["unique"]), "born": attribute("Date", optional: true),
                        "books": relationship("Book", toMany: true, inverse: "author"),
                    ]),
                    "uniqueness": .array([.array([.string("name")])]),
                ]),
                "Book": .object([
                    "properties": .object([
                        "title": titleAttribute, "pages": attribute("Int"), "price": attribute("Double"),
                        "published": attribute("Date"), "cover": attribute("Data", optional: true, options: ["externalStorage"]),
                        "author": relationship("Author", toMany: false, inverse: "books"),
                    ])
                ]),
            ]),
        ])
    }()

    /// Writes the store; returns the cover blob's hash.
    @discardableResult
    static func write(to url: URL) throws -> String {
        let store = try Store.open(at: url)
        defer { store.close() }
        var hash = ""
        try store.write(author: "setup") { t in
            t.setSchema(schema)
            let le = t.allocateID(), ts = t.allocateID()
            let b1 = t.allocateID(), b2 = t.allocateID(), b3 = t.allocateID()
            hash = try t.putBlob(Data("a cover image".utf8))
            try t.insert(
                entity: "Author", id: le,
                values: [
                    "name": .string("Ursula K. Le Guin"), "born": .string("1929-10-21T00:00:00Z"),
                    "books": .array([.int(b1), .int(b2)]),
                ])
            try t.insert(entity: "Author", id: ts, values: ["name": .string("Tove Jansson"), "books": .array([.int(b3)])])
            try t.insert(
                entity: "Book", id: b1,
                values: [
                    "title": .string("A Wizard of Earthsea"), "pages": .int(183), "price": .double(9.5),
                    "published": .string("1968-11-01T00:00:00Z"), "author": .int(le),
                    "cover": BlobStore.reference(hash),
                ])
            try t.insert(
                entity: "Book", id: b2,
                values: [
                    "title": .string("The Left Hand of Darkness"), "pages": .int(304), "price": .double(12.0),
                    "published": .string("1969-03-01T00:00:00Z"), "author": .int(le), "cover": .null,
                ])
            try t.insert(
                entity: "Book", id: b3,
                values: [
                    "title": .string("The Summer Book"), "pages": .int(172), "price": .double(11.25),
                    "published": .string("1972-01-01T00:00:00Z"), "author": .int(ts), "cover": .null,
                ])
        }
        try store.write(author: "editor") { t in
            try t.update(entity: "Book", id: 5, values: ["price": .double(10.0)])
        }
        return hash
    }

    /// Writes one more transaction with arbitrary records (to make a store inconsistent on purpose).
    static func append(to url: URL, _ body: (inout WriteTransaction) throws -> Void) throws {
        let store = try Store.open(at: url)
        defer { store.close() }
        try store.write(author: "test", body)
    }
}
