/// The framing shared by every line Folio writes: journal transactions, snapshot records, history and
/// the manifest.
///
/// A line is one canonical JSON object whose first member is `"$crc"`, eight lowercase hex digits: the
/// CRC-32 (zlib's) of the line's canonical JSON *without* that member, that is of `{` followed by the
/// rest of the line after its first 19 bytes `{"$crc":"hhhhhhhh",`. Lines end in `\n`; a `\r` before it
/// is tolerated (a git checkout with `core.autocrlf`) and is not part of the checksummed content.
package enum LineFraming {
    /// Length of `{"$crc":"hhhhhhhh",`.
    static let prefixLength = 19
    private static let prefixHead: [UInt8] = Array(#"{"$crc":""#.utf8)

    /// Encodes `members` (which must not contain `$crc`) as a framed line ending in `\n`.
    package static func encode(_ members: [String: JSONValue]) throws -> [UInt8] {
        frame(body: try CanonicalJSONWriter().bytes(.object(members)))
    }

    /// Appends a framed line to `output` without an intermediate buffer: `writeMembers` appends the
    /// canonical members after the opening brace, through the closing brace (`"a":1}`), or just `}`.
    package static func appendLine(to output: inout [UInt8], _ writeMembers: (inout [UInt8]) throws -> Void) rethrows {
        try appendLine(to: &output) { output, _ in try writeMembers(&output) }
    }

    /// ``appendLine(to:_:)`` for a writer that appends some parts of the members already checksummed
    /// (written and checked on other threads): it reports each one to `checksum` right after appending
    /// it, and the line checks only the bytes between them itself.
    package static func appendLine(
        to output: inout [UInt8],
        _ writeMembers: (inout [UInt8], inout LineChecksum) throws -> Void
    ) rethrows {
        let start = output.count
        output.append(contentsOf: placeholderPrefix)
        let membersStart = output.count
        var checksum = LineChecksum(checkedEnd: membersStart)
        try writeMembers(&output, &checksum)
        var crc: UInt32
        if output.count == membersStart + 1 && output[membersStart] == UInt8(ascii: "}") {
            // No members: the line is `{"$crc":"…"}`.
            output.removeLast(2)
            output.append(UInt8(ascii: "}"))
            crc = CRC32.checksum([UInt8(ascii: "{"), UInt8(ascii: "}")])
        } else {
            checksum.checkUnchecked(in: output, upTo: output.count)
            crc = checksum.crc
        }
        CRC32.writeHex(crc, into: &output, at: start + 9)
        output.append(0x0A)
    }

    /// The checksum of a line's members as they are appended (see ``appendLine(to:_:)-(_,(_,_)->Void)``).
    package struct LineChecksum {
        /// The CRC-32 of `{` and of the members up to ``checkedEnd``.
        fileprivate(set) var crc = CRC32.openingBraceChecksum
        /// Where the bytes checked so far end in the output.
        fileprivate var checkedEnd: Int

        fileprivate init(checkedEnd: Int) {
            self.checkedEnd = checkedEnd
        }

        /// Takes the part just appended to `output`, its last `length` bytes, whose CRC-32 is `partCRC`.
        package mutating func appendedPart(length: Int, crc partCRC: UInt32, in output: [UInt8]) {
            checkUnchecked(in: output, upTo: output.count - length)
            crc = CRC32.combine(crc, partCRC, secondLength: length)
            checkedEnd = output.count
        }

        fileprivate mutating func checkUnchecked(in output: [UInt8], upTo end: Int) {
            guard end > checkedEnd else { return }
            let from = checkedEnd
            crc = output.withUnsafeBufferPointer { CRC32.checksum(UnsafeBufferPointer(rebasing: $0[from..<end]), continuing: crc) }
            checkedEnd = end
        }
    }

    /// `{"$crc":"00000000",`: a line's first 19 bytes before its checksum is known.
    private static let placeholderPrefix: [UInt8] = Array(#"{"$crc":"00000000","#.utf8)

    /// Appends a framed line whose content after the opening brace is `members` (`"a":1}`), copied.
    package static func appendLine(members: UnsafeBufferPointer<UInt8>, to output: inout [UInt8]) {
        let start = output.count
        output.append(contentsOf: placeholderPrefix)
        output.append(contentsOf: members)
        CRC32.writeHex(CRC32.checksum(afterOpeningBrace: members), into: &output, at: start + 9)
        output.append(0x0A)
    }

    /// Frames the canonical JSON of an object (`{…}`, without `$crc`) as a line ending in `\n`.
    package static func frame(body: [UInt8]) -> [UInt8] {
        let crc = CRC32.checksum(body)
        var line = prefixHead
        line.reserveCapacity(body.count + 21)
        line.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: 8))
        CRC32.writeHex(crc, into: &line, at: prefixHead.count)
        line.append(UInt8(ascii: "\""))
        if body.count > 2 {
            line.append(UInt8(ascii: ","))
            line.append(contentsOf: body[1...])
        } else {
            line.append(UInt8(ascii: "}"))
        }
        line.append(0x0A)
        return line
    }

    /// Whether a line is a git merge-conflict marker (`<<<<<<<`, `=======`, `>>>>>>>`, `|||||||`).
    package static func isConflictMarker(_ line: UnsafeBufferPointer<UInt8>) -> Bool {
        guard line.count >= 7 else { return false }
        let first = line[0]
        guard
            first == UInt8(ascii: "<") || first == UInt8(ascii: "=") || first == UInt8(ascii: ">")
                || first == UInt8(ascii: "|")
        else { return false }
        for k in 1..<7 where line[k] != first { return false }
        return true
    }

    /// Checks a line's framing and checksum (without its terminator); does not parse it.
    ///
    /// - Throws: ``StorageError`` (`mergeConflict`, `checksumMismatch`, `invalidJSON`, `malformedLine`).
    package static func verify(_ line: UnsafeBufferPointer<UInt8>, reader: JSONReader = JSONReader()) throws {
        if isConflictMarker(line) {
            throw StorageError(
                .mergeConflict,
                "git merge-conflict marker: the file was merged with conflicts; run `folio repair STORE` to keep this branch's transactions and renumber the other branch's after them, or check out one side"
            )
        }
        // `{"$crc":"hhhhhhhh"}` alone (19 bytes) is framed too: the line of an empty object.
        guard line.count >= prefixLength, line.starts(with: prefixHead), line[17] == UInt8(ascii: "\""),
            line[18] == UInt8(ascii: "}") || (line[18] == UInt8(ascii: ",") && line.count > prefixLength)
        else {
            // Not framed: report a JSON error if it is not even JSON, otherwise a missing checksum.
            if case .object(let members) = try reader.parse(line), members["$crc"] != nil {
                throw StorageError(
                    .malformedLine,
                    "the line's \"$crc\" member must come first, as 8 lowercase hex digits (the CRC-32 of the rest of the line), followed by the line's other members"
                )
            }
            throw StorageError(.malformedLine, "line does not start with its {\"$crc\":...} checksum member")
        }
        var expected: UInt32 = 0
        for k in 9..<17 {
            let byte = line[k]
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
            default: throw StorageError(.checksumMismatch, "the checksum is not 8 lowercase hex digits; the line was damaged or edited by hand")
            }
            expected = expected << 4 | digit
        }
        var actual: UInt32
        if line[18] == UInt8(ascii: "}") {
            actual = CRC32.checksum([UInt8(ascii: "{"), UInt8(ascii: "}")])
            if line.count != prefixLength {
                throw StorageError(.checksumMismatch, "unexpected bytes after the line's closing brace")
            }
        } else {
            actual = CRC32.checksum(afterOpeningBrace: UnsafeBufferPointer(rebasing: line[prefixLength...]))
        }
        guard actual == expected else {
            throw StorageError(
                .checksumMismatch,
                "checksum mismatch: the line was damaged or edited; restore it from a backup or git, or run `folio verify --repair`")
        }
    }

    /// Decodes a line (without its terminator), checking its checksum.
    ///
    /// - Returns: the members, without `$crc`.
    /// - Throws: ``StorageError`` (`mergeConflict`, `checksumMismatch`, `invalidJSON`, `malformedLine`)
    ///   without file or line: the caller adds them.
    package static func decode(_ line: UnsafeBufferPointer<UInt8>, reader: JSONReader = JSONReader()) throws -> [String: JSONValue] {
        try verify(line, reader: reader)
        guard case .object(var members) = try reader.parse(line) else {
            throw StorageError(.malformedLine, "line is not a JSON object")
        }
        members["$crc"] = nil
        return members
    }
}
