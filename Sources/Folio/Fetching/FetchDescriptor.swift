/// What to fetch: a predicate, a sort order, and a window of the results.
///
/// ```swift
/// var descriptor = FetchDescriptor<Trip>(predicate: #Predicate { $0.destination == "Rome" },
///                                        sortBy: [SortDescriptor(\.startDate, order: .reverse)])
/// descriptor.fetchLimit = 20
/// let trips = try context.fetch(descriptor)
/// ```
///
/// Fetching a model class returns instances of its subclasses too, each as its own type.
public struct FetchDescriptor<T: PersistentModel> {
    /// Which models to return; nil for all.
    public var predicate: Predicate<T>?
    /// The order of the results. Without one, results come in the order their records were created.
    public var sortBy: [SortDescriptor<T>]
    /// The greatest number of models to return; nil for no limit.
    public var fetchLimit: Int?
    /// How many of the sorted results to skip; nil for none.
    public var fetchOffset: Int?
    /// Whether unsaved inserts, changes and deletes of the context count. The default is `true`.
    public var includePendingChanges: Bool = true
    /// The properties to load during the fetch. Fetched models are otherwise faults, whose properties
    /// are decoded when first read; when this lists any property, Folio decodes every property of each
    /// model during the fetch (a stored record that cannot be decoded then makes the fetch throw).
    public var propertiesToFetch: [PartialKeyPath<T>] = []
    /// Accepted as a hint for SwiftData compatibility: Folio resolves relationships when first read.
    public var relationshipKeyPathsForPrefetching: [PartialKeyPath<T>] = []

    /// Creates a descriptor.
    public init(predicate: Predicate<T>? = nil, sortBy: [SortDescriptor<T>] = []) {
        self.predicate = predicate
        self.sortBy = sortBy
    }
}
