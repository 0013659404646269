import Foundation

extension String {
    /// The string's canonical composition (NFC): the one spelling of all the strings canonically
    /// equivalent to it, which are the strings Swift's `==` finds equal to it.
    ///
    /// Taken of the canonical decomposition, because Foundation's `precomposedStringWithCanonicalMapping`
    /// on Linux leaves a precomposed Hangul syllable followed by a trailing jamo (`"가\u{11A8}"`) apart
    /// instead of composing it (`"각"`); the decomposition is always complete. ASCII text is its own
    /// composition and is returned as it is.
    ///
    /// - Complexity: O(*n*).
    package var canonicalComposition: String {
        isASCII ? self : decomposedStringWithCanonicalMapping.precomposedStringWithCanonicalMapping
    }

    /// Whether every scalar is ASCII.
    ///
    /// - Complexity: O(*n*).
    package var isASCII: Bool {
        if let ascii = utf8.withContiguousStorageIfAvailable({ bytes in bytes.allSatisfy { $0 < 0x80 } }) {
            return ascii
        }
        return utf8.allSatisfy { $0 < 0x80 }
    }
}
