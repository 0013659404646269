import Synchronization

/// What was worked out once about each type, for lookups that every thread encoding or decoding makes
/// for each value: reading takes no lock and writes nothing that other threads read.
///
/// A lock would make every lookup write the lock's word, shared by the cores of a large save. Here readers load a pointer to an immutable snapshot and look the type up in it. A writer
/// publishes a new snapshot with the new entry; the snapshots it replaces are never freed, because a
/// reader may still be looking into one. A process meets a bounded number of types, and the table is
/// only written when a type is seen for the first time, so what is kept is small: for `n` types, the
/// snapshots hold `n(n + 1)/2` entries in all.
final class TypeTable<Value: Sendable>: Sendable {
    /// One version of the table. Never changed once published, and never freed.
    private final class Snapshot: Sendable {
        let entries: [ObjectIdentifier: Value]

        init(_ entries: [ObjectIdentifier: Value]) {
            self.entries = entries
        }
    }

    /// The address of the latest snapshot, retained once for good; 0 before the first entry.
    private let latest = Atomic<Int>(0)
    /// Serializes writers, so that no entry added at the same time is lost.
    private let writing = Mutex<Void>(())

    init() {}

    /// What was recorded for `type`, if anything.
    func value(for type: any Any.Type) -> Value? {
        guard let latest = Self.snapshot(at: latest.load(ordering: .acquiring)) else { return nil }
        return latest._withUnsafeGuaranteedRef { $0.entries[ObjectIdentifier(type)] }
    }

    /// The value recorded for `type`, working it out with `makeValue` (outside any lock) and recording it
    /// the first time. Threads that race on a new type may each work it out; the first one recorded wins,
    /// and every caller gets that one.
    func value(for type: any Any.Type, makeValue: () -> Value) -> Value {
        if let known = value(for: type) { return known }
        let made = makeValue()
        return writing.withLock { _ in
            let current = Self.snapshot(at: latest.load(ordering: .acquiring))?.takeUnretainedValue()
            if let known = current?.entries[ObjectIdentifier(type)] { return known }
            var entries = current?.entries ?? [:]
            entries[ObjectIdentifier(type)] = made
            let published = Unmanaged.passRetained(Snapshot(entries))
            latest.store(Int(bitPattern: published.toOpaque()), ordering: .releasing)
            return made
        }
    }

    /// The number of types recorded.
    var count: Int {
        guard let latest = Self.snapshot(at: latest.load(ordering: .acquiring)) else { return 0 }
        return latest._withUnsafeGuaranteedRef { $0.entries.count }
    }

    private static func snapshot(at address: Int) -> Unmanaged<Snapshot>? {
        UnsafeRawPointer(bitPattern: address).map { Unmanaged<Snapshot>.fromOpaque($0) }
    }
}
