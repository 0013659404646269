/// A mistake in how the command was called. Printed as "Error: … / Help: …" with the usage, exit 64
/// (`EX_USAGE`).
struct UsageError: Error, Equatable, Sendable {
    var message: String
    var help: String?
    /// The command whose usage to print, if known.
    var command: String?

    init(_ message: String, help: String? = nil, command: String? = nil) {
        self.message = message
        self.help = help
        self.command = command
    }
}

/// A problem with the store or the files the command works on: exit 1.
struct CommandFailure: Error, Sendable {
    var message: String
    var help: String?

    init(_ message: String, help: String? = nil) {
        self.message = message
        self.help = help
    }
}

/// Exit codes, as sysexits.h and swift-argument-parser use them.
enum ExitCode {
    static let success: Int32 = 0
    /// A store problem, or checks that found problems.
    static let failure: Int32 = 1
    /// The command was called wrongly (`EX_USAGE`).
    static let usage: Int32 = 64
}
