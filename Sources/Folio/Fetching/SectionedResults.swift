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
        let titles = models.map { $0[keyPath: sectionBy] }
        // Sorting positions by title, then position, keeps the descriptor's order inside each section.
        let order = titles.indices.sorted { titles[$0] != titles[$1] ? titles[$0] < titles[$1] : $0 < $1 }
        return SectionedResults(elements: order.map { models[$0] }) { $0[keyPath: sectionBy] }
    }

    /// Fetches models grouped into sections by an optional string property; models whose value is nil
    /// go in the section titled "".
    public func fetch<T: PersistentModel>(_ descriptor: FetchDescriptor<T>, sectionBy: KeyPath<T, String?>) throws
        -> SectionedResults<T, String> {
        // nil sorts first, as `SortDescriptor` places it, and forms the "" section.
        let models = try fetch(descriptor)
        let titles = models.map { $0[keyPath: sectionBy] }
        let order = titles.indices.sorted { lhs, rhs in
            switch (titles[lhs], titles[rhs]) {
            case (nil, nil): return lhs < rhs
            case (nil, _): return true
            case (_, nil): return false
            case let (a?, b?): return a != b ? a < b : lhs < rhs
            }
        }
        return SectionedResults(elements: order.map { models[$0] }) { $0[keyPath: sectionBy] ?? "" }
    }
}
