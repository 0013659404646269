import Foundation
import FolioStorage

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where a command writes: standard output for results, standard error for errors, warnings and
/// progress. Knows whether each is a terminal and whether colour is wanted.
///
/// Colour is used only when the stream is a terminal, `NO_COLOR` is not set (to anything, see
/// https://no-color.org) and `TERM` is not `dumb`. Progress is shown only when standard error is a terminal
/// and `NO_COLOR`/`FOLIO_NO_PROGRESS` are not set.
final class Console: Sendable {
    let outputIsTerminal: Bool
    let errorIsTerminal: Bool
    let environment: [String: String]
    /// What waits to be written to standard output.
    private let buffer = LockedState<[UInt8]>([])

    init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.environment = environment
        self.outputIsTerminal = isatty(STDOUT_FILENO) == 1
        self.errorIsTerminal = isatty(STDERR_FILENO) == 1
    }

    var colorsAllowed: Bool { environment["NO_COLOR"] == nil && environment["TERM"] != "dumb" }
    /// Whether standard output gets colour.
    var useColor: Bool { outputIsTerminal && colorsAllowed }
    /// Whether standard error gets colour.
    var useErrorColor: Bool { errorIsTerminal && colorsAllowed }
    /// Whether progress lines may be drawn on standard error.
    var showsProgress: Bool {
        errorIsTerminal && environment["NO_COLOR"] == nil && environment["FOLIO_NO_PROGRESS"] == nil
            && environment["TERM"] != "dumb"
    }

    /// The terminal's width, from `COLUMNS` or the terminal, or nil when not a terminal.
    var width: Int? {
        if let columns = environment["COLUMNS"].flatMap(Int.init), columns > 20 { return columns }
        guard outputIsTerminal else { return nil }
        var size = winsize()
        if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 20 { return Int(size.ws_col) }
        return 100
    }

    /// Writes a line to standard output (buffered; flushed at exit and before anything goes to stderr).
    func print(_ text: String = "") {
        append { buffer in
            buffer.append(contentsOf: text.utf8)
            buffer.append(0x0A)
        }
    }

    /// Writes text to standard output without a newline.
    func write(_ text: String) {
        append { $0.append(contentsOf: text.utf8) }
    }

    /// Writes bytes to standard output.
    func write(bytes: [UInt8]) {
        append { $0.append(contentsOf: bytes) }
    }

    /// Adds to the buffer what `add` appends, and writes the buffer out once it is large.
    private func append(_ add: (inout [UInt8]) -> Void) {
        let isLarge = buffer.withLock { buffer in
            add(&buffer)
            return buffer.count > 1 << 16
        }
        if isLarge { flush() }
    }

    func flush() {
        buffer.withLock { buffer in
            guard !buffer.isEmpty else { return }
            FileHandle.standardOutput.write(Data(buffer))
            buffer.removeAll(keepingCapacity: true)
        }
    }

    /// Writes a line to standard error.
    func error(_ text: String) {
        flush()
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    /// Writes raw text to standard error (progress).
    func errorRaw(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }

    // MARK: Styles

    enum Style: String {
        case bold = "1", dim = "2", red = "31", green = "32", yellow = "33", blue = "34", magenta = "35", cyan = "36"
    }

    /// `text` in a style when standard output takes colour.
    func styled(_ text: String, _ style: Style) -> String {
        useColor ? "\u{1B}[\(style.rawValue)m\(text)\u{1B}[0m" : text
    }

    /// `text` in a style when standard error takes colour.
    func errorStyled(_ text: String, _ style: Style) -> String {
        useErrorColor ? "\u{1B}[\(style.rawValue)m\(text)\u{1B}[0m" : text
    }

    /// Prints "Warning: …" on standard error.
    func warning(_ text: String) {
        error("\(errorStyled("Warning:", .yellow)) \(text)")
    }
}
