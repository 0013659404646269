import Foundation
import FolioStorage

/// Opening stores for the offline commands, with errors turned into messages with a remedy.
enum StoreAccess {
    /// The store directory named by the user; it must exist and look like a store.
    static func directory(_ path: String, mustExist: Bool = true) throws -> URL {
        let url = URL(fileURLWithPath: path, isDirectory: true).standardizedFileURL
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory)
        if mustExist {
            guard exists else {
                throw CommandFailure(
                    "No store at '\(path)': the directory does not exist.",
                    help: "Give the directory of a Folio store, for example one 'folio demo' printed.")
            }
            guard isDirectory.boolValue else {
                throw CommandFailure("'\(path)' is a file, not a store directory.", help: "A Folio store is a directory holding manifest.json.")
            }
            let names = (try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []
            if !names.contains(where: { ["manifest.json", "journal.jsonl", "history.jsonl", "snapshots"].contains($0) }) {
                throw CommandFailure(
                    "'\(path)' is not a Folio store: it has no manifest.json, journal.jsonl or snapshots.",
                    help: "Give the directory that holds manifest.json.")
            }
        }
        return url
    }

    /// Opens a store without writing anything (no lock file is created, no repair is made).
    ///
    /// - Parameter defersLoadingRecords: Whether the records are read only when something needs them
    ///   all (see ``StoreConfiguration/defersLoadingRecords``), for a command that may not.
    static func openReadOnly(_ path: String, defersLoadingRecords: Bool = false) throws -> Store {
        let url = try directory(path)
        do {
            // The default compaction threshold, so that `info` can say whether compaction is due; a
            // read-only store never compacts.
            var configuration = StoreConfiguration(readOnly: true)
            configuration.defersLoadingRecords = defersLoadingRecords
            return try Store.open(at: url, configuration: configuration)
        } catch let error as StorageError {
            throw failure(error, path: path)
        }
    }

    /// Opens a store for writing (takes the writer lock while writing).
    static func openWritable(_ path: String, create: Bool = false) throws -> Store {
        let url = try directory(path, mustExist: !create)
        do {
            return try Store.open(at: url, configuration: StoreConfiguration(compactionThreshold: nil))
        } catch let error as StorageError {
            throw failure(error, path: path)
        }
    }

    /// A storage error as a command failure with a remedy.
    static func failure(_ error: StorageError, path: String) -> CommandFailure {
        let remedy: String
        switch error.code {
        case .checksumMismatch, .invalidJSON, .malformedLine, .duplicateSequence, .missingSequence, .inconsistentStore:
            remedy = "Run 'folio verify \(path)' to list every problem, then 'folio repair \(path)'."
        case .mergeConflict:
            remedy = "The store has git merge-conflict markers: see docs/git.md, or run 'folio repair \(path)'."
        case .newerFormatVersion:
            remedy = "Use a newer folio to read this store."
        case .missingManifest:
            remedy = "Restore manifest.json from git or a backup."
        case .tailTooLarge:
            remedy = "Run 'folio repair \(path)' to move the damaged end of the journal aside."
        default:
            remedy = "Run 'folio verify \(path)' for details."
        }
        return CommandFailure("The store at '\(path)' cannot be opened: \(error)", help: remedy)
    }

    /// Every retained transaction, oldest first.
    static func retainedHistory(_ store: Store) throws -> [JournalTransaction] {
        try store.retainedHistory()
    }

    /// Parses a date given on the command line: `2026-01-31`, `2026-01-31T12:00`, `2026-01-31T12:00:00Z`,
    /// or a relative `3d`, `12h`, `30m`, `2w` (that long ago).
    static func parseDate(_ text: String, now: Date = Date()) -> Date? {
        if let last = text.last, let amount = Double(text.dropLast()), amount >= 0 {
            let unit: Double? = ["s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604_800][String(last)]
            if let unit { return now.addingTimeInterval(-amount * unit) }
        }
        return DateText.parse(text)
    }
}

/// ISO 8601 dates as stored by Folio (`2026-03-01T09:30:00Z`, `…00.25Z`) and as typed by people
/// (`2026-03-01`, `2026-03-01T09:30`), always UTC; also the journal's `…00.000Z`.
enum DateText {
    static func parse(_ text: String) -> Date? {
        var text = text
        // A native string is read in place: sorting a million dates parses each one.
        return text.withUTF8 { parse(bytes: $0) }
    }

    /// The date `bytes` spell, read as ``parse(_:)`` reads text.
    static func parse(bytes: UnsafeBufferPointer<UInt8>) -> Date? {
        func number(_ from: Int, _ count: Int) -> Int64? {
            guard from + count <= bytes.count else { return nil }
            var value: Int64 = 0
            for byte in bytes[from..<from + count] {
                guard byte >= 0x30 && byte <= 0x39 else { return nil }
                value = value * 10 + Int64(byte - 0x30)
            }
            return value
        }
        guard bytes.count >= 10, let year = number(0, 4), bytes[4] == 0x2D, let month = number(5, 2), bytes[7] == 0x2D,
            let day = number(8, 2), (1...12).contains(month), (1...31).contains(day)
        else { return nil }
        var seconds: Double = 0
        var position = 10
        if bytes.count > 10 {
            guard bytes[10] == UInt8(ascii: "T") || bytes[10] == UInt8(ascii: " "), let hour = number(11, 2), bytes.count > 13,
                bytes[13] == 0x3A, let minute = number(14, 2), hour < 24, minute < 60
            else { return nil }
            seconds = Double(hour * 3600 + minute * 60)
            position = 16
            if position < bytes.count, bytes[position] == 0x3A {
                guard let second = number(17, 2), second < 61 else { return nil }
                seconds += Double(second)
                position = 19
                if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
                    var end = position + 1
                    while end < bytes.count, bytes[end] >= 0x30, bytes[end] <= 0x39 { end += 1 }
                    guard end > position + 1, let fraction = fraction(bytes[(position + 1)..<end]) else { return nil }
                    seconds += fraction
                    position = end
                }
            }
            if position < bytes.count, bytes[position] == UInt8(ascii: "Z") { position += 1 }
        }
        guard position == bytes.count else { return nil }
        let days = CivilDate.days(year: year, month: month, day: day)
        return Date(timeIntervalSince1970: Double(days * 86400) + seconds)
    }

    /// The value of the decimal fraction `0.DIGITS`, as `Double("0.DIGITS")` gives it: up to 15 digits the
    /// numerator and the power of ten are exact doubles, so their quotient is the correctly rounded value.
    private static let powersOfTen: [Double] = [1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15]

    private static func fraction(_ digits: Slice<UnsafeBufferPointer<UInt8>>) -> Double? {
        guard digits.count > 15 else {
            var numerator: Int64 = 0
            for digit in digits { numerator = numerator * 10 + Int64(digit - 0x30) }
            return Double(numerator) / powersOfTen[digits.count]
        }
        return Double("0." + String(decoding: digits, as: UTF8.self))
    }

    /// A stored date value (canonical string, or seconds since 2001 as a number) as a `Date`.
    static func stored(_ value: JSONValue) -> Date? {
        switch value {
        case .string(let text): return parse(text)
        case .double(let seconds): return Date(timeIntervalSinceReferenceDate: seconds)
        case .int(let seconds): return Date(timeIntervalSinceReferenceDate: Double(seconds))
        default: return nil
        }
    }

    /// `2026-03-01 09:30:00Z`-style text for people (UTC).
    static func format(_ date: Date, milliseconds: Bool = false) -> String {
        let total = date.timeIntervalSince1970
        // A date read from a file may hold any double: past a few million years it is shown as seconds.
        guard total.isFinite, abs(total) < 1e14 else { return "\(total) s since 1970 UTC" }
        let whole = Int64(total.rounded(.down))
        var days = whole / 86400
        var secondsOfDay = whole % 86400
        if secondsOfDay < 0 {
            secondsOfDay += 86400
            days -= 1
        }
        let (year, month, day) = CivilDate.civil(fromDays: days)
        let pad = CivilDate.pad
        var text =
            "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2)) \(pad(secondsOfDay / 3600, 2)):\(pad(secondsOfDay / 60 % 60, 2)):\(pad(secondsOfDay % 60, 2))"
        if milliseconds { text += "." + pad(Int64(((total - Double(whole)) * 1000).rounded(.down)), 3) }
        return text + " UTC"
    }
}
