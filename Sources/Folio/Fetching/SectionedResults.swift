/// Fetched models grouped into sections by the value of a key path, in the order the sorted results
/// meet them, as SwiftData's `@Query(…, sectionBy:)` gives them.
///
/// ```swift
/// let sections = try context.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.startDate)]),
///                                  sectionBy: \.destination)
/// for section in sections {
///     print(section.title, section.count)
/// }
/// ```
public struct SectionedResults<Element: PersistentModel, SectionTitle: Hashable>: RandomAccessCollection {
    /// The sections, in order.
    public let sections: [ResultsSection<Element, SectionTitle>]
    private let positions: [SectionTitle: Int]

    /// Groups `elements`, already sorted by section, into sections.
    init(elements: [Element], title: (Element) -> SectionTitle) {
        var sections: [ResultsSection<Element, SectionTitle>] = []
        var positions: [SectionTitle: Int] = [:]
        var current: [Element] = []
        var currentTitle: SectionTitle?
        for element in elements {
            let elementTitle = title(element)
            if elementTitle != currentTitle, let previous = currentTitle {
                positions[previous] = sections.count
                sections.append(ResultsSection(title: previous, elements: current))
                current = []
            }
            currentTitle = elementTitle
            current.append(element)
        }
        if let last = currentTitle {
            positions[last] = sections.count
            sections.append(ResultsSection(title: last, elements: current))
        }
        self.sections = sections
        self.positions = positions
    }

    /// Sections already grouped and in order.
    init(groups: [(title: SectionTitle, elements: [Element])]) {
        var positions: [SectionTitle: Int] = [:]
        for (offset, group) in groups.enumerated() { positions[group.title] = offset }
        self.sections = groups.map { ResultsSection(title: $0.title, elements: $0.elements) }
        self.positions = positions
    }

    /// No sections.
    public init() {
        self.sections = []
        self.positions = [:]
    }

    public var startIndex: Int { sections.startIndex }
    public var endIndex: Int { sections.endIndex }
    public subscript(position: Int) -> ResultsSection<Element, SectionTitle> { sections[position] }

    /// The section with this title, in O(1).
    public subscript(sectionTitle title: SectionTitle) -> ResultsSection<Element, SectionTitle>? {
        positions[title].map { sections[$0] }
    }

    /// The titles of the sections, in order.
    public var sectionTitles: [SectionTitle] { sections.map(\.title) }
}

/// The order of a fetch's sections.
private enum SectionOrder<T: PersistentModel> {
    /// By title in ``StringOrder``.
    case titles(ascending: Bool)
    /// In the order a sort descriptor gives the sections' first models.
    case firstModels(SortDescriptor<T>)
}

/// One section of ``SectionedResults``: its title and its models.
public struct ResultsSection<Element: PersistentModel, SectionTitle: Hashable>: RandomAccessCollection, Identifiable {
    /// The value of the section key path shared by the section's models.
    public let title: SectionTitle
    /// The models of the section, in sort order.
    public let elements: [Element]

    /// The section's identity: its title.
    public var id: SectionTitle { title }

    public var startIndex: Int { elements.startIndex }
    public var endIndex: Int { elements.endIndex }
    public subscript(position: Int) -> Element { elements[position] }
}

extension ModelContext {
    /// Fetches models grouped into sections by a string property, each section in the descriptor's order.
    ///
    /// Sections come in the order of the descriptor's first sort descriptor when it sorts by the
    /// section's property (as a sectioned fetch in Core Data requires), with its comparator and order:
    /// `SortDescriptor(\.name, comparator: .localizedStandard)` gives sections as the Finder orders
    /// names. Otherwise they come in ascending order of their titles, in Folio's string order
    /// (docs/queries.md, "Ordering").
    public func fetch<T: PersistentModel>(_ descriptor: FetchDescriptor<T>, sectionBy: KeyPath<T, String>) throws
        -> SectionedResults<T, String>
    {
        let groups = try fetchGrouped(descriptor, by: sectionBy)
        // Only the distinct titles are sorted. (A section's title is its last model's, as when runs of
        // equal titles are grouped: titles that are equal as strings may still differ in their bytes.)
        let titled = groups.compactMap { key, group in key.map { (title: group.title ?? $0, models: group.models) } }
        return SectionedResults(
            groups: Self.ordered(titled, by: Self.sectionOrder(descriptor.sortBy, sectionBy, titled)).map { ($0.title, $0.models) })
    }

    /// Fetches models grouped into sections by an optional string property; models whose value is nil
    /// go in the section titled "".
    public func fetch<T: PersistentModel>(_ descriptor: FetchDescriptor<T>, sectionBy: KeyPath<T, String?>) throws
        -> SectionedResults<T, String>
    {
        // nil sorts first, as `SortDescriptor` places it, and forms the "" section, followed there by
        // the models whose title is the empty string.
        var groups = try fetchGrouped(descriptor, by: sectionBy)
        let missing = groups.removeValue(forKey: nil)?.models ?? []
        var ordered = Self.ordered(
            groups.compactMap { key, group in key.map { _ in (title: group.title ?? "", models: group.models) } },
            by: .titles(ascending: true))
        if !missing.isEmpty {
            if let first = ordered.first, first.title.isEmpty {
                ordered[0].models = missing + first.models
            } else {
                ordered.insert((title: "", models: missing), at: 0)
            }
        }
        return SectionedResults(
            groups: Self.ordered(ordered, by: Self.sectionOrder(descriptor.sortBy, sectionBy, ordered)).map { ($0.title, $0.models) })
    }

    /// How sections are ordered: by the descriptor's first sort descriptor when it sorts by the
    /// section's property (by title in ``StringOrder``, in its direction, or with its localized
    /// comparator), else by title, ascending.
    private static func sectionOrder<T: PersistentModel>(
        _ sortBy: [SortDescriptor<T>], _ sectionBy: AnyKeyPath,
        _ groups: [(title: String, models: [T])]
    ) -> SectionOrder<T> {
        guard let first = sortBy.first, let keyPath = first.keyPath else { return .titles(ascending: true) }
        if keyPath == sectionBy { return .titles(ascending: first.order == .forward) }
        #if !canImport(Darwin)
            // A localized descriptor sorts by a key made of the property's value: it is the section's
            // property when each section's first model has its title as that key.
            let sortsByTitle = groups.allSatisfy { group in
                group.models.first.map { LocalizedSortKey.isKey($0[keyPath: keyPath], ofTitle: group.title) } ?? true
            }
            if sortsByTitle { return .firstModels(first) }
        #endif
        return .titles(ascending: true)
    }

    /// `groups` in `order`; ties (titles a comparator finds the same) by title in ``StringOrder``.
    private static func ordered<T: PersistentModel>(
        _ groups: [(title: String, models: [T])],
        by order: SectionOrder<T>
    ) -> [(title: String, models: [T])] {
        groups.sorted { a, b in
            switch order {
            case .titles(let ascending):
                return ascending ? StringOrder.areInIncreasingOrder(a.title, b.title) : StringOrder.areInIncreasingOrder(b.title, a.title)
            case .firstModels(let sort):
                if let x = a.models.first, let y = b.models.first {
                    switch sort.compare(x, y) {
                    case .orderedAscending: return true
                    case .orderedDescending: return false
                    case .orderedSame: break
                    }
                }
                return StringOrder.areInIncreasingOrder(a.title, b.title)
            }
        }
    }

    /// The models of a fetch grouped by a string property, each group in the descriptor's order, with
    /// the title of its last model. Models are grouped as they are made, and titles read from the
    /// record a model was made from while none of its properties was set (so that grouping does not
    /// load anything), otherwise from the model.
    private func fetchGrouped<T: PersistentModel, Value>(_ descriptor: FetchDescriptor<T>, by keyPath: KeyPath<T, Value>)
        throws -> [String?: (title: String?, models: [T])]
    {
        let read: (T) -> String? = { model in
            let value: Any = model[keyPath: keyPath]
            if let optional = value as? String? { return optional }
            return value as? String
        }
        let entity = schema.entitiesByName[T._folioEntityName]
        let field = entity?.propertyNamesByKeyPath[keyPath].flatMap { entity?.attributesByName[$0]?.isCodable == false ? $0 : nil }
        let isOptional = Value.self != String.self
        // Groups by position, found through one hash lookup per model.
        var positionOfKey: [String?: Int] = [:]
        var keys: [String?] = []
        var titles: [String?] = []
        // Members are kept as plain references: this runs once per model, unspecialized for `T`, and
        // an array of `T` there looked its type up in the runtime's tables at every append (two
        // lookups, a fifth of a grouped fetch). Each section becomes an array of `T` once, at the end.
        var members: [[AnyObject]] = []
        try forEachFetched(descriptor) { model in
            var title: String?
            let backing = model.persistentBackingData
            if let field, let values = backing.faultValues, !backing.hasSetProperties, backing.loadError == nil {
                switch values[field] {
                case .string(let text)?: title = text
                case .null? where isOptional: title = nil
                default: title = read(model)  // a missing value reads as the property's default
                }
            } else {
                title = read(model)
            }
            if let position = positionOfKey[title] {
                titles[position] = title
                members[position].append(model)
            } else {
                positionOfKey[title] = members.count
                keys.append(title)
                titles.append(title)
                members.append([model])
            }
        }
        var groups: [String?: (title: String?, models: [T])] = [:]
        for (position, key) in keys.enumerated() {
            groups[key] = (titles[position], Self.array(members[position], of: T.self))
        }
        return groups
    }
}
