import Foundation
import FolioStorage

/// The stores a server shows, by the name their URLs use. Each is opened read-only on first use and
/// brought up to date before every page, so that what other processes wrote shows on the next load;
/// a store that can no longer be refreshed (damaged, or replaced by git) is opened again.
final class ServedStores: Sendable {
    /// A store directory given on the command line and the URL name it is served under.
    struct Entry: Sendable {
        var name: String
        var path: String
    }

    let entries: [Entry]
    /// Each store's slot, by name: one store refreshing (or waiting for git) holds up pages of no other.
    private let slots: [String: Slot]

    /// The open store of one entry with what the server keeps of it, nil until first used and after
    /// it failed.
    private final class Slot: Sendable {
        let store = LockedState<StoreViews?>(nil)
    }

    /// How long opening a store waits for git to finish replacing its files.
    static let gitLockWait = 5.0

    /// Names that would collide with the server's own URLs: a store named so gets a suffix.
    static let reservedNames: Set<String> = ["", "-", ".", "..", "index.json", "favicon.ico"]

    /// Names each path after its last component, made unique with `-2`, `-3`… suffixes.
    init(paths: [String]) {
        var entries: [Entry] = []
        var taken = Self.reservedNames
        for path in paths {
            let trimmed = path.hasSuffix("/") && path.count > 1 ? String(path.dropLast()) : path
            let base = trimmed.split(separator: "/").last.map(String.init) ?? "store"
            var name = base
            var suffix = 2
            while taken.contains(name) || taken.contains(name + ".json") || name.hasSuffix(".json") && taken.contains(String(name.dropLast(5))) {
                name = "\(base)-\(suffix)"
                suffix += 1
            }
            taken.insert(name)
            entries.append(Entry(name: name, path: path))
        }
        self.entries = entries
        slots = Dictionary(uniqueKeysWithValues: entries.map { ($0.name, Slot()) })
    }

    func entry(named name: String) -> Entry? {
        entries.first { $0.name == name }
    }

    /// The store served as `name`, refreshed to its current state, with what the server keeps of it.
    /// A store opened now, or found changed, gets its orders made ahead (``StoreViews/prepareAhead(schema:)``).
    ///
    /// - Throws: ``CommandFailure`` when the store cannot be opened or read now.
    func current(_ name: String) throws -> StoreViews {
        guard let entry = entry(named: name), let slot = slots[name] else {
            throw CommandFailure("No store named '\(name)' is served here.")
        }
        let views = try slot.store.withLock { open -> StoreViews in
            if let views = open {
                do {
                    try views.store.refresh()
                    return views
                } catch {
                    // Replaced or damaged since it was opened: open it again below. The old store closes
                    // when the last page reading it lets go of it.
                    open = nil
                }
            }
            // Git replacing the store's files (a checkout, merge or reset) holds its index lock: open
            // the store once git is done, not half replaced. A lock a killed git left is waited for
            // only so long; then the page reads the files as they are. A git that started while the
            // store was read replaced its journal: the refresh waits for it and reads the files again.
            _ = Store.waitForGitBeforeReading(at: URL(fileURLWithPath: entry.path), seconds: Self.gitLockWait)
            let store = try StoreAccess.openReadOnly(entry.path)
            try store.refresh()
            let views = StoreViews(store: store)
            open = views
            return views
        }
        views.prepareAhead(schema: SchemaInfo(views.store.schema))
        return views
    }

    /// Closes every open store.
    func closeAll() {
        for slot in slots.values {
            let views = slot.store.withLock { open in
                defer { open = nil }
                return open
            }
            views?.store.close()
        }
    }
}
