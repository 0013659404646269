// `Int(exactly:)` on a Double calls libm's rounding functions. Importing the C library here links libm
// into every client of FolioMacroKit, so that an executable that does not import it still links.
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A minimal JSON value for the compiler plugin's messages.
///
/// The plugin avoids Foundation so that it starts quickly (the compiler spawns one plugin process per
/// frontend job). Only what the wire protocol needs is here: parsing the host's messages and writing
/// the replies. Non-ASCII text is written as raw UTF-8, because the compiler's decoder does not accept
/// UTF-16 surrogate-pair escapes.
package enum PluginJSON: Equatable, Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([PluginJSON])
    case object([(String, PluginJSON)])

    package static func == (lhs: PluginJSON, rhs: PluginJSON) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case let (.bool(a), .bool(b)): return a == b
        case let (.number(a), .number(b)): return a == b
        case let (.string(a), .string(b)): return a == b
        case let (.array(a), .array(b)): return a == b
        case let (.object(a), .object(b)):
            return a.count == b.count && zip(a, b).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        default: return false
        }
    }

    /// The member named `key`, if this is an object that has one.
    package subscript(key: String) -> PluginJSON? {
        guard case .object(let members) = self else { return nil }
        return members.first(where: { $0.0 == key })?.1
    }

    /// This object with the member named `key` set to `value` (appended when absent); other values as they are.
    package func setting(_ key: String, to value: PluginJSON) -> PluginJSON {
        guard case .object(var members) = self else { return self }
        if let index = members.firstIndex(where: { $0.0 == key }) {
            members[index].1 = value
        } else {
            members.append((key, value))
        }
        return .object(members)
    }

    package var string: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    package var int: Int? {
        if case .number(let value) = self, let exact = Int(exactly: value) { return exact }
        return nil
    }

    package var array: [PluginJSON]? {
        if case .array(let value) = self { return value }
        return nil
    }
}

/// An error in a message the host sent: it is reported back as a diagnostic, never a crash.
package struct PluginJSONError: Error, CustomStringConvertible, Sendable {
    package var description: String
}

extension PluginJSON {
    /// Parses UTF-8 JSON text.
    package static func parse(_ bytes: [UInt8]) throws -> PluginJSON {
        var parser = Parser(bytes: bytes)
        parser.skipWhitespace()
        let value = try parser.parseValue(depth: 0)
        parser.skipWhitespace()
        guard parser.index == bytes.count else {
            throw PluginJSONError(description: "unexpected text after the JSON value at byte \(parser.index)")
        }
        return value
    }

    private struct Parser {
        let bytes: [UInt8]
        var index = 0

        mutating func skipWhitespace() {
            while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x0A || bytes[index] == 0x0D || bytes[index] == 0x09 {
                index += 1
            }
        }

        func fail(_ message: String) -> PluginJSONError {
            PluginJSONError(description: "\(message) at byte \(index)")
        }

        mutating func parseValue(depth: Int) throws -> PluginJSON {
            guard depth < 512 else { throw fail("JSON nested too deeply") }
            guard index < bytes.count else { throw fail("unexpected end of JSON") }
            switch bytes[index] {
            case UInt8(ascii: "{"):
                index += 1
                var members: [(String, PluginJSON)] = []
                skipWhitespace()
                if index < bytes.count, bytes[index] == UInt8(ascii: "}") { index += 1; return .object(members) }
                while true {
                    skipWhitespace()
                    guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw fail("expected a key") }
                    let key = try parseString()
                    skipWhitespace()
                    guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw fail("expected ':'") }
                    index += 1
                    skipWhitespace()
                    members.append((key, try parseValue(depth: depth + 1)))
                    skipWhitespace()
                    guard index < bytes.count else { throw fail("unterminated object") }
                    if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
                    if bytes[index] == UInt8(ascii: "}") { index += 1; return .object(members) }
                    throw fail("expected ',' or '}'")
                }
            case UInt8(ascii: "["):
                index += 1
                var elements: [PluginJSON] = []
                skipWhitespace()
                if index < bytes.count, bytes[index] == UInt8(ascii: "]") { index += 1; return .array(elements) }
                while true {
                    skipWhitespace()
                    elements.append(try parseValue(depth: depth + 1))
                    skipWhitespace()
                    guard index < bytes.count else { throw fail("unterminated array") }
                    if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
                    if bytes[index] == UInt8(ascii: "]") { index += 1; return .array(elements) }
                    throw fail("expected ',' or ']'")
                }
            case UInt8(ascii: "\""):
                return .string(try parseString())
            case UInt8(ascii: "t"):
                try expectLiteral("true"); return .bool(true)
            case UInt8(ascii: "f"):
                try expectLiteral("false"); return .bool(false)
            case UInt8(ascii: "n"):
                try expectLiteral("null"); return .null
            default:
                return .number(try parseNumber())
            }
        }

        mutating func expectLiteral(_ literal: String) throws {
            for byte in literal.utf8 {
                guard index < bytes.count, bytes[index] == byte else { throw fail("invalid literal") }
                index += 1
            }
        }

        mutating func parseNumber() throws -> Double {
            let start = index
            // JSON numbers start with '-' or a digit (no '+', no '.5').
            guard bytes[index] == UInt8(ascii: "-") || (bytes[index] >= 0x30 && bytes[index] <= 0x39) else {
                throw fail("invalid value")
            }
            while index < bytes.count {
                let byte = bytes[index]
                if (byte >= 0x30 && byte <= 0x39) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "+")
                    || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E")
                {
                    index += 1
                } else {
                    break
                }
            }
            guard index > start, let value = Double(String(decoding: bytes[start..<index], as: UTF8.self)) else {
                throw fail("invalid number")
            }
            return value
        }

        mutating func parseHex4() throws -> UInt32 {
            guard index + 4 <= bytes.count else { throw fail("truncated \\u escape") }
            var value: UInt32 = 0
            for _ in 0..<4 {
                let byte = bytes[index]
                let digit: UInt8
                switch byte {
                case 0x30...0x39: digit = byte - 0x30
                case 0x41...0x46: digit = byte - 0x41 + 10
                case 0x61...0x66: digit = byte - 0x61 + 10
                default: throw fail("invalid \\u escape")
                }
                value = value * 16 + UInt32(digit)
                index += 1
            }
            return value
        }

        mutating func parseString() throws -> String {
            index += 1  // opening quote
            var output: [UInt8] = []
            while true {
                guard index < bytes.count else { throw fail("unterminated string") }
                let byte = bytes[index]
                if byte == UInt8(ascii: "\"") { index += 1; break }
                if byte != UInt8(ascii: "\\") {
                    // Copy the run up to the next quote or escape at once: sources are long and mostly plain.
                    var end = index + 1
                    while end < bytes.count, bytes[end] != UInt8(ascii: "\""), bytes[end] != UInt8(ascii: "\\") { end += 1 }
                    output.append(contentsOf: bytes[index..<end])
                    index = end
                    continue
                }
                index += 1
                guard index < bytes.count else { throw fail("unterminated escape") }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""): output.append(0x22)
                case UInt8(ascii: "\\"): output.append(0x5C)
                case UInt8(ascii: "/"): output.append(0x2F)
                case UInt8(ascii: "b"): output.append(0x08)
                case UInt8(ascii: "f"): output.append(0x0C)
                case UInt8(ascii: "n"): output.append(0x0A)
                case UInt8(ascii: "r"): output.append(0x0D)
                case UInt8(ascii: "t"): output.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try parseHex4()
                    if scalar >= 0xD800 && scalar < 0xDC00 {
                        guard index + 6 <= bytes.count, bytes[index] == 0x5C, bytes[index + 1] == UInt8(ascii: "u") else {
                            throw fail("unpaired surrogate")
                        }
                        index += 2
                        let low = try parseHex4()
                        guard low >= 0xDC00 && low < 0xE000 else { throw fail("unpaired surrogate") }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let unicode = Unicode.Scalar(scalar) else { throw fail("invalid scalar") }
                    output.append(contentsOf: Array(String(Character(unicode)).utf8))
                default:
                    throw fail("invalid escape")
                }
            }
            return String(decoding: output, as: UTF8.self)
        }
    }
}

extension PluginJSON {
    /// Serialises this value as compact JSON, non-ASCII as raw UTF-8.
    package func serialized() -> [UInt8] {
        var output: [UInt8] = []
        write(into: &output)
        return output
    }

    private func write(into output: inout [UInt8]) {
        switch self {
        case .null: output.append(contentsOf: Array("null".utf8))
        case .bool(let value): output.append(contentsOf: Array((value ? "true" : "false").utf8))
        case .number(let value):
            if let exact = Int(exactly: value) {
                output.append(contentsOf: Array(String(exact).utf8))
            } else {
                output.append(contentsOf: Array(String(value).utf8))
            }
        case .string(let value): PluginJSON.writeString(value, into: &output)
        case .array(let elements):
            output.append(UInt8(ascii: "["))
            for (offset, element) in elements.enumerated() {
                if offset > 0 { output.append(UInt8(ascii: ",")) }
                element.write(into: &output)
            }
            output.append(UInt8(ascii: "]"))
        case .object(let members):
            output.append(UInt8(ascii: "{"))
            for (offset, member) in members.enumerated() {
                if offset > 0 { output.append(UInt8(ascii: ",")) }
                PluginJSON.writeString(member.0, into: &output)
                output.append(UInt8(ascii: ":"))
                member.1.write(into: &output)
            }
            output.append(UInt8(ascii: "}"))
        }
    }

    private static func writeString(_ string: String, into output: inout [UInt8]) {
        let hex = Array("0123456789abcdef".utf8)
        output.append(UInt8(ascii: "\""))
        for byte in string.utf8 {
            switch byte {
            case 0x22: output.append(0x5C); output.append(0x22)
            case 0x5C: output.append(0x5C); output.append(0x5C)
            case 0x0A: output.append(0x5C); output.append(UInt8(ascii: "n"))
            case 0x0D: output.append(0x5C); output.append(UInt8(ascii: "r"))
            case 0x09: output.append(0x5C); output.append(UInt8(ascii: "t"))
            case 0x00..<0x20:
                output.append(contentsOf: Array("\\u00".utf8))
                output.append(hex[Int(byte >> 4)])
                output.append(hex[Int(byte & 0xF)])
            default: output.append(byte)
            }
        }
        output.append(UInt8(ascii: "\""))
    }
}
