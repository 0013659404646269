import Foundation
import Testing
@_spi(FolioEngine) import FolioStorage
@testable import Folio

/// A store whose files hold non-canonical Unicode, infinities, NaN, extreme integers and far dates,
/// written by another tool (valid JSON that is not Folio's canonical form) or by `folio import`, opens
/// and answers exactly as the store the app saved the same values in; `folio verify` finds nothing wrong.
@Suite("Stores written elsewhere")
struct StoresWrittenElsewhereTests {
    static let seed: UInt64 = 20_261_208

    /// The app's store: random exhibits from the edges of the value domain, saved, then some changed
    /// and deleted.
    static func appStore(_ store: TemporaryStore) throws -> [ExhibitValues] {
        var rng = SplitMix64(state: seed)
        var mirror = ExhibitMirror()
        let context = ModelContext(try store.container(Exhibit.self))
        var models: [Int: Exhibit] = [:]
        for _ in 0..<150 {
            let values = mirror.insert(&rng)
            let model = values.detached()
            context.insert(model)
            models[values.serial] = model
        }
        try context.save()
        for _ in 0..<30 {
            guard var values = mirror.exhibits.randomElement(using: &rng), let model = models[values.serial] else { continue }
            values.change(&rng)
            values.apply(to: model)
            mirror.update(values)
        }
        for _ in 0..<10 {
            guard let values = mirror.exhibits.randomElement(using: &rng), let model = models[values.serial] else { continue }
            context.delete(model)
            mirror.remove(serial: values.serial)
        }
        try context.save()
        return mirror.exhibits
    }

    /// Rewrites every journal line of `store` as another tool might write it: keys in another order,
    /// every non-ASCII character escaped, whole doubles as integers, exponents in capitals, dates as
    /// seconds since 2001, spaces after separators, each line with the checksum of its own bytes.
    static func rewriteAsAnotherTool(_ store: URL) throws {
        let journal = store.appendingPathComponent("journal.jsonl")
        var rng = SplitMix64(state: seed &+ 1)
        var output = ""
        for line in try String(contentsOf: journal, encoding: .utf8).split(separator: "\n") {
            guard case .object(var members) = try JSONReader().parse(String(line)) else { continue }
            members["$crc"] = nil
            for list in ["inserted", "updated"] {
                guard case .array(let changes)? = members[list] else { continue }
                members[list] = .array(
                    changes.map { change in
                        guard case .object(var change) = change, let values = change["values"] else { return change }
                        change["values"] = rewriteDates(in: values)
                        return .object(change)
                    })
            }
            let body = LooseJSON.object(.object(members), &rng)
            // The checksum of the line's bytes after the member, with an opening brace (`crc32(b'{' + line[19:])`).
            let crc = String(CRC32.checksum(Array(body.utf8)), radix: 16)
            output += "{\"$crc\":\"\(String(repeating: "0", count: 8 - crc.count) + crc)\"," + body.dropFirst() + "\n"
        }
        try Data(output.utf8).write(to: journal)
    }

    /// Canonical date strings in record values, as numbers of seconds since 2001 (the only other form a
    /// date is read in).
    static func rewriteDates(in value: JSONValue) -> JSONValue {
        switch value {
        case .string(let text):
            if let date = CanonicalDate.parse(text), date.timeIntervalSinceReferenceDate.magnitude < 1e15 {
                return .double(date.timeIntervalSinceReferenceDate)
            }
            return value
        case .array(let elements): return .array(elements.map(rewriteDates))
        case .object(let members): return .object(members.mapValues(rewriteDates))
        default: return value
        }
    }

    static func folioCommand(_ arguments: String...) throws -> (status: Int32, output: String) {
        let executable = try #require(builtExecutableURL("folio"), "the folio command was not built next to the tests")
        return try GitLiveStoreTests.run(executable, arguments)
    }

    /// Runs the same random queries on both stores and records every difference.
    static func compareAnswers(_ expected: ModelContext, _ actual: ModelContext, label: String) throws {
        var rng = SplitMix64(state: seed &+ 2)
        for number in 0..<400 {
            let (name, predicate) = ExhibitPredicates.random(&rng)
            let sort = ReferenceSort.random(&rng)
            var descriptor = FetchDescriptor<Exhibit>(predicate: predicate, sortBy: sort.descriptors)
            if Bool.random(using: &rng) { descriptor.fetchLimit = Int.random(in: 0..<25, using: &rng) }
            let want = try expected.fetch(descriptor).map(\.serial)
            let got = try actual.fetch(descriptor).map(\.serial)
            #expect(got == want, "seed \(seed) \(label) case \(number) '\(name)' sort [\(sort)]")
            let sum = try actual.sum(\Exhibit.numberCopy, where: predicate)
            let wantedSum = try expected.sum(\Exhibit.numberCopy, where: predicate)
            #expect(sum.bitPattern == wantedSum.bitPattern || (sum.isNaN && wantedSum.isNaN), "seed \(seed) \(label) case \(number) sum")
            let sections = try actual.fetch(descriptor, sectionBy: \.text).map { "\($0.title)\($0.elements.map(\.serial))" }
            #expect(sections == (try expected.fetch(descriptor, sectionBy: \.text).map { "\($0.title)\($0.elements.map(\.serial))" }))
        }
        let models = try actual.fetch(FetchDescriptor<Exhibit>(sortBy: [SortDescriptor(\.serial)]))
        let originals = try expected.fetch(FetchDescriptor<Exhibit>(sortBy: [SortDescriptor(\.serial)]))
        #expect(models.count == originals.count)
        for (model, original) in zip(models, originals) {
            #expect(model.text.unicodeScalars.elementsEqual(original.text.unicodeScalars), "\(label) #\(model.serial) text")
            #expect(model.number.bitPattern == original.number.bitPattern || (model.number.isNaN && original.number.isNaN))
            #expect(model.integer == original.integer && model.date == original.date && model.maybeText == original.maybeText)
        }
    }

    @Test func aJournalAnotherToolWroteAnswersAsTheAppsOwn() throws {
        let original = TemporaryStore()
        let rewritten = TemporaryStore()
        defer { original.cleanUp(); rewritten.cleanUp() }
        _ = try Self.appStore(original)
        try FileManager.default.copyItem(at: original.url, to: rewritten.url)
        try Self.rewriteAsAnotherTool(rewritten.url)
        let verify = try Self.folioCommand("verify", rewritten.url.path)
        #expect(verify.status == 0 && verify.output.contains("no problems"), "\(verify.output)")
        let expected = ModelContext(try original.container(Exhibit.self))
        try Self.compareAnswers(expected, ModelContext(try rewritten.container(Exhibit.self)), label: "rewritten journal")
        // Compacted, the snapshot holds the values in canonical form; the answers stay the same.
        let container = try rewritten.container(Exhibit.self)
        try container.compact()
        container.store.cacheBuilds.wait()
        try Self.compareAnswers(expected, ModelContext(try rewritten.container(Exhibit.self)), label: "rewritten and compacted")
    }

    @Test func aStoreFolioImportMadeAnswersAsTheAppsOwn() throws {
        let original = TemporaryStore()
        let imported = TemporaryStore()
        defer { original.cleanUp(); imported.cleanUp() }
        _ = try Self.appStore(original)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("exhibits-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: file) }
        let export = try Self.folioCommand("export", original.url.path, "--format", "json", "-o", file.path)
        #expect(export.status == 0, "\(export.output)")
        let run = try Self.folioCommand("import", imported.url.path, file.path)
        #expect(run.status == 0, "\(run.output)")
        let verify = try Self.folioCommand("verify", imported.url.path)
        #expect(verify.status == 0 && verify.output.contains("no problems"), "\(verify.output)")
        try Self.compareAnswers(
            ModelContext(try original.container(Exhibit.self)), ModelContext(try imported.container(Exhibit.self)),
            label: "imported")
    }
}

/// JSON as another tool writes it: valid, but not Folio's canonical form.
enum LooseJSON {
    static func object(_ value: JSONValue, _ rng: inout SplitMix64) -> String {
        write(value, &rng)
    }

    static func write(_ value: JSONValue, _ rng: inout SplitMix64) -> String {
        switch value {
        case .null: return "null"
        case .bool(let flag): return flag ? "true" : "false"
        case .int(let number): return String(number)
        case .double(let number):
            // A whole double below 2^53 as an integer; others in Swift's shortest form with a capital E.
            if number == number.rounded(), number.magnitude < 9_007_199_254_740_992, !(number == 0 && number.sign == .minus) {
                return String(Int64(number))
            }
            return "\(number)".uppercased()
        case .string(let text): return string(text)
        case .array(let elements): return "[" + elements.map { write($0, &rng) }.joined(separator: ", ") + "]"
        case .object(let members):
            let keys = members.keys.sorted().shuffled(using: &rng)
            return "{" + keys.map { string($0) + ": " + write(members[$0] ?? .null, &rng) }.joined(separator: ",") + "}"
        }
    }

    /// Every character outside printable ASCII as `\u` escapes (UTF-16, surrogate pairs included).
    static func string(_ text: String) -> String {
        var out = "\""
        for unit in text.utf16 {
            switch unit {
            case 0x22: out += "\\\""
            case 0x5C: out += "\\\\"
            case 0x20..<0x7F: out += String(UnicodeScalar(UInt8(unit)))
            default:
                let hex = String(unit, radix: 16, uppercase: true)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            }
        }
        return out + "\""
    }
}
