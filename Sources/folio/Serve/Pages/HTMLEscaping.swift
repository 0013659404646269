/// Text made safe to place in HTML element content and in double-quoted attribute values.
enum HTMLEscaping {
    /// Escapes `& < > " '`, and shows control characters as visible symbols (U+2400 Control Pictures
    /// for C0 and DEL, `\u{…}` for C1) so that nothing a value holds is read as markup or hidden.
    /// Tabs and line feeds stay as they are.
    static func escape(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&#39;"
            case "\t", "\n": result.unicodeScalars.append(scalar)
            case "\u{00}"..."\u{1F}":
                result.unicodeScalars.append(Unicode.Scalar(0x2400 + scalar.value) ?? "?")
            case "\u{7F}": result += "\u{2421}"
            case "\u{80}"..."\u{9F}": result += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// The first `limit` characters of `text`, and whether it was cut.
    static func truncated(_ text: String, to limit: Int) -> (text: String, remaining: Int) {
        var index = text.startIndex
        var count = 0
        while index < text.endIndex, count < limit {
            index = text.index(after: index)
            count += 1
        }
        guard index < text.endIndex else { return (text, 0) }
        return (String(text[..<index]), text[index...].count)
    }
}
