import Folio
import Foundation
import Synchronization

/// A value whose encoding saves another context of the same container: what an app does by mistake
/// when a `Codable` attribute's `encode(to:)` reaches back into the store.
struct SavesWhenEncoded: Codable {
    /// The container whose contexts the encoding saves; set by ``saveInsideSave(_:)``.
    static let container = Mutex<ModelContainer?>(nil)

    var text = "payload"

    init() {}

    init(from decoder: any Decoder) throws {
        text = try decoder.singleValueContainer().decode(String.self)
    }

    func encode(to encoder: any Encoder) throws {
        if let container = Self.container.withLock({ $0 }) {
            let other = ModelContext(container)
            other.insert(Note(payload: nil))
            try other.save()
        }
        var single = encoder.singleValueContainer()
        try single.encode(text)
    }
}

@Model
final class Note {
    @Attribute(.codable) var payload: SavesWhenEncoded?

    init(payload: SavesWhenEncoded?) {
        self.payload = payload
    }
}

/// Saves a note whose payload's encoding saves again, on the saving thread while the container's lock
/// is held: the inner save stops the process with the lock's reentrancy message.
func saveInsideSave(_ url: URL) throws {
    let container = try ModelContainer(for: Note.self, configurations: ModelConfiguration(url: url))
    SavesWhenEncoded.container.withLock { $0 = container }
    let context = ModelContext(container)
    context.insert(Note(payload: SavesWhenEncoded()))
    try context.save()
    print("the outer save returned")
}
