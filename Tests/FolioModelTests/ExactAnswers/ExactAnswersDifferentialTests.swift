import Foundation
import Testing
@testable import Folio

/// Every fetch, count, identifier list, section and aggregate equals `Predicate.evaluate` over every
/// model followed by the documented sort, across the whole value domain, whatever access path runs.
///
/// `swift test` runs a short form; `FOLIO_LONG_TESTS=1` runs 10 seeds of 10,000 queries;
/// `FOLIO_DIFFERENTIAL_SEED=<seed>` replays one seed of a failure message.
@Suite("Exact answers across the value domain")
struct ExactAnswersDifferentialTests {
    static var runs: (seeds: [UInt64], queries: Int) {
        let environment = ProcessInfo.processInfo.environment
        if let text = environment["FOLIO_DIFFERENTIAL_SEED"], let seed = UInt64(text) { return ([seed], 10_000) }
        if environment["FOLIO_LONG_TESTS"] == "1" { return ((1...10).map { 20_261_207 &* UInt64($0) }, 10_000) }
        return ([20_261_207, 7], 500)
    }

    @Test func everyAnswerEqualsPredicateEvaluateAndTheDocumentedOrder() throws {
        let (seeds, queries) = Self.runs
        var total = 0
        var paths: [String: Int] = [:]
        for seed in seeds {
            let harness = try ExactAnswersHarness(seed: seed)
            try harness.run(queries: queries)
            total += harness.queriesRun
            paths.merge(harness.accessPaths, uniquingKeysWith: +)
            for failure in harness.failures.prefix(8) { Issue.record(Comment(rawValue: failure)) }
            #expect(harness.failures.isEmpty, "seed \(seed): \(harness.failures.count) mismatches in \(harness.queriesRun) queries")
        }
        #expect(total >= seeds.count * (queries - 4))
        // Every access path answered some of the queries.
        let kinds = [
            "ordered walk", "equality", "IN list", "range", "union of probes", "column scan", "record scan",
            "every identifier", "equality with unsaved changes", "range with unsaved changes",
            "every identifier with unsaved changes", "answered before the records load",
        ]
        for kind in kinds { #expect(paths[kind, default: 0] > 0, "no query took the path '\(kind)': \(paths)") }
    }
}
