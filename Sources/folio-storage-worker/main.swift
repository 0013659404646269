// A helper process for the storage tests: it writes to a store in a loop and prints one line per
// acknowledged transaction, so that a test can kill it (SIGKILL) at any moment or run several at once.
//
//   folio-storage-worker append DIR COUNT         insert one Item per transaction; COUNT 0 = forever
//   folio-storage-worker increment DIR COUNT NAME per transaction: insert a Log record and add 1 to the
//                                                 shared Counter record (read-modify-write)
//   folio-storage-worker compact DIR COUNT        compact COUNT times (0 = forever)
//   folio-storage-worker sync-churn DIR COUNT NAME SEED
//                                                 COUNT random saves by NAME to a store in a git clone,
//                                                 syncing with its upstream at random (see SyncChurn)
//   folio-storage-worker append-compacting DIR COUNT
//                                                 as append, with automatic compaction in the background
//                                                 past 4 KiB and no fsync (SIGKILL loses nothing in the
//                                                 page cache), so that compactions run all the time; it
//                                                 pauses 0.5 ms per transaction so as not to take a whole
//                                                 core from the tests running beside it
//
// Each acknowledged transaction prints "ack SEQUENCE ID" after `write` returned. A worker whose parent
// (the test) has gone exits, so that a test run that is itself killed leaves no worker behind.

import FolioStorage
import Foundation

/// Writes a line to stdout unbuffered, so the parent sees it as soon as `write` returned.
func acknowledge(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("folio-storage-worker: \(message)\n".utf8))
    exit(2)
}

let arguments = CommandLine.arguments
guard arguments.count >= 4, let count = Int(arguments[3]) else {
    fail("usage: folio-storage-worker append|append-compacting|increment|compact|sync-churn DIR COUNT [NAME [SEED]]")
}
let directory = URL(fileURLWithPath: arguments[2])
if arguments[1] == "sync-churn" {
    guard arguments.count >= 6, let seed = UInt64(arguments[5]) else { fail("sync-churn needs a NAME and a SEED") }
    do { try SyncChurn.run(directory: directory, count: count, name: arguments[4], seed: seed) } catch { fail("\(error)") }
    exit(0)
}
var configuration = StoreConfiguration()
configuration.compactionThreshold = nil
if arguments[1] == "append-compacting" {
    configuration.compactionThreshold = 4096
    configuration.durability = .none
}

do {
    let store = try Store.open(at: directory, configuration: configuration)
    var iteration = 0
    let parent = getppid()
    while count == 0 || iteration < count {
        if getppid() != parent || parent == 1 { exit(0) }  // orphaned: nobody is waiting for it
        iteration += 1
        switch arguments[1] {
        case "append", "append-compacting":
            var newID: Int64 = 0
            let committed = try store.write(author: "worker") { tx in
                newID = tx.allocateID()
                try tx.insert(
                    entity: "Item", id: newID,
                    values: ["n": .int(Int64(iteration)), "text": .string(String(repeating: "x", count: iteration % 200))])
            }
            acknowledge("ack \(committed?.sequence ?? 0) \(newID)")
            if arguments[1] == "append-compacting" { usleep(500) }
        case "increment":
            guard arguments.count >= 5 else { fail("increment needs a NAME") }
            let name = arguments[4]
            var newID: Int64 = 0
            let committed = try store.write(author: name) { tx in
                newID = tx.allocateID()
                try tx.insert(entity: "Log", id: newID, values: ["writer": .string(name), "n": .int(Int64(iteration))])
                if let counter = tx.records(of: "Counter").first {
                    let value = counter.values["value"]?.intValue ?? 0
                    try tx.update(entity: "Counter", id: counter.id, values: ["value": .int(value + 1)])
                } else {
                    try tx.insert(entity: "Counter", id: tx.allocateID(), values: ["value": .int(1)])
                }
            }
            acknowledge("ack \(committed?.sequence ?? 0) \(newID)")
        case "compact":
            try store.compact()
            acknowledge("ack \(store.lastSequence) 0")
        default:
            fail("unknown command \(arguments[1])")
        }
    }
} catch {
    fail("\(error)")
}
