import Foundation

/// `folio demo`: builds a store from SampleData and tours the API.
enum DemoCommand: FolioSubcommand {
    static let spec = CommandSpec(
        name: "demo", abstract: "Build a store from SampleData and tour Folio's API with printed results.",
        discussion: """
            Creates a new store (in a new temporary directory unless --store names one), fills it from SampleData/
            with the demo's models (Recipe, BakedGood, Beverage, Ingredient, Cookbook, Trip), then fetches
            polymorphically and by subclass, filters with #Predicate, sorts, groups trips into sections, round-trips
            a .codable attribute, shows the error for sorting inside it, computes aggregates, saves a change and
            reads it back from the history. It ends with offline commands to try on the store it leaves.
            """,
        options: [
            .option("--store", value: "DIR", help: "Build the store in DIR (which must not hold a store yet)."),
            .option("--sample-data", value: "DIR", help: "Read sample data from DIR (default: the package's SampleData)."),
        ],
        examples: ["swift run folio demo", "folio demo --store /tmp/demo-store"])

    static func run(_ arguments: ParsedArguments, console: Console) throws -> Int32 {
        let sample = try SampleDataLoader.locate(arguments.value("--sample-data"))
        let directory: URL
        if let given = arguments.value("--store") {
            directory = URL(fileURLWithPath: given, isDirectory: true).standardizedFileURL
            let existing = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
            if existing.contains(where: { ["manifest.json", "journal.jsonl", "snapshots"].contains($0) }) {
                throw UsageError(
                    "'\(given)' already holds a store.", help: "Give a new or empty directory, or omit --store for a temporary one.",
                    command: spec.name)
            }
        } else {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("folio-demo-\(UUID().uuidString.prefix(8))", isDirectory: true)
        }
        var tour = DemoTour(store: directory, sample: sample, console: console)
        do {
            try tour.run()
        } catch let error as CommandFailure {
            throw error
        } catch let error as UsageError {
            throw error
        } catch {
            throw CommandFailure("The demo stopped: \(error)", help: "The store it was building is at \(directory.path).")
        }
        return ExitCode.success
    }
}
