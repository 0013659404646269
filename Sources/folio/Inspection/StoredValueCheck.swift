import FolioStorage
import Foundation

/// Checks that a stored attribute value has the JSON form the model layer writes for its declared type
/// (see docs/file-format.md), for the types whose form is fixed. Enums, `Codable` structs and other
/// types are not checked: their form is their own `Codable` conformance's.
enum StoredValueCheck {
    /// What is wrong with `value` as a stored `type` (the recorded type name, without `Optional`), or
    /// nil when it fits or the type's form is not checked.
    static func problem(with value: JSONValue, type: String, isOptional: Bool) -> String? {
        if value.isNull {
            guard !isOptional, checkedTypes.contains(type) else { return nil }
            return "null, but \(type) is not optional"
        }
        let fits: Bool
        switch type {
        case "String", "URL":
            fits = value.stringValue != nil
        case "UUID":
            fits = value.stringValue.flatMap(UUID.init(uuidString:)) != nil
        case "Bool":
            fits = value.boolValue != nil
        case "Int", "Int8", "Int16", "Int32", "Int64", "UInt8", "UInt16", "UInt32":
            fits = value.intValue != nil
        case "UInt", "UInt64":
            // Above Int64.max they are written as decimal text.
            fits = value.intValue.map { $0 >= 0 } ?? value.stringValue.map { !$0.isEmpty && $0.allSatisfy(\.isASCII) && UInt64($0) != nil } ?? false
        case "Double", "Float", "CGFloat":
            if case .double = value {
                fits = true
            } else if case .int = value {
                fits = true
            } else {
                fits = ["NaN", "Infinity", "-Infinity"].contains(value.stringValue ?? "")
            }
        case "Date":
            // ISO 8601 text, or seconds since 2001 for dates no such text holds exactly.
            if case .double = value {
                fits = true
            } else if case .int = value {
                fits = true
            } else {
                fits = value.stringValue.map(looksLikeTimestamp) ?? false
            }
        case "Data":
            // Base64 text, or a blob reference for `.externalStorage`.
            fits = value.stringValue.map { Data(base64Encoded: $0) != nil } ?? (value.objectValue?["$blob"]?.stringValue != nil)
        case "Decimal":
            // `Decimal.nan` is written as its description, "NaN", which `Decimal(string:)` does not read.
            fits =
                value.stringValue.map { $0 == "NaN" || Decimal(string: $0, locale: Locale(identifier: "en_US_POSIX")) != nil }
                ?? (value.intValue != nil)
        default:
            return nil
        }
        return fits ? nil : "\(ValueFormatting.json(value)) is not a stored \(type)"
    }

    /// The types ``problem(with:type:isOptional:)`` checks.
    static let checkedTypes: Set<String> = [
        "String", "URL", "UUID", "Bool", "Int", "Int8", "Int16", "Int32", "Int64", "UInt8", "UInt16", "UInt32", "UInt",
        "UInt64", "Double", "Float", "CGFloat", "Date", "Data", "Decimal",
    ]

    /// `YYYY-MM-DDTHH:MM:SS` followed by an optional fraction and `Z`.
    private static func looksLikeTimestamp(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count >= 20, bytes.last == UInt8(ascii: "Z"), bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
            bytes[10] == UInt8(ascii: "T"), bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":")
        else { return false }
        let digits = [0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18]
        return digits.allSatisfy { bytes[$0] >= UInt8(ascii: "0") && bytes[$0] <= UInt8(ascii: "9") }
    }
}
