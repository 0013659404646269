// Foundation on Linux has only the lexical `String.StandardComparator`: `.localizedStandard` and
// `.localized`, which SwiftData apps pass to `SortDescriptor` (Apple's Backyard Birds sorts its bird
// food with `.localizedStandard`), do not exist there, and no public initializer makes another one.
// Folio supplies them where Foundation does not; on Apple platforms Foundation's own are used.
#if !canImport(Darwin)
    import Foundation

    /// A localized way of comparing strings, where Foundation lacks `String.StandardComparator`'s
    /// `.localizedStandard` and `.localized`: `SortDescriptor(\.name, comparator: .localizedStandard)`
    /// compiles and sorts as it does on Apple platforms.
    ///
    /// - ``localizedStandard`` compares as the Finder sorts file names, with Foundation's
    ///   `localizedStandardCompare(_:)`: ignoring case and width, numbers by their value (`"file9"`
    ///   before `"file10"`), letters with diacritics beside their base letter, in the current locale.
    /// - ``localized`` compares with Foundation's `localizedCompare(_:)`, in the current locale.
    public struct LocalizedStringComparator: SortComparator, Hashable, Codable, Sendable {
        /// The algorithms, as Foundation names them.
        private enum Algorithm: String, Hashable, Codable, Sendable {
            case localizedStandard
            case localized
        }

        private let algorithm: Algorithm

        /// The direction of the comparison.
        public var order: SortOrder

        private init(_ algorithm: Algorithm, order: SortOrder = .forward) {
            self.algorithm = algorithm
            self.order = order
        }

        /// Compares strings as the Finder does: localized, case-insensitive, numbers by value.
        public static let localizedStandard = LocalizedStringComparator(.localizedStandard)

        /// Compares strings with a localized comparison in the current locale.
        public static let localized = LocalizedStringComparator(.localized)

        /// How `lhs` compares with `rhs` in this comparator's algorithm and order.
        public func compare(_ lhs: String, _ rhs: String) -> ComparisonResult {
            let result = algorithm == .localizedStandard ? lhs.localizedStandardCompare(rhs) : lhs.localizedCompare(rhs)
            guard order == .reverse else { return result }
            switch result {
            case .orderedAscending: return .orderedDescending
            case .orderedDescending: return .orderedAscending
            case .orderedSame: return .orderedSame
            }
        }

        /// The same algorithm in `order`.
        public init(_ base: LocalizedStringComparator, order: SortOrder = .forward) {
            self = base
            self.order = order
        }
    }

    extension String.StandardComparator {
        /// Compares strings as the Finder does, where Foundation lacks `String.StandardComparator.localizedStandard`
        /// (see ``LocalizedStringComparator``).
        public static var localizedStandard: LocalizedStringComparator { .localizedStandard }

        /// Compares strings with a localized comparison, where Foundation lacks `String.StandardComparator.localized`
        /// (see ``LocalizedStringComparator``).
        public static var localized: LocalizedStringComparator { .localized }
    }

    extension SortDescriptor where Compared: PersistentModel {
        /// A sort of models by a string property with a localized comparator, as on Apple platforms:
        /// `SortDescriptor(\BirdFood.name, comparator: .localizedStandard)`.
        ///
        /// The descriptor sorts by a key that compares with the comparator (``LocalizedSortKey``), so
        /// `sorted(using:)` and Folio's fetches and sections follow it.
        public init(
            _ keyPath: any KeyPath<Compared, String> & Sendable, comparator: LocalizedStringComparator,
            order: SortOrder = .forward
        ) {
            let argument = LocalizedSortArgument(path: keyPath, comparator: LocalizedStringComparator(comparator, order: .forward))
            self.init(\Compared.[folioLocalizedSortKey: argument], order: Self.combined(comparator.order, order))
        }

        /// A sort of models by an optional string property with a localized comparator; `nil` sorts
        /// first, as Foundation places it.
        public init(
            _ keyPath: any KeyPath<Compared, String?> & Sendable, comparator: LocalizedStringComparator,
            order: SortOrder = .forward
        ) {
            let argument = OptionalLocalizedSortArgument(path: keyPath, comparator: LocalizedStringComparator(comparator, order: .forward))
            self.init(\Compared.[folioLocalizedSortKey: argument], order: Self.combined(comparator.order, order))
        }

        /// A comparator's own order, then the descriptor's: reversing twice sorts forward.
        private static func combined(_ comparatorOrder: SortOrder, _ order: SortOrder) -> SortOrder {
            comparatorOrder == order ? .forward : .reverse
        }
    }

    extension LocalizedSortKey {
        /// Whether `value`, a model's value of a sort descriptor's key path, is the localized sort key of
        /// the section title `title` (nil is the key of the `""` section of an optional property): a
        /// descriptor whose key is that for every section's first model orders the sections by their titles
        /// with its comparator.
        static func isKey(_ value: Any, ofTitle title: String) -> Bool {
            if let key = value as? LocalizedSortKey { return key.text == title }
            if let key = value as? LocalizedSortKey? { return key.map { $0.text == title } ?? title.isEmpty }
            return false
        }
    }

    /// A string that compares with a ``LocalizedStringComparator``: the value a localized
    /// `SortDescriptor` sorts by.
    public struct LocalizedSortKey: Comparable, Sendable {
        /// The string.
        public let text: String
        let comparator: LocalizedStringComparator

        public static func < (lhs: LocalizedSortKey, rhs: LocalizedSortKey) -> Bool {
            lhs.comparator.compare(lhs.text, rhs.text) == .orderedAscending
        }

        public static func == (lhs: LocalizedSortKey, rhs: LocalizedSortKey) -> Bool {
            lhs.comparator.compare(lhs.text, rhs.text) == .orderedSame
        }
    }

    /// The string property and comparator of a localized sort descriptor, as its key path's argument.
    struct LocalizedSortArgument<Root>: Hashable, Sendable {
        let path: any KeyPath<Root, String> & Sendable
        let comparator: LocalizedStringComparator

        static func == (lhs: Self, rhs: Self) -> Bool {
            (lhs.path as AnyKeyPath) == (rhs.path as AnyKeyPath) && lhs.comparator == rhs.comparator
        }

        func hash(into hasher: inout Hasher) {
            hasher.combine(path as AnyKeyPath)
            hasher.combine(comparator)
        }
    }

    /// The optional string property and comparator of a localized sort descriptor.
    struct OptionalLocalizedSortArgument<Root>: Hashable, Sendable {
        let path: any KeyPath<Root, String?> & Sendable
        let comparator: LocalizedStringComparator

        static func == (lhs: Self, rhs: Self) -> Bool {
            (lhs.path as AnyKeyPath) == (rhs.path as AnyKeyPath) && lhs.comparator == rhs.comparator
        }

        func hash(into hasher: inout Hasher) {
            hasher.combine(path as AnyKeyPath)
            hasher.combine(comparator)
        }
    }

    extension PersistentModel {
        /// The sort key of a localized sort descriptor.
        subscript(folioLocalizedSortKey argument: LocalizedSortArgument<Self>) -> LocalizedSortKey {
            LocalizedSortKey(text: self[keyPath: argument.path], comparator: argument.comparator)
        }

        /// The sort key of a localized sort descriptor on an optional string: nil for nil.
        subscript(folioLocalizedSortKey argument: OptionalLocalizedSortArgument<Self>) -> LocalizedSortKey? {
            self[keyPath: argument.path].map { LocalizedSortKey(text: $0, comparator: argument.comparator) }
        }
    }
#endif
