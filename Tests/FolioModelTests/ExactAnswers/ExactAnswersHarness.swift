import Foundation
@_spi(FolioEngine) import FolioStorage
@testable import Folio

/// Drives one seed of the exact-answers differential test: random exhibits saved, changed, deleted,
/// compacted and reopened, and random fetches, counts, identifiers, sections and aggregates, each
/// compared with `Predicate.evaluate` and the documented sort over the values kept in a
/// ``ExhibitMirror``. Every failure message starts with the seed and the case number, which replay it
/// (`FOLIO_DIFFERENTIAL_SEED=<seed> swift test --filter ExactAnswers`).
final class ExactAnswersHarness {
    let seed: UInt64
    private var rng: SplitMix64
    private var mirror = ExhibitMirror()
    private var container: ModelContainer
    private var context: ModelContext
    private let store: TemporaryStore
    /// The live model of each serial, in `context`.
    private var models: [Int: Exhibit] = [:]
    /// A detached model of each mirrored exhibit, for `Predicate.evaluate`.
    private var detached: [Int: Exhibit] = [:]
    private(set) var failures: [String] = []
    /// How many queries each access path answered.
    private(set) var accessPaths: [String: Int] = [:]
    private(set) var queriesRun = 0
    private var caseNumber = 0

    init(seed: UInt64) throws {
        self.seed = seed
        rng = SplitMix64(state: seed)
        store = TemporaryStore("ExactAnswers\(seed)")
        container = try store.container(Exhibit.self)
        context = ModelContext(container)
        context.autosaveEnabled = false
    }

    deinit { store.cleanUp() }

    /// Runs about `queries` random queries over four phases: a first save; saved updates, deletes and
    /// inserts; the store compacted and reopened (its first fetch answered before the records load); and
    /// the same values in an in-memory store.
    func run(queries: Int) throws {
        for _ in 0..<Int.random(in: 80...160, using: &rng) { insertUnsaved() }
        try save()
        try runQueries(queries / 4)

        try changeSaved()
        try runQueries(queries / 4)

        try container.compact()
        container.store.cacheBuilds.wait()
        try reopen(inMemory: false)
        try firstFetchBeforeLoading()
        try runQueries(queries / 4)

        try reopen(inMemory: true)
        try runQueries(queries - 3 * (queries / 4))
    }

    // MARK: Changes

    private func insertUnsaved() {
        let values = mirror.insert(&rng)
        let model = values.detached()
        context.insert(model)
        models[values.serial] = model
        detached[values.serial] = values.detached()
    }

    private func save() throws {
        try context.save()
    }

    /// Saved updates and deletes of random exhibits, and a few inserts.
    private func changeSaved() throws {
        for _ in 0..<Int.random(in: 10...40, using: &rng) { changeOne() }
        for _ in 0..<Int.random(in: 5...20, using: &rng) { deleteOne() }
        for _ in 0..<Int.random(in: 5...20, using: &rng) { insertUnsaved() }
        try save()
    }

    private func changeOne() {
        guard var values = mirror.exhibits.randomElement(using: &rng), let model = models[values.serial] else { return }
        values.change(&rng)
        values.apply(to: model)
        mirror.update(values)
        detached[values.serial] = values.detached()
    }

    private func deleteOne() {
        guard let values = mirror.exhibits.randomElement(using: &rng), let model = models[values.serial] else { return }
        context.delete(model)
        mirror.remove(serial: values.serial)
        models[values.serial] = nil
        detached[values.serial] = nil
    }

    /// Opens the store again in a new container (or the mirrored values in a new in-memory store), and
    /// checks that it holds every exhibit.
    private func reopen(inMemory: Bool) throws {
        models = [:]
        if inMemory {
            container = try ModelContainer(for: Exhibit.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
            context = ModelContext(container)
            context.autosaveEnabled = false
            for values in mirror.exhibits {
                let model = values.detached()
                context.insert(model)
                models[values.serial] = model
            }
            try save()
        } else {
            container = try store.container(Exhibit.self)
            context = ModelContext(container)
            context.autosaveEnabled = false
        }
    }

    /// A new process's first fetch, an equality on an `#Index`ed string, answered from the snapshot
    /// cache before the records load, in a few new containers (the words with other spellings among
    /// them); then every model, to find the live ones.
    private func firstFetchBeforeLoading() throws {
        let spelledTwoWays = ["café", "cafe\u{301}", "K", "\u{212A}", "Å", "\u{212B}", "e\u{301}", "각", "가\u{11A8}"]
        for word in spelledTwoWays + (0..<4).map({ _ in ValueDomain.word(&rng) }) {
            caseNumber += 1
            container = try store.container(Exhibit.self)
            context = ModelContext(container)
            context.autosaveEnabled = false
            let predicate = #Predicate<Exhibit> { $0.text == word }
            let fetched = try context.fetch(FetchDescriptor(predicate: predicate)).map(\.serial)
            let expected = try matches(predicate).map(\.serial)
            if fetched != expected {
                fail("first fetch: text == \(word.debugDescription):\n  expected \(describe(expected))\n  actual   \(describe(fetched))")
            }
            if container.store.hasLoadedRecords { fail("first fetch: text == \(word.debugDescription) read every record") }
            accessPaths["answered before the records load", default: 0] += 1
        }
        for model in try context.fetch(FetchDescriptor<Exhibit>()) { models[model.serial] = model }
        if models.count != mirror.exhibits.count {
            fail("the reopened store holds \(models.count) exhibits, not \(mirror.exhibits.count)")
        }
    }

    // MARK: Queries

    private func runQueries(_ count: Int) throws {
        for _ in 0..<count {
            caseNumber += 1
            queriesRun += 1
            if Int.random(in: 0..<4, using: &rng) == 0 {
                try withPendingChanges { try runOneQuery() }
            } else {
                try runOneQuery()
            }
        }
    }

    /// Runs `body` with unsaved inserts, changes and deletes in the context, then rolls them back.
    private func withPendingChanges(_ body: () throws -> Void) throws {
        let savedMirror = mirror
        let savedDetached = detached
        let savedModels = models
        for _ in 0..<Int.random(in: 0...3, using: &rng) { insertUnsaved() }
        for _ in 0..<Int.random(in: 0...3, using: &rng) { changeOne() }
        for _ in 0..<Int.random(in: 0...2, using: &rng) { deleteOne() }
        defer {
            context.rollback()
            mirror = savedMirror
            detached = savedDetached
            models = savedModels
        }
        try body()
    }

    private func runOneQuery() throws {
        var (name, predicate) = ExhibitPredicates.random(&rng)
        let sort = ReferenceSort.random(&rng)
        var descriptor = FetchDescriptor<Exhibit>(predicate: predicate, sortBy: sort.descriptors)
        if Int.random(in: 0..<20, using: &rng) == 0 {
            name = "no predicate"
            descriptor.predicate = nil
            predicate = #Predicate { _ in true }
        }
        if Bool.random(using: &rng) { descriptor.fetchLimit = Int.random(in: 0..<25, using: &rng) }
        if Int.random(in: 0..<4, using: &rng) == 0 { descriptor.fetchOffset = Int.random(in: 0..<20, using: &rng) }
        let matching = try matches(predicate)
        try compareFetch(name, descriptor, sort: sort, expectedValues: matching)
        switch Int.random(in: 0..<6, using: &rng) {
        case 0: try compareSections(name, predicate, sort: sort, matching: matching)
        case 1: try compareAggregates(name, predicate, matching: matching)
        default: break
        }
    }

    /// The mirrored exhibits `predicate` holds for, in record order, by `Predicate.evaluate`.
    private func matches(_ predicate: Predicate<Exhibit>) throws -> [ExhibitValues] {
        try mirror.exhibits.filter { values in
            guard let model = detached[values.serial] else { return false }
            return try predicate.evaluate(model)
        }
    }

    private func compareFetch(
        _ name: String, _ descriptor: FetchDescriptor<Exhibit>, sort: ReferenceSort,
        expectedValues: [ExhibitValues]
    ) throws {
        var expected = sort.sorted(expectedValues).map(\.serial)
        let total = expected.count
        let offset = min(max(0, descriptor.fetchOffset ?? 0), expected.count)
        expected = Array(expected[offset...])
        if let limit = descriptor.fetchLimit { expected = Array(expected.prefix(limit)) }
        let situation =
            "'\(name)' sort [\(sort)] limit \(descriptor.fetchLimit.map(String.init) ?? "-") offset \(descriptor.fetchOffset.map(String.init) ?? "-")"
        do {
            let plan = (try? context.queryPlan(for: descriptor))?.description ?? "?"
            accessPaths[context.accessPathKind(for: descriptor, hasPendingChanges: context.hasChanges), default: 0] += 1
            let fetched = try context.fetch(descriptor)
            let actual = fetched.map(\.serial)
            if actual != expected {
                let from = zip(actual, expected).prefix { $0 == $1 }.count
                fail(
                    "\(situation) plan \(plan), from position \(from):\n  expected \(describe(Array(expected.dropFirst(from))))\n  actual   \(describe(Array(actual.dropFirst(from))))"
                )
            }
            var unwindowed = descriptor
            unwindowed.fetchLimit = nil
            unwindowed.fetchOffset = nil
            let count = try context.fetchCount(unwindowed)
            if count != total { fail("\(situation): fetchCount \(count), expected \(total)") }
            let identifiers = try context.fetchIdentifiers(descriptor)
            if identifiers != fetched.map(\.persistentModelID) { fail("\(situation): fetchIdentifiers differ from fetch") }
        } catch {
            fail("\(situation) threw \(error)")
        }
    }

    /// Sections by `text` (or by the optional `maybeText`, nil joining "" first): titles equal by `==`,
    /// each section in the descriptor's order, sections in the order of the descriptor's first key
    /// when it is the section's property, else by title in the documented order.
    private func compareSections(
        _ name: String, _ predicate: Predicate<Exhibit>, sort: ReferenceSort,
        matching: [ExhibitValues]
    ) throws {
        let descriptor = FetchDescriptor<Exhibit>(predicate: predicate, sortBy: sort.descriptors)
        let sorted = sort.sorted(matching)
        let byOptional = Bool.random(using: &rng)
        let field: SortField = byOptional ? .maybeText : .text
        var groups: [(title: String, members: [ExhibitValues])] = []
        for value in sorted {
            let title = byOptional ? value.maybeText ?? "" : value.text
            if let position = groups.firstIndex(where: { $0.title == title }) {
                groups[position].members.append(value)
            } else {
                groups.append((title, [value]))
            }
        }
        if byOptional, let position = groups.firstIndex(where: { $0.title.isEmpty }) {
            // nil before "" in the "" section.
            let members = groups[position].members
            groups[position].members = members.filter { $0.maybeText == nil } + members.filter { $0.maybeText != nil }
        }
        let leading = sort.keys.first.flatMap { $0.field == field ? $0 : nil }
        groups.sort { a, b in
            if let leading, let x = a.members.first, let y = b.members.first {
                let order = field.compare(x, y)
                if order != .orderedSame { return (order == .orderedAscending) == (leading.order == .forward) }
            }
            return ReferenceOrder.compare(a.title, b.title) == .orderedAscending
        }
        let expected = groups.map { (title: $0.title, serials: $0.members.map(\.serial)) }
        let actual: [(title: String, serials: [Int])]
        do {
            if byOptional {
                actual = try context.fetch(descriptor, sectionBy: \.maybeText).map { ($0.title, $0.elements.map(\.serial)) }
            } else {
                actual = try context.fetch(descriptor, sectionBy: \.text).map { ($0.title, $0.elements.map(\.serial)) }
            }
        } catch {
            fail("sections of '\(name)' threw \(error)")
            return
        }
        let same =
            expected.count == actual.count
            && zip(expected, actual).allSatisfy { $0.title == $1.title && $0.serials == $1.serials }
        if !same {
            fail(
                "sections of '\(name)' by \(field) sort [\(sort)]:\n  expected \(expected.map { "\($0.title.debugDescription): \($0.serials)" })\n  actual   \(actual.map { "\($0.title.debugDescription): \($0.serials)" })"
            )
        }
    }

    /// Sums, means, minimums, maximums and grouped counts, each equal to Swift's own over the matching
    /// values in record order (floating-point sums depend on the order); an integer sum that overflows,
    /// where Swift's would trap, throws.
    private func compareAggregates(_ name: String, _ predicate: Predicate<Exhibit>, matching: [ExhibitValues]) throws {
        func same(_ a: Double?, _ b: Double?) -> Bool {
            switch (a, b) {
            case (nil, nil): return true
            case let (x?, y?): return x.bitPattern == y.bitPattern || (x.isNaN && y.isNaN) || (x == 0 && y == 0 && x.sign == y.sign)
            default: return false
            }
        }
        do {
            let numbers = matching.map(\.number)
            let sum = try context.sum(\Exhibit.numberCopy, where: predicate)
            if !same(sum, numbers.reduce(0, +)) { fail("sum of numberCopy for '\(name)': \(sum), expected \(numbers.reduce(0, +))") }
            let least = try context.minimum(\Exhibit.number, where: predicate)
            if !same(least, numbers.min()) {
                fail("minimum of number for '\(name)': \(String(describing: least)), expected \(String(describing: numbers.min()))")
            }
            let greatest = try context.maximum(\Exhibit.numberCopy, where: predicate)
            if !same(greatest, numbers.max()) {
                fail("maximum of numberCopy for '\(name)': \(String(describing: greatest)), expected \(String(describing: numbers.max()))")
            }
            let mean = try context.average(\Exhibit.number, where: predicate)
            let expectedMean = numbers.isEmpty ? nil : numbers.reduce(0, +) / Double(numbers.count)
            if !same(mean, expectedMean) {
                fail("average of number for '\(name)': \(String(describing: mean)), expected \(String(describing: expectedMean))")
            }
            let leastText = try context.minimum(\Exhibit.text, where: predicate)
            if leastText != matching.map(\.text).min() { fail("minimum of text for '\(name)': \(String(describing: leastText?.debugDescription))") }
            let counts = try context.count(Exhibit.self, where: predicate, groupedBy: \.tag)
            let expectedCounts = Dictionary(matching.map { ($0.tag, 1) }, uniquingKeysWith: +)
            if counts != expectedCounts { fail("count grouped by tag for '\(name)': \(counts), expected \(expectedCounts)") }
        } catch {
            fail("aggregates of '\(name)' threw \(error)")
        }
        var expectedSum = 0
        var overflows = false
        for value in matching.map(\.integer) {
            let (partial, overflow) = expectedSum.addingReportingOverflow(value)
            if overflow { overflows = true; break }
            expectedSum = partial
        }
        do {
            let sum = try context.sum(\Exhibit.integerCopy, where: predicate)
            if overflows {
                fail("sum of integerCopy for '\(name)' overflows Int, yet gave \(sum)")
            } else if sum != expectedSum {
                fail("sum of integerCopy for '\(name)': \(sum), expected \(expectedSum)")
            }
        } catch {
            if !overflows { fail("sum of integerCopy for '\(name)' threw \(error)") }
        }
    }

    // MARK: Reporting

    private func describe(_ serials: [Int]) -> String {
        let shown = serials.prefix(8).map { serial -> String in
            guard let values = mirror.exhibits.first(where: { $0.serial == serial }) else { return "#\(serial)" }
            return
                "#\(serial)(\(values.text.debugDescription) \(values.number) \(values.integer) \(values.date.timeIntervalSinceReferenceDate) \(values.maybeText?.debugDescription ?? "nil") \(values.maybeNumber.map { "\($0)" } ?? "nil") \(values.tag.debugDescription))"
        }
        return "\(serials.count): " + shown.joined(separator: " ") + (serials.count > 8 ? " …" : "")
    }

    private func fail(_ message: String) {
        failures.append("seed \(seed) case \(caseNumber): \(message)")
    }
}

extension ModelContext {
    /// The kind of access path the planner chooses for `descriptor`, for the test's coverage count.
    func accessPathKind<T: PersistentModel>(for descriptor: FetchDescriptor<T>, hasPendingChanges: Bool) -> String {
        let access: AccessPath? = try? withContainerLock(refusingReentry: "accessPathKind") { state in
            try container.syncIndex(in: &state, fromDisk: true)
            return try physicalPlan(descriptor, index: index(in: &state)).access
        }
        let pending = hasPendingChanges ? " with unsaved changes" : ""
        switch access {
        case .orderedWalk?: return "ordered walk" + pending
        case .index(_, let probe, _)?:
            switch probe {
            case .keys(let keys): return (keys.count > 1 ? "IN list" : "equality") + pending
            case .range: return "range" + pending
            case .union: return "union of probes" + pending
            }
        case .columnScan?: return "column scan" + pending
        case .recordScan?: return "record scan" + pending
        case .allIdentifiers?: return "every identifier" + pending
        case nil: return "no plan"
        }
    }
}
