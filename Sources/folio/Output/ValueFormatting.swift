import FolioStorage

/// How stored values are shown to people and written for programs.
enum ValueFormatting {
    /// Canonical JSON text of a value (the bytes the store keeps).
    static func json(_ value: JSONValue) -> String {
        (try? CanonicalJSONWriter().string(value)) ?? "null"
    }

    /// A value in a table cell or a `key: value` line: strings bare, `null` empty, the rest as JSON.
    static func cell(_ value: JSONValue?) -> String {
        guard let value else { return "" }
        switch value {
        case .null: return ""
        case .string(let text): return text.replacingOccurrences(of: "\n", with: "⏎")
        case .bool(let flag): return flag ? "true" : "false"
        case .int(let number): return String(number)
        case .double(let number): return formatDouble(number)
        default: return json(value)
        }
    }

    static func formatDouble(_ number: Double) -> String {
        if number == number.rounded(), abs(number) < 1e15 { return String(Int64(number)) + ".0" }
        return String(number)
    }

    /// A readable, indented JSON rendering (keys sorted), for `show` and `export --format json`.
    static func pretty(_ value: JSONValue, indent: String = "") -> String {
        let inner = indent + "  "
        switch value {
        case .array(let elements):
            if elements.isEmpty { return "[]" }
            if elements.allSatisfy({ !isContainer($0) }) { return json(value) }
            return "[\n" + elements.map { inner + pretty($0, indent: inner) }.joined(separator: ",\n") + "\n\(indent)]"
        case .object(let members):
            if members.isEmpty { return "{}" }
            let keys = members.keys.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
            return "{\n"
                + keys.map { "\(inner)\(json(.string($0))): \(pretty(members[$0]!, indent: inner))" }.joined(separator: ",\n")
                + "\n\(indent)}"
        default:
            return json(value)
        }
    }

    private static func isContainer(_ value: JSONValue) -> Bool {
        switch value {
        case .array, .object: return true
        default: return false
        }
    }

    /// A record as the JSON-lines and export formats write it: `{"entity":…,"id":…,"values":{…}}`.
    static func recordJSON(_ record: StoredRecord) -> JSONValue {
        .object(["entity": .string(record.entity), "id": .int(record.id), "values": .object(record.values.dictionary)])
    }
}
