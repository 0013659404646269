import Foundation

/// The values the exact-answers tests draw from: the edges of each type's domain, where Swift's `==`,
/// `<` and arithmetic behave unexpectedly (see `value-semantics-facts.md`), mixed with ordinary values.
enum ValueDomain {
    /// Strings with canonically equivalent spellings (precomposed and decomposed), partial characters
    /// (a lone combining mark, one regional indicator), singletons that decompose to ASCII (the Kelvin
    /// sign is `"K"`), emoji, case and width variants, and text that numbers compare in.
    static let strings: [String] = [
        "", "a", "A", "b", "B", "z", "Z", "e", "f", "é", "e\u{301}", "café", "cafe\u{301}", "café9", "cafe\u{301}9",
        "caféz", "café 0", "cafe", "\u{301}", "K", "\u{212A}", "Å", "\u{212B}", "A\u{30A}", "e\u{323}\u{301}",
        "e\u{301}\u{323}", "\u{1EB9}\u{301}", "가", "\u{1100}\u{1161}", "각", "가\u{11A8}", "🇫🇷", "🇫", "🇷", "👍", "👍🏽", "Straße", "STRASSE",
        "ß", "ﬁ", "a10", "a9", "A10", "10", "9", "-1", " ", "a b", "\u{0}", "\u{7F}", "日本", "Ω", "\u{2126}", "Ωmega",
    ]

    static let doubles: [Double] = [
        0, -0.0, 1, -1, 0.1, 0.25, -2.5, 3, .leastNonzeroMagnitude * 2024, -.leastNonzeroMagnitude * 2024, .leastNonzeroMagnitude,
        .greatestFiniteMagnitude,
        -.greatestFiniteMagnitude, .infinity, -.infinity, .nan, 9_007_199_254_740_992, 9_007_199_254_740_994, 1e20, -1e20,
    ]

    static let integers: [Int] = [
        0, 1, -1, 2, 7, -7, 100, .min, .max, .min + 1, .max - 1, 9_007_199_254_740_992, 9_007_199_254_740_993,
        -9_007_199_254_740_993, 1 << 62, -(1 << 62),
    ]

    /// Instants from the first century to the tenth millennium, with fractions of a second.
    static let dates: [Date] = [
        Date(timeIntervalSinceReferenceDate: 0), Date(timeIntervalSinceReferenceDate: -1), Date(timeIntervalSinceReferenceDate: 0.5),
        Date(timeIntervalSinceReferenceDate: 1_000_000.125), Date(timeIntervalSinceReferenceDate: -63_000_000_000),
        Date(timeIntervalSinceReferenceDate: 252_000_000_000), Date(timeIntervalSinceReferenceDate: 86_400),
        Date(timeIntervalSinceReferenceDate: 86_400.001), .distantPast, .distantFuture,
    ]

    static func string(_ rng: inout SplitMix64) -> String {
        // One to three pieces, so that spellings meet inside longer text.
        (0..<Int.random(in: 1...3, using: &rng)).map { _ in strings.randomElement(using: &rng) ?? "" }.joined()
            .prefix(Int.random(in: 0...1, using: &rng) == 0 ? 12 : 200).description
    }

    /// A short string: a whole entry of ``strings``, for equalities that match.
    static func word(_ rng: inout SplitMix64) -> String {
        strings.randomElement(using: &rng) ?? ""
    }

    /// A part of a string, cut by Unicode scalars: it may split a character.
    static func fragment(of text: String, _ rng: inout SplitMix64) -> String {
        let scalars = Array(text.unicodeScalars)
        guard !scalars.isEmpty else { return "" }
        let start = Int.random(in: 0..<scalars.count, using: &rng)
        let end = Int.random(in: start...min(scalars.count, start + 3), using: &rng)
        var result = String.UnicodeScalarView()
        result.append(contentsOf: scalars[start..<end])
        return String(result)
    }

    static func double(_ rng: inout SplitMix64) -> Double {
        Int.random(in: 0..<3, using: &rng) == 0
            ? Double(Int.random(in: -40...40, using: &rng)) / 4
            : doubles.randomElement(using: &rng) ?? 0
    }

    static func integer(_ rng: inout SplitMix64) -> Int {
        Int.random(in: 0..<3, using: &rng) == 0 ? Int.random(in: -20...20, using: &rng) : integers.randomElement(using: &rng) ?? 0
    }

    static func date(_ rng: inout SplitMix64) -> Date {
        Int.random(in: 0..<3, using: &rng) == 0
            ? Date(timeIntervalSinceReferenceDate: Double(Int.random(in: -20...20, using: &rng)) * 3_600)
            : dates.randomElement(using: &rng) ?? Date(timeIntervalSinceReferenceDate: 0)
    }
}
