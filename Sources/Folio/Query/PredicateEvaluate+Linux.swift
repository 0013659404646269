// Foundation on Linux has no expression for `inner.evaluate(x)` inside a `#Predicate` (Apple's
// Foundation has `PredicateExpressions.PredicateEvaluate`), and its macro refuses the call. Folio's
// `#Predicate` (added to a target by the FolioPredicates build-tool plugin) hands the body to
// Foundation's macro with the call renamed to `inner.contains(x)`, which Foundation expands into
// `build_contains`; the overload here takes a predicate and builds the nested-predicate node. On Apple
// platforms Foundation's own macro and node are used.
#if !canImport(Darwin)

    extension PredicateExpressions {
        /// `inner.evaluate(input)` inside a predicate: whether the nested predicate holds for the input.
        ///
        /// Folio's planner inlines the nested predicate's condition, so its comparisons can use indexes as
        /// if they were written in place.
        public struct FolioPredicateEvaluate<Condition: PredicateExpression & Sendable, Input: PredicateExpression & Sendable>:
            PredicateExpression, Sendable
        where Condition.Output == Predicate<Input.Output> {
            /// What the expression evaluates to.
            public typealias Output = Bool
            /// The nested predicate, usually a captured value.
            public let predicate: Condition
            /// What the nested predicate is evaluated for.
            public let input: Input

            /// Evaluates the expression for the predicate's inputs in `bindings`.
            public func evaluate(_ bindings: PredicateBindings) throws -> Bool {
                try predicate.evaluate(bindings).evaluate(try input.evaluate(bindings))
            }
        }

        /// What `inner.evaluate(input)` becomes after Folio's `#Predicate` renamed it to `contains`.
        /// Foundation's `build_contains` overloads need a sequence, so a predicate always lands here.
        public static func build_contains<Condition, Input>(_ predicate: Condition, _ input: Input)
            -> FolioPredicateEvaluate<Condition, Input>
        {
            FolioPredicateEvaluate(predicate: predicate, input: input)
        }
    }

    // `Predicate` is not `Codable` on Linux, so a conformance that depended on the operands' would never
    // hold, and `#Predicate` needs every node to be a `StandardPredicateExpression` (hence `Codable`).
    // The node conforms unconditionally and refuses to be encoded or decoded.
    extension PredicateExpressions.FolioPredicateEvaluate: StandardPredicateExpression {
        public func encode(to encoder: any Encoder) throws {
            throw EncodingError.invalidValue(
                self,
                EncodingError.Context(
                    codingPath: encoder.codingPath,
                    debugDescription: "A nested predicate cannot be encoded on Linux, where Predicate is not Codable"))
        }

        public init(from decoder: any Decoder) throws {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(
                    codingPath: decoder.codingPath,
                    debugDescription: "A nested predicate cannot be decoded on Linux, where Predicate is not Codable"))
        }
    }

#endif
