/// A caller's interval in seconds as the whole nanoseconds a dispatch timer takes.
///
/// The interval is a `Double` from the caller: NaN, an infinity or a value past `Int` must give a
/// defined timer, never a trapping conversion.
enum TimerInterval {
    /// The longest period a timer is set to (2^62 ns, about 146 years): in effect, never.
    static let maximumNanoseconds = 1 << 62

    /// `seconds` in nanoseconds, rounded, at least `minimum` (also for NaN and negative intervals) and
    /// at most ``maximumNanoseconds`` (also for infinity).
    static func nanoseconds(seconds: Double, minimum: Int) -> Int {
        let scaled = seconds * 1e9
        guard scaled > Double(minimum) else { return minimum }
        guard scaled < Double(maximumNanoseconds) else { return maximumNanoseconds }
        return Int(scaled.rounded())
    }
}
