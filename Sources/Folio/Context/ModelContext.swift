/// The object that tracks models, their changes, and saves them to a container's store.
public final class ModelContext {
    /// Models whose relationships are resolved through this context.
    func resolveRelationships<Model: PersistentModel>(of model: Model) {}

    /// Called by a model's setter after a persisted property changed.
    func modelDidChange<Model: PersistentModel>(_ model: Model, property: String) {}
}
