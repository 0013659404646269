/// The identifier of the store a container opened, in one object that the backing data of every
/// model the container's contexts make refers to: one reference per model instead of a string's two
/// words, which keeps each model's backing data in a smaller allocation.
final class StoreIdentity: Sendable {
    /// The identifier persistent identifiers carry (``PersistentIdentifier/storeIdentifier``).
    let identifier: String

    init(_ identifier: String) {
        self.identifier = identifier
    }
}
