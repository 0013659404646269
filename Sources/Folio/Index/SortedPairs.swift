/// The pairs of a sorted index, by key and then identifier (``SortedEntries/precedes(_:_:)``), kept in
/// columns: the identifiers in one array, and the keys either one per pair or, when most keys repeat,
/// once per run of equal keys.
///
/// A field of a few hundred values over a million records (a city) then keeps a few hundred keys and
/// run ends beside its million identifiers: 8 bytes a pair, where a `QueryKey` and an identifier side
/// by side take 32.
struct SortedPairs: RandomAccessCollection {
    typealias Element = (key: QueryKey, id: Int64)

    /// The identifiers, in the pairs' order.
    private(set) var ids: [Int64] = []
    /// One key per pair or, with ``runEnds``, one per run.
    private var keys: [QueryKey] = []
    /// When keys are kept per run: the position in ``ids`` where each run ends.
    private var runEnds: [Int]?

    init() {}

    /// The pairs of `sorted`, which are in the index's order.
    init(_ sorted: some Collection<Element>) {
        var builder = Builder(expectedCount: sorted.count)
        for pair in sorted { builder.append(pair) }
        self = builder.finish()
    }

    fileprivate init(ids: [Int64], keys: [QueryKey], runEnds: [Int]?) {
        self.ids = ids
        self.keys = keys
        self.runEnds = runEnds
    }

    /// Whether keys are kept once per run of equal keys, for tests.
    var keepsKeysPerRun: Bool { runEnds != nil }

    var startIndex: Int { 0 }
    var endIndex: Int { ids.count }

    subscript(position: Int) -> Element {
        (key(at: position), ids[position])
    }

    func key(at position: Int) -> QueryKey {
        guard let runEnds else { return keys[position] }
        return keys[Self.run(containing: position, runEnds)]
    }

    /// The positions of the pairs whose key is `key` (their identifiers are in increasing order): a
    /// binary search of the keys, which are one per run when most repeat.
    func positions(of key: QueryKey) -> Range<Int> {
        let first = firstPosition { $0 < key }
        guard first < keys.count, keys[first] == key else { return 0..<0 }
        guard let runEnds else { return first..<firstPosition { !(key < $0) } }
        return (first == 0 ? 0 : runEnds[first - 1])..<runEnds[first]
    }

    /// The first position of ``keys`` whose key is not `isBefore`, in a binary search.
    private func firstPosition(where isBefore: (QueryKey) -> Bool) -> Int {
        var low = 0
        var high = keys.count
        while low < high {
            let middle = (low + high) / 2
            if isBefore(keys[middle]) { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// The run that holds `position` (or the number of runs, past the last): the first that ends after it.
    private static func run(containing position: Int, _ runEnds: [Int]) -> Int {
        var low = 0
        var high = runEnds.count
        while low < high {
            let middle = (low + high) / 2
            if runEnds[middle] > position { high = middle } else { low = middle + 1 }
        }
        return low
    }

    /// Calls `body` with each distinct key, in order, and the positions of its pairs.
    func forEachRun(_ body: (QueryKey, Range<Int>) -> Void) {
        if let runEnds {
            var start = 0
            for (run, end) in runEnds.enumerated() {
                body(keys[run], start..<end)
                start = end
            }
            return
        }
        var start = 0
        while start < keys.count {
            var end = start + 1
            while end < keys.count, keys[end] == keys[start] { end += 1 }
            body(keys[start], start..<end)
            start = end
        }
    }

    /// Inserts `pair` at `position`, where it keeps the order.
    mutating func insert(_ pair: Element, at position: Int) {
        ids.insert(pair.id, at: position)
        guard var ends = runEnds else {
            keys.insert(pair.key, at: position)
            return
        }
        runEnds = nil  // keeps `ends` the only reference while it changes
        var run = Self.run(containing: position, ends)
        if run < keys.count, keys[run] == pair.key {
            // Into the run it belongs to.
        } else if run > 0, keys[run - 1] == pair.key {
            run -= 1  // at the end of the run before
        } else {
            // Between two runs (a run's keys are equal, so a new key starts at a boundary).
            keys.insert(pair.key, at: run)
            ends.insert(position, at: run)
        }
        for later in run..<ends.count { ends[later] += 1 }
        runEnds = ends
    }

    /// Removes the pair at `position`.
    mutating func remove(at position: Int) {
        ids.remove(at: position)
        guard var ends = runEnds else {
            keys.remove(at: position)
            return
        }
        runEnds = nil
        let run = Self.run(containing: position, ends)
        for later in run..<ends.count { ends[later] -= 1 }
        if ends[run] == (run == 0 ? 0 : ends[run - 1]) {
            keys.remove(at: run)
            ends.remove(at: run)
        }
        runEnds = ends
    }

    /// Collects pairs given in the index's order. It keeps keys per run while the runs are at most half
    /// the pairs, and from the first sample on which they are not, one key per pair.
    struct Builder {
        private var ids: [Int64] = []
        private var keys: [QueryKey] = []
        private var runEnds: [Int]? = []
        /// After this many pairs, runs that are more than half of them turn into keys per pair.
        static let sample = 4_096

        init(expectedCount: Int) {
            ids.reserveCapacity(expectedCount)
        }

        mutating func append(_ pair: Element) {
            ids.append(pair.id)
            guard runEnds != nil else {
                keys.append(pair.key)
                return
            }
            if let last = keys.last, last == pair.key {
                runEnds?[keys.count - 1] = ids.count
            } else {
                keys.append(pair.key)
                runEnds?.append(ids.count)
            }
            if ids.count == Self.sample, keys.count * 2 > ids.count { keepKeysPerPair() }
        }

        /// Turns the runs so far into one key per pair.
        private mutating func keepKeysPerPair() {
            guard let ends = runEnds else { return }
            var perPair: [QueryKey] = []
            perPair.reserveCapacity(Swift.max(ids.capacity, ids.count))
            var start = 0
            for (run, end) in ends.enumerated() {
                for _ in start..<end { perPair.append(keys[run]) }
                start = end
            }
            keys = perPair
            runEnds = nil
        }

        consuming func finish() -> SortedPairs {
            if let ends = runEnds, ends.count * 2 > ids.count { keepKeysPerPair() }
            return SortedPairs(ids: ids, keys: keys, runEnds: runEnds)
        }
    }
}
