extension ModelContext {
    /// The model with this identifier, as `T`, if it exists: registered here, or stored in this
    /// context's store. Unlike ``model(for:)``, nil instead of a placeholder.
    func existingModel<T: PersistentModel>(for identifier: PersistentIdentifier) -> T? {
        guard let number = identifier.recordNumber else { return registeredModel(for: identifier) }
        // A record number means something only in the store that gave it out.
        guard identifier.storeIdentifier == container.storeIdentifier else { return nil }
        return model(forRecordNumber: number) as? T
    }
}
