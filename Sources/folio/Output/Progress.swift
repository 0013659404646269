import Foundation

/// A one-line progress display with a count and a rate, redrawn at most ten times a second on
/// standard error, only when ``Console/showsProgress`` allows it and only once the operation has run
/// for half a second (short operations show nothing; `FOLIO_PROGRESS_AFTER=SECONDS` changes the delay).
final class Progress {
    private let console: Console
    private let label: String
    private let total: Int?
    private let start = Date()
    private var lastDraw = Date.distantPast
    private var drawn = false
    private let delay: TimeInterval
    private(set) var count = 0

    init(_ label: String, total: Int? = nil, console: Console) {
        self.label = label
        self.total = total
        self.console = console
        self.delay = console.environment["FOLIO_PROGRESS_AFTER"].flatMap(Double.init) ?? 0.5
    }

    /// Counts `n` more items and redraws if due.
    func advance(by n: Int = 1) {
        count += n
        guard console.showsProgress else { return }
        let now = Date()
        guard now.timeIntervalSince(start) >= delay, now.timeIntervalSince(lastDraw) > 0.1 else { return }
        lastDraw = now
        draw(now)
    }

    private func draw(_ now: Date) {
        let elapsed = max(now.timeIntervalSince(start), 0.001)
        let rate = Double(count) / elapsed
        var text = "\(label): \(count)"
        if let total { text += "/\(total)" }
        text += " (\(Int(rate.rounded()))/s)"
        console.errorRaw("\r\u{1B}[2K" + text)
        drawn = true
    }

    /// Clears the progress line.
    func finish() {
        if drawn { console.errorRaw("\r\u{1B}[2K") }
        drawn = false
    }
}
