// folio-bench: the Trip workloads W1–W8 of ../shared/bench/README.md through Folio's public API, with
// the same command line and JSON-lines rows as the SQLite peer (sqlite/sqlite_bench.c), plus
// "peer":"folio", peak RSS (VmHWM) and the store's bytes on disk.

import Foundation
import Folio

let usage = """
    usage: folio-bench gen N
           folio-bench load STORE N FULL|NORMAL [BATCH=10000]   (W1)
           folio-bench count STORE                              (W2)
           folio-bench first STORE                              (W9: a new process's first query)
           folio-bench read STORE                               (W3,W4,W5)
           folio-bench single STORE BASE FULL|NORMAL [COUNT]    (W6)
           folio-bench modify STORE [FULL|NORMAL]               (W7,W8)
           folio-bench load-engine STORE N FULL|NORMAL [BATCH]  (W1 through the storage engine alone, no models)
           folio-bench page-cost MIB                            (the time to touch MIB MiB of fresh memory, per page)
           folio-bench migrate STORE compact|lightweight|custom|update-all
                                                                (M1: migrations beside a compaction and an update of all)
           folio-bench merge STORE prepare journal|compacted | open | merge
                                                                (G1: merging two copies that each changed 1 %)
           folio-bench past DIR prepare N TRANSACTIONS | open | asof [BACK=1000] | git | catfile | blame FOLIO
                                                                (P1: a store's past, in a git repository DIR)
           folio-bench serve STORE FOLIO [REQUESTS=200] [CLIENTS=50] [PER_CLIENT=1000]
                                                                (S1: folio serve's pages of a loaded store, FOLIO the binary)
           folio-bench sync STORE prepare | open | git | sync   (Y1: two clones of STORE that each changed 1 %, synced
                                                                 through a bare remote; folio beside folio-bench)
    STORE is a directory. FULL = durability .always; NORMAL = .batched(1 s) (FOLIO_BENCH_RELAXED=none: .none).

    """

func usageExit() -> Never {
    FileHandle.standardError.write(Data(usage.utf8))
    exit(1)
}

let arguments = CommandLine.arguments
if arguments.count < 3 { usageExit() }
let command = arguments[1]

/// `atol`, as the C harness parses numbers.
func number(_ text: String) -> Int { atol(text) }

switch command {
case "gen":
    Workloads.gen(number(arguments[2]))
case "load" where arguments.count >= 5:
    Workloads.load(
        arguments[2], n: number(arguments[3]), sync: arguments[4],
        batch: arguments.count > 5 ? number(arguments[5]) : 10_000)
case "load-engine" where arguments.count >= 5:
    EngineLoad.run(
        arguments[2], n: number(arguments[3]), sync: arguments[4],
        batch: arguments.count > 5 ? number(arguments[5]) : 10_000)
case "count":
    Workloads.count(arguments[2])
case "first":
    Workloads.first(arguments[2])
case "read":
    Workloads.read(arguments[2])
case "single" where arguments.count >= 5:
    Workloads.single(
        arguments[2], base: number(arguments[3]), sync: arguments[4],
        count: arguments.count > 5 ? number(arguments[5]) : 1000)
case "page-cost":
    PageCost.run(mebibytes: number(arguments[2]))
case "migrate" where arguments.count >= 4:
    MigrationBench.run(arguments[2], step: arguments[3])
case "merge" where arguments.count >= 4:
    MergeBench.run(arguments[2], step: arguments[3], mode: arguments.count > 4 ? arguments[4] : "journal")
case "past":
    PastBench.run(arguments)
case "serve" where arguments.count >= 4:
    ServeBench.run(
        store: arguments[2], folio: arguments[3], entity: "Trip",
        requests: arguments.count > 4 ? number(arguments[4]) : 200, clients: arguments.count > 5 ? number(arguments[5]) : 50,
        perClient: arguments.count > 6 ? number(arguments[6]) : 1000)
case "sync" where arguments.count >= 4:
    SyncBench.run(arguments[2], step: arguments[3])
case "modify":
    Workloads.modify(arguments[2], sync: arguments.count > 3 ? arguments[3] : "FULL")
default:
    usageExit()
}
