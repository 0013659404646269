/// Blob references read from files are checked before they name a path: `{"$blob":…}` is a reserved
/// shape, and one whose hash is not 64 lowercase hex digits (`"../../x"`) or that has other members is
/// a damaged reference, never a plain object.
extension BlobStore {
    /// A description of the first malformed blob reference inside `values`, naming the member it is
    /// under; `nil` when every object with a `$blob` member is a valid reference.
    static func malformedReference(in values: RecordValues) -> String? {
        for (name, value) in values {
            if let problem = malformedReference(in: value) { return "member \"\(name)\" \(problem)" }
        }
        return nil
    }

    static func malformedReference(in value: JSONValue) -> String? {
        switch value {
        case .object(let members):
            if let hash = members["$blob"] {
                guard members.count == 1, case .string(let text) = hash, isValidHash(text) else {
                    return
                        "holds a malformed blob reference (\"$blob\" must be the only member and 64 lowercase hex digits, a SHA-256 naming a file in blobs/)"
                }
                return nil
            }
            for member in members.values {
                if let problem = malformedReference(in: member) { return problem }
            }
            return nil
        case .array(let elements):
            for element in elements {
                if let problem = malformedReference(in: element) { return problem }
            }
            return nil
        default:
            return nil
        }
    }
}
