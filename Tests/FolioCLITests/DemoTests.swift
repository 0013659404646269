import Foundation
import Testing

@Suite("folio demo")
struct DemoTests {
    @Test func theDemoRunsToCompletionAndTours() throws {
        let run = DemoStore.built.run
        #expect(run.status == 0, "\(run)")
        let output = run.stdout
        for expected in [
            "310 recipes: 100 BakedGood, 60 Beverage, 150 Recipe",
            "gluten-free baked goods",
            "trips in July 2026, in",
            "throws FolioError.invalidFetchDescriptor",
            "read back by a new container",
            "equal: true",
            "nights booked in Rome",
            "token #4, author demo",
            "2 updatedAttributes (changedValues: price = ",
            "folio info \(DemoStore.path)",
            "folio verify \(DemoStore.path)",
        ] {
            #expect(output.contains(expected), "missing: \(expected)")
        }
        #expect(run.stderr.isEmpty, "\(run.stderr)")
    }

    @Test func theDemoStoreVerifiesAndHoldsTheSampleData() throws {
        let verify = try folio("verify", DemoStore.path)
        #expect(verify.status == 0, "\(verify)")
        #expect(verify.stdout.contains("OK: no problems"))
        let count = try folio("cat", DemoStore.path, "Trip", "--count")
        #expect(count.stdout == "3000\n")
        let recipes = try folio("cat", DemoStore.path, "Recipe", "--count")
        #expect(recipes.stdout == "310\n")
        let exact = try folio("cat", DemoStore.path, "Recipe", "--exact", "--count")
        #expect(exact.stdout == "150\n")
    }

    @Test func withoutStoreTheDemoUsesANewTemporaryDirectoryAndRefusesAnExistingStore() throws {
        let run = try folio("demo")
        #expect(run.status == 0, "\(run)")
        let line = try #require(run.stdout.split(separator: "\n").first { $0.hasPrefix("Store: ") })
        let path = String(line.dropFirst("Store: ".count))
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(path.contains("folio-demo-"))
        #expect(FileManager.default.fileExists(atPath: path + "/manifest.json"))
        let again = try folio("demo", "--store", path)
        #expect(again.status == 64)
        #expect(again.stderr.contains("already holds a store"))
    }

    @Test func theSampleDataIsSmallAndRegeneratesIdentically() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let sample = root.appendingPathComponent("SampleData")
        var total = 0
        for name in try FileManager.default.contentsOfDirectory(atPath: sample.path) {
            total += (try FileManager.default.attributesOfItem(atPath: sample.appendingPathComponent(name).path)[.size] as? Int) ?? 0
        }
        #expect(total < 2_000_000)
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/env") else { return }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", sample.appendingPathComponent("generate.py").path, "--check"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return }
        process.waitUntilExit()
        if process.terminationStatus == 127 { return }  // no python3 on this machine
        #expect(process.terminationStatus == 0, "SampleData differs from what generate.py writes")
    }
}
