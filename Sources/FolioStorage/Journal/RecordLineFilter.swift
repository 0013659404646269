/// Decodes a journal or history line keeping, of its record lists, only one record's entries: a line that
/// inserts ten thousand records costs blame a skim of its bytes and the decoding of one entry.
///
/// The line's checksum is verified over all its bytes, as ``JournalReader`` verifies it, and every
/// member kept is parsed in full; a line the skim cannot follow is decoded whole, which reports what is
/// wrong with it.
enum RecordLineFilter {
    /// The transaction of `line` with `inserted`, `updated` and `deleted` cut to record `id`'s entries.
    ///
    /// - Complexity: O(bytes of the line), allocating only for the members kept.
    /// - Throws: ``StorageError`` naming `path`, the line and the offset, as ``JournalReader/decode(_:in:reader:)``.
    static func transaction(of line: ScannedLine, keepingRecord id: Int64, in path: String?, reader: JSONReader) throws -> JournalTransaction {
        do {
            try LineFraming.verify(line.bytes, reader: reader)
            guard let members = keptMembers(of: line.bytes, record: id, reader: reader) else {
                return try JournalReader.decode(line, in: path, reader: reader)
            }
            return try JournalTransaction(members: members)
        } catch var error as StorageError {
            error.file = path
            error.line = line.number
            error.offset = line.offset + (error.offset ?? 0)
            throw error
        }
    }

    /// Checks a line's framing and checksum without decoding it.
    ///
    /// - Complexity: O(bytes of the line).
    /// - Throws: ``StorageError`` naming `path`, the line and the offset.
    static func verify(_ line: ScannedLine, in path: String?, reader: JSONReader) throws {
        do {
            try LineFraming.verify(line.bytes, reader: reader)
        } catch var error as StorageError {
            error.file = path
            error.line = line.number
            error.offset = line.offset + (error.offset ?? 0)
            throw error
        }
    }

    /// The sequence (`seq`) of a line, read without decoding the rest; nil when the line has none
    /// that the skim finds. The checksum is verified first.
    static func sequence(of line: ScannedLine, in path: String?, reader: JSONReader) throws -> UInt64? {
        try verify(line, in: path, reader: reader)
        let bytes = line.bytes
        var sequence: UInt64?
        let walked = JSONSkim.members(of: bytes, in: 0..<bytes.count) { key, value in
            guard JSONSkim.equals(bytes, key, "seq") else { return true }
            sequence = JSONSkim.integer(bytes, value).flatMap { $0 >= 0 ? UInt64($0) : nil }
            return false
        }
        return walked ? sequence : nil
    }

    /// The line's members with the record lists filtered, or nil when the skim cannot follow the line or
    /// a member kept does not parse (decoding the whole line then says what is wrong).
    private static func keptMembers(of bytes: UnsafeBufferPointer<UInt8>, record id: Int64, reader: JSONReader) -> [String: JSONValue]? {
        var members: [String: JSONValue] = [:]
        var failed = false
        let walked = JSONSkim.members(of: bytes, in: 0..<bytes.count) { key, value in
            let name = String(decoding: UnsafeBufferPointer(rebasing: bytes[key]), as: UTF8.self)
            guard name != "$crc" else { return true }
            do {
                if name == "inserted" || name == "updated" || name == "deleted" {
                    guard let entries = entries(in: bytes, value, record: id, reader: reader) else {
                        failed = true
                        return false
                    }
                    members[name] = .array(entries)
                } else {
                    members[name] = try reader.parse(UnsafeBufferPointer(rebasing: bytes[value]))
                }
            } catch {
                failed = true
                return false
            }
            return true
        }
        if failed || !walked { return nil }
        return members
    }

    /// The elements of the list at `range` whose `id` member is `id`, parsed; nil when the skim cannot
    /// follow the list or an element kept does not parse.
    private static func entries(in bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, record id: Int64, reader: JSONReader) -> [JSONValue]? {
        var kept: [JSONValue] = []
        var readable = true
        let walked = JSONSkim.elements(of: bytes, in: range) { element in
            var elementID: Int64?
            readable =
                JSONSkim.members(of: bytes, in: element) { key, value in
                    guard JSONSkim.equals(bytes, key, "id") else { return true }
                    elementID = JSONSkim.integer(bytes, value)
                    return false
                } && readable
            guard readable else { return false }
            guard elementID == id else { return true }
            guard let entry = try? reader.parse(UnsafeBufferPointer(rebasing: bytes[element])) else {
                readable = false
                return false
            }
            kept.append(entry)
            return true
        }
        return walked && readable ? kept : nil
    }
}
