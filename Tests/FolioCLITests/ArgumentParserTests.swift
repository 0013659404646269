import Foundation
import Testing
import FolioStorage

@testable import folio

@Suite("Argument parsing")
struct ArgumentParserTests {
    static let spec = CommandSpec(
        name: "cat", abstract: "test",
        arguments: [.init(name: "STORE", help: "store"), .init(name: "ENTITY", help: "entity", isOptional: true)],
        options: [
            .option("--where", "-w", value: "FILTER", help: "", repeatable: true),
            .option("--limit", "-n", value: "N", help: ""),
            .flag("--json", help: ""),
        ])

    func parse(_ arguments: String...) throws -> ParsedArguments {
        let (parsed, outcome) = try ArgumentParser.parse(arguments, spec: Self.spec)
        #expect(outcome == .run)
        return parsed
    }

    func usageError(_ arguments: String...) -> UsageError? {
        do {
            _ = try ArgumentParser.parse(arguments, spec: Self.spec)
            return nil
        } catch {
            return error
        }
    }

    @Test func optionsTakeTheNextArgumentOrAnInlineValue() throws {
        let parsed = try parse("Store", "--limit", "5", "--where=price < 3", "-w", "a == b", "Trip", "--json")
        #expect(parsed.positionals == ["Store", "Trip"])
        #expect(parsed.value("--limit") == "5")
        #expect(parsed.all("--where") == ["price < 3", "a == b"])
        #expect(parsed.flag("--json"))
        #expect(try parsed.integer("--limit", command: "cat") == 5)
    }

    @Test func doubleDashEndsOptionsAndNegativeNumbersArePositionals() throws {
        let parsed = try parse("--", "--json", "-3")
        #expect(parsed.positionals == ["--json", "-3"])
        #expect(!parsed.flag("--json"))
        #expect(try parse("Store", "-3").positionals == ["Store", "-3"])
    }

    @Test func helpAnywhereAsksForHelp() throws {
        let (_, outcome) = try ArgumentParser.parse(["Store", "--bogus", "-h"], spec: Self.spec)
        #expect(outcome == .help)
        let (_, afterDashes) = try ArgumentParser.parse(["--", "-h"], spec: Self.spec)
        #expect(afterDashes == .run)
    }

    @Test func anUnknownOptionSuggestsTheNearMiss() {
        let error = usageError("Store", "--wher", "x")
        #expect(error?.message == "Unknown option '--wher'.")
        #expect(error?.help == "Did you mean '--where'?")
        #expect(error?.command == "cat")
        #expect(usageError("Store", "--zzzzzz")?.help == "See 'folio help cat' for the options.")
    }

    @Test func missingValuesArgumentsAndExtrasAreReported() {
        #expect(usageError("Store", "--limit")?.message == "Missing value for '--limit <N>'.")
        #expect(usageError("Store", "--limit", "--json")?.message == "Missing value for '--limit <N>'.")
        #expect(usageError()?.message == "Missing expected argument 'STORE'.")
        #expect(usageError("a", "b", "c")?.message == "Unexpected argument 'c'.")
        #expect(usageError("a", "--json=yes")?.message == "The flag '--json' does not take a value.")
        #expect(usageError("a", "--limit", "1", "--limit", "2")?.message == "The option '--limit' was given more than once.")
    }

    @Test func integerValuesAreChecked() throws {
        let parsed = try parse("Store", "--limit", "many")
        #expect(throws: UsageError.self) { try parsed.integer("--limit", command: "cat") }
    }

    @Test func editDistanceFindsTyposButNotStrangers() {
        #expect(EditDistance.distance("kitten", "sitting") == 3)
        #expect(EditDistance.distance("cta", "cat") == 1)
        #expect(EditDistance.distance("", "abc") == 3)
        #expect(EditDistance.closest(to: "cta", in: ["cat", "log", "info"]) == "cat")
        #expect(EditDistance.closest(to: "verfiy", in: ["verify", "repair"]) == "verify")
        #expect(EditDistance.closest(to: "xyzzy", in: ["cat", "log"]) == nil)
    }

    @Test func everySubcommandHasHelpWithItsOptions() {
        for command in FolioCommand.subcommands {
            let help = command.spec.helpText
            #expect(help.contains("USAGE: folio \(command.spec.name)"))
            for option in command.spec.options { #expect(help.contains(option.key)) }
        }
    }
}

@Suite("The --where filter")
struct FilterTests {
    let trip = StoredRecordFixture.trip

    func matches(_ text: String) throws -> Bool {
        try Filter.parse(text).matches(trip, isDate: { $0 == "startDate" })
    }

    @Test func comparisonsOnNumbersStringsAndBooleans() throws {
        #expect(try matches("price < 1000"))
        #expect(try !matches("price > 1000"))
        #expect(try matches("nights == 3"))
        #expect(try matches("nights = 3.0"))
        #expect(try matches("destination == Rome"))
        #expect(try matches("destination != 'New York'"))
        #expect(try matches("name == \"Weekend in Rome\""))
        #expect(try matches("booked == true"))
        #expect(try matches("id == 42 and entity == Trip"))
    }

    @Test func andBindsTighterThanOrAndParenthesesAndNotWork() throws {
        #expect(try matches("destination == Paris or destination == Rome and price < 1000"))
        #expect(try !matches("(destination == Paris or destination == Rome) and price > 1000"))
        #expect(try matches("not destination == Paris"))
        #expect(try !matches("not (price < 1000)"))
    }

    @Test func containsIsACaseInsensitiveSubstringOrArrayMembership() throws {
        #expect(try matches("name contains weekend"))
        #expect(try !matches("name contains Paris"))
        #expect(try matches("tags contains 12"))
        #expect(try !matches("tags contains 13"))
    }

    @Test func nullAndMissingFields() throws {
        #expect(try matches("notes == null"))
        #expect(try matches("missing == null"))
        #expect(try !matches("notes != null"))
        #expect(try !matches("notes < 3"))
        #expect(try matches("mapItem.rawValue == I7"))
    }

    @Test func datesCompareAsDates() throws {
        #expect(try matches("startDate >= 2026-06-01"))
        #expect(try matches("startDate < 2026-06-01T09:30:00.5Z"))
        #expect(try matches("startDate > 2026-06-01T09:29"))
        #expect(try !matches("startDate < 2026-06-01"))
    }

    @Test func syntaxErrorsSayWhatWasExpectedAndWhere() {
        func error(_ text: String) -> FilterSyntaxError? {
            do {
                _ = try Filter.parse(text)
                return nil
            } catch { return error }
        }
        #expect(error("")?.message.contains("empty") == true)
        #expect(error("price <")?.message == "expected a value after '<'")
        #expect(error("price 3")?.column == 6)
        #expect(error("(price < 3")?.message == "expected ')'")
        #expect(error("name == 'open")?.message.contains("unterminated") == true)
        #expect(error("a ! b") != nil)
        #expect(error("a == 1 b == 2")?.message == "expected 'and', 'or' or the end of the filter")
    }
}

enum StoredRecordFixture {
    static let trip = StoredRecord(
        entity: "Trip", id: 42,
        values: [
            "name": .string("Weekend in Rome"), "destination": .string("Rome"), "price": .double(812.5), "nights": .int(3),
            "booked": .bool(true), "notes": .null, "tags": .array([.int(12), .int(14)]),
            "startDate": .string("2026-06-01T09:30:00Z"), "mapItem": .object(["rawValue": .string("I7")]),
        ])
}

@Suite("Output and text helpers")
struct OutputTests {
    @Test func datesParseInEveryAcceptedFormAndFormatBack() throws {
        let date = try #require(DateText.parse("2026-03-01T09:30:00Z"))
        #expect(date.timeIntervalSince1970 == 1_772_357_400)
        #expect(DateText.parse("2026-03-01T09:30:00.25Z")?.timeIntervalSince1970 == 1_772_357_400.25)
        #expect(DateText.parse("2026-03-01")?.timeIntervalSince1970 == 1_772_323_200)
        #expect(DateText.parse("2026-03-01T09:30")?.timeIntervalSince1970 == 1_772_357_400)
        #expect(DateText.parse("2026-13-01") == nil)
        #expect(DateText.parse("yesterday") == nil)
        #expect(DateText.format(date) == "2026-03-01 09:30:00 UTC")
        #expect(DateText.iso(date) == "2026-03-01T09:30:00.000Z")
        #expect(DateText.canonical(date) == "2026-03-01T09:30:00Z")
        #expect(DateText.canonical(date.addingTimeInterval(0.25)) == "2026-03-01T09:30:00.25Z")
        let now = Date(timeIntervalSince1970: 1_000_000)
        #expect(StoreAccess.parseDate("2d", now: now) == now.addingTimeInterval(-172_800))
    }

    @Test(arguments: 1...4 as ClosedRange<UInt64>)
    func aDatesFractionIsTheDoubleItsDigitsSpell(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        for _ in 0..<2_000 {
            let digits = String((0..<Int(random.next() % 20 + 1)).map { _ in Character(String(random.next() % 10)) })
            let parsed = try #require(DateText.parse("2026-03-01T09:30:07.\(digits)Z"), "seed \(seed): \(digits)")
            let fraction = try #require(Double("0." + digits))
            // The parser's own sum: the day's seconds, then the time of day, then the fraction.
            #expect(parsed == Date(timeIntervalSince1970: 1_772_323_200 + ((34_200 + 7) + fraction)), "seed \(seed): .\(digits)")
        }
    }

    @Test func csvQuotesOnlyWhatNeedsItAndParsesBack() throws {
        #expect(CSV.field("plain") == "plain")
        #expect(CSV.field("a,b") == "\"a,b\"")
        #expect(CSV.field("say \"hi\"") == "\"say \"\"hi\"\"\"")
        let rows = try CSV.parse("id,name,notes\r\n1,\"a,b\",\"line\nbreak\"\r\n2,\"q\"\"x\",\n")
        #expect(rows == [["id", "name", "notes"], ["1", "a,b", "line\nbreak"], ["2", "q\"x", ""]])
    }

    @Test func tablesAlignColumnsAndCutLongCells() {
        var table = TextTable(headers: ["ID", "NAME"])
        table.rightAligned = [0]
        table.maximumCellWidth = 8
        table.append(["7", "Rome"])
        table.append(["1234", "A very long name"])
        #expect(table.render() == ["  ID  NAME", "   7  Rome", "1234  A very …"])
    }

    @Test func prettyJSONIndentsContainersAndSortsKeys() {
        let value = JSONValue.object(["b": .array([.int(1), .int(2)]), "a": .object(["c": .null])])
        #expect(ValueFormatting.pretty(value) == "{\n  \"a\": {\n    \"c\": null\n  },\n  \"b\": [1,2]\n}")
    }
}
