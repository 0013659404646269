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
    /// Fetches models grouped into sections by a string property: sorted by the section title first,
    /// then by the descriptor's own sort inside each section.
    public func fetch<T: PersistentModel>(_ descriptor: FetchDescriptor<T>, sectionBy: KeyPath<T, String>) throws
        -> SectionedResults<T, String> {
        let models = try fetch(descriptor)
        let titles = storedStrings(of: models, sectionBy).map { $0 ?? "" }
        // Grouping positions by title in one pass keeps the descriptor's order inside each section; only
        // the distinct titles are sorted. (A section's title is its last model's, as when runs of equal
        // titles are grouped: titles that are equal as strings may still differ in their bytes.)
        var groups: [String: [Int]] = [:]
        for (position, title) in titles.enumerated() { groups[title, default: []].append(position) }
        return SectionedResults(groups: groups.sorted { $0.key < $1.key }.map { _, positions in
            (titles[positions[positions.count - 1]], positions.map { models[$0] })
        })
    }

    /// Fetches models grouped into sections by an optional string property; models whose value is nil
    /// go in the section titled "".
    public func fetch<T: PersistentModel>(_ descriptor: FetchDescriptor<T>, sectionBy: KeyPath<T, String?>) throws
        -> SectionedResults<T, String> {
        // nil sorts first, as `SortDescriptor` places it, and forms the "" section, followed there by
        // the models whose title is the empty string.
        let models = try fetch(descriptor)
        let titles = storedStrings(of: models, sectionBy)
        var missing: [Int] = []
        var groups: [String: [Int]] = [:]
        for (position, title) in titles.enumerated() {
            if let title { groups[title, default: []].append(position) } else { missing.append(position) }
        }
        var ordered = groups.sorted { $0.key < $1.key }.map { _, positions in
            (title: titles[positions[positions.count - 1]] ?? "", positions: positions)
        }
        if !missing.isEmpty {
            if let first = ordered.first, first.title.isEmpty {
                ordered[0].positions = missing + first.positions
            } else {
                ordered.insert((title: "", positions: missing), at: 0)
            }
        }
        return SectionedResults(groups: ordered.map { ($0.title, $0.positions.map { models[$0] }) })
    }

    /// The value of a string property of each model, read from the record a fault was made from when
    /// no property of the model has been set since (so that reading it does not load anything), and
    /// from the model otherwise.
    func storedStrings<T: PersistentModel, Value>(of models: [T], _ keyPath: KeyPath<T, Value>) -> [String?] {
        let read: (T) -> String? = { model in
            let value: Any = model[keyPath: keyPath]
            if let optional = value as? String? { return optional }
            return value as? String
        }
        guard let entity = schema.entitiesByName[T._folioEntityName], let field = entity.propertyNamesByKeyPath[keyPath],
              entity.attributesByName[field]?.isCodable == false else {
            return models.map(read)
        }
        return models.map { model in
            let backing = model.persistentBackingData
            guard let values = backing.faultValues, !backing.hasSetProperties, backing.loadError == nil else { return read(model) }
            switch values[field] {
            case .string(let text)?: return text
            case .null? where Value.self != String.self: return nil
            default: return read(model)  // a missing value reads as the property's default
            }
        }
    }
}
