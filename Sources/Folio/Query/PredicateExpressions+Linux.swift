// Foundation on Linux lacks the builders that `#Predicate` expands `localizedStandardContains`,
// `caseInsensitiveCompare` and `localizedCompare` into, so predicates using them do not compile there.
// Folio supplies them where Foundation does not; on Apple platforms Foundation's own are used.
#if !canImport(Darwin)

    extension PredicateExpressions {
        /// `string.localizedStandardContains(other)`: a case- and diacritic-insensitive search.
        public struct FolioLocalizedStandardContains<Root: PredicateExpression, Other: PredicateExpression>: PredicateExpression
        where Root.Output: StringProtocol, Other.Output: StringProtocol {
            /// What the expression evaluates to.
            public typealias Output = Bool
            /// The string searched or compared.
            public let root: Root
            /// The string searched for, or compared with.
            public let other: Other

            /// An expression over two string expressions.
            public init(root: Root, other: Other) {
                self.root = root
                self.other = other
            }

            /// Evaluates the expression for the predicate's inputs in `bindings`.
            public func evaluate(_ bindings: PredicateBindings) throws -> Bool {
                LocalizedStandard.contains(String(try root.evaluate(bindings)), String(try other.evaluate(bindings)))
            }
        }

        /// `string.caseInsensitiveCompare(other)`.
        public struct FolioCaseInsensitiveCompare<Root: PredicateExpression, Other: PredicateExpression>: PredicateExpression
        where Root.Output: StringProtocol, Other.Output: StringProtocol {
            /// What the expression evaluates to.
            public typealias Output = ComparisonResult
            /// The string searched or compared.
            public let root: Root
            /// The string searched for, or compared with.
            public let other: Other

            /// An expression over two string expressions.
            public init(root: Root, other: Other) {
                self.root = root
                self.other = other
            }

            /// Evaluates the expression for the predicate's inputs in `bindings`.
            public func evaluate(_ bindings: PredicateBindings) throws -> ComparisonResult {
                String(try root.evaluate(bindings)).caseInsensitiveCompare(String(try other.evaluate(bindings)))
            }
        }

        /// `string.localizedCompare(other)`.
        public struct FolioLocalizedCompare<Root: PredicateExpression, Other: PredicateExpression>: PredicateExpression
        where Root.Output: StringProtocol, Other.Output: StringProtocol {
            /// What the expression evaluates to.
            public typealias Output = ComparisonResult
            /// The string searched or compared.
            public let root: Root
            /// The string searched for, or compared with.
            public let other: Other

            /// An expression over two string expressions.
            public init(root: Root, other: Other) {
                self.root = root
                self.other = other
            }

            /// Evaluates the expression for the predicate's inputs in `bindings`.
            public func evaluate(_ bindings: PredicateBindings) throws -> ComparisonResult {
                String(try root.evaluate(bindings)).compare(String(try other.evaluate(bindings)), locale: Locale.current)
            }
        }

        /// The node `#Predicate` makes of `root.localizedStandardContains(other)`.
        public static func build_localizedStandardContains<Root, Other>(_ root: Root, _ other: Other)
            -> FolioLocalizedStandardContains<Root, Other>
        {
            FolioLocalizedStandardContains(root: root, other: other)
        }

        /// The node `#Predicate` makes of `root.caseInsensitiveCompare(other)`.
        public static func build_caseInsensitiveCompare<Root, Other>(_ root: Root, _ other: Other)
            -> FolioCaseInsensitiveCompare<Root, Other>
        {
            FolioCaseInsensitiveCompare(root: root, other: other)
        }

        /// The node `#Predicate` makes of `root.localizedCompare(other)`.
        public static func build_localizedCompare<Root, Other>(_ root: Root, _ other: Other)
            -> FolioLocalizedCompare<Root, Other>
        {
            FolioLocalizedCompare(root: root, other: other)
        }
    }

    /// The shape the three string expressions share: two operands, encoded as a two-element array.
    public protocol _FolioStringPairExpression {
        associatedtype Root
        associatedtype Other
        var root: Root { get }
        var other: Other { get }
        init(root: Root, other: Other)
    }

    extension _FolioStringPairExpression where Root: Codable, Other: Codable {
        /// Encodes the two operands as a two-element array.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.unkeyedContainer()
            try container.encode(root)
            try container.encode(other)
        }

        /// Decodes the two operands from a two-element array.
        public init(from decoder: any Decoder) throws {
            var container = try decoder.unkeyedContainer()
            self.init(root: try container.decode(Root.self), other: try container.decode(Other.self))
        }
    }

    extension PredicateExpressions.FolioLocalizedStandardContains: _FolioStringPairExpression {}
    extension PredicateExpressions.FolioCaseInsensitiveCompare: _FolioStringPairExpression {}
    extension PredicateExpressions.FolioLocalizedCompare: _FolioStringPairExpression {}

    extension PredicateExpressions.FolioLocalizedStandardContains: Codable where Root: Codable, Other: Codable {}
    extension PredicateExpressions.FolioCaseInsensitiveCompare: Codable where Root: Codable, Other: Codable {}
    extension PredicateExpressions.FolioLocalizedCompare: Codable where Root: Codable, Other: Codable {}

    extension PredicateExpressions.FolioLocalizedStandardContains: Sendable where Root: Sendable, Other: Sendable {}
    extension PredicateExpressions.FolioCaseInsensitiveCompare: Sendable where Root: Sendable, Other: Sendable {}
    extension PredicateExpressions.FolioLocalizedCompare: Sendable where Root: Sendable, Other: Sendable {}

    extension PredicateExpressions.FolioLocalizedStandardContains: StandardPredicateExpression
    where Root: StandardPredicateExpression, Other: StandardPredicateExpression {}
    extension PredicateExpressions.FolioCaseInsensitiveCompare: StandardPredicateExpression
    where Root: StandardPredicateExpression, Other: StandardPredicateExpression {}
    extension PredicateExpressions.FolioLocalizedCompare: StandardPredicateExpression
    where Root: StandardPredicateExpression, Other: StandardPredicateExpression {}

    extension PredicateExpressions.FolioLocalizedStandardContains: QueryTranslatable
    where Root: QueryTranslatable, Other: QueryTranslatable {
        func translate(_ context: inout TranslationContext) throws -> QueryNode {
            .localizedStandardContains(try root.translate(&context), try other.translate(&context))
        }
    }

    extension PredicateExpressions.FolioCaseInsensitiveCompare: QueryTranslatable
    where Root: QueryTranslatable, Other: QueryTranslatable {
        func translate(_ context: inout TranslationContext) throws -> QueryNode {
            .caseInsensitiveCompare(try root.translate(&context), try other.translate(&context))
        }
    }

#endif
