import Foundation

/// Runs `git` for reading a repository's objects: an explicit argument list (never a shell, so that a
/// revision or path is only ever an argument), stdin empty unless a request is piped in, stderr kept
/// for the error message, and an environment of its own.
///
/// The caller's `GIT_*` variables are dropped, since `GIT_DIR`, `GIT_WORK_TREE`, `GIT_INDEX_FILE`,
/// `GIT_OBJECT_DIRECTORY` and their kind would make git read another repository than the one named
/// (a program run from a git hook inherits them). Git then runs with `LC_ALL=C` (messages are classified
/// by their English text), no terminal prompt, no optional locks and literal pathspecs.
package struct GitRunner: Sendable {
    /// The `git` executable.
    package let executable: URL
    /// The environment git runs with (see the type's description).
    let environment: [String: String]

    /// The most of git's error output kept for a message.
    static let errorLimit = 16 << 10

    /// A runner for the `git` at `executable`, or, when it is nil, the first `git` on the `PATH` of
    /// `environment`.
    ///
    /// - Parameter keeping: `GIT_*` variables of `environment` to pass on all the same (a sync keeps
    ///   those that say how to reach a remote and who commits).
    /// - Throws: ``StorageError/Code/gitNotFound`` when there is none.
    package init(
        executable: URL? = nil, environment: [String: String] = ProcessInfo.processInfo.environment, keeping: Set<String> = []
    ) throws {
        if let executable {
            guard FileManager.default.isExecutableFile(atPath: executable.path) else {
                throw StorageError(.gitNotFound, "\(executable.path) is not an executable git; install git or name the one to use")
            }
            self.executable = executable
        } else {
            let directories = (environment["PATH"] ?? "").split(separator: ":").map(String.init).filter { !$0.isEmpty }
            guard
                let found = directories.lazy.map({ URL(fileURLWithPath: $0).appendingPathComponent("git") })
                    .first(where: { FileManager.default.isExecutableFile(atPath: $0.path) })
            else {
                throw StorageError(
                    .gitNotFound, "no git executable on the PATH (\(environment["PATH"] ?? "unset")); install git to read a store as of a revision")
            }
            self.executable = found
        }
        var kept = environment.filter { !$0.key.hasPrefix("GIT_") || keeping.contains($0.key) }
        kept["LC_ALL"] = "C"
        kept["GIT_TERMINAL_PROMPT"] = "0"
        kept["GIT_OPTIONAL_LOCKS"] = "0"
        kept["GIT_LITERAL_PATHSPECS"] = "1"
        // A partial clone lacking an object must fail, not fetch it from the network.
        kept["GIT_NO_LAZY_FETCH"] = "1"
        self.environment = kept
    }

    /// What one run of git produced.
    struct Output {
        var status: Int32
        var output: [UInt8]
        var errors: String

        /// The output as text, without its final newline.
        var text: String {
            var text = String(decoding: output, as: UTF8.self)
            while text.hasSuffix("\n") { text.removeLast() }
            return text
        }
    }

    /// Runs `git arguments` in `directory`, with `input` piped to its stdin (an empty stdin when nil),
    /// reading at most `outputLimit` bytes of its output.
    ///
    /// - Parameter ceiling: when set, git looks for the repository in `directory` itself only (it is
    ///   `GIT_CEILING_DIRECTORIES`): a folder that is no repository is not taken for part of one around it.
    /// - Throws: ``StorageError/Code/gitNotFound`` when git cannot be started,
    ///   ``StorageError/Code/notAGitRepository`` when `directory` does not exist,
    ///   ``StorageError/Code/gitFailed`` when the output is longer than `outputLimit`.
    /// - Parameter started: called with git's process identifier once it runs.
    func run(
        _ arguments: [String], in directory: URL, input: [UInt8]? = nil, outputLimit: Int, ceiling: Bool = false,
        started: (Int32) -> Void = { _ in }
    ) throws -> Output {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw StorageError(.notAGitRepository, "\(directory.path) is not a directory, so not a git repository")
        }
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.currentDirectoryURL = directory
        var environment = environment
        if ceiling { environment["GIT_CEILING_DIRECTORIES"] = directory.deletingLastPathComponent().path }
        process.environment = environment
        let outputPipe = Pipe(), errorPipe = Pipe()
        let inputPipe = input.map { _ in Pipe() }
        process.standardOutput = outputPipe
        process.standardError = errorPipe
        process.standardInput = inputPipe ?? FileHandle.nullDevice
        let exited: ProcessExit
        do {
            exited = try ProcessExit(running: process)
        } catch {
            throw StorageError(.gitNotFound, "\(executable.path) could not be started (\(error)); install git or name the one to use")
        }
        started(process.processIdentifier)
        let background = DispatchGroup()
        let errors = LockedState([UInt8]())
        let errorHandle = errorPipe.fileHandleForReading
        DispatchQueue.global().async(group: background) {
            // Read to the end so that git never blocks on a full pipe; keep only the first part.
            while let chunk = try? errorHandle.read(upToCount: 64 << 10), !chunk.isEmpty {
                errors.withLock { kept in
                    if kept.count < Self.errorLimit { kept.append(contentsOf: chunk.prefix(Self.errorLimit - kept.count)) }
                }
            }
        }
        if let input, let inputPipe {
            let handle = inputPipe.fileHandleForWriting
            // From another thread: git answers while it reads, and would stop reading once its output
            // pipe is full and nobody reads it.
            DispatchQueue.global().async(group: background) {
                Self.withoutBrokenPipeSignal {
                    try? handle.write(contentsOf: input)
                    try? handle.close()
                }
            }
        }
        let read = readOutput(outputPipe.fileHandleForReading, limit: outputLimit)
        if read == nil, process.isRunning { process.terminate() }
        exited.wait()
        background.wait()
        let message = String(decoding: errors.withLock { $0 }, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard let output = read else {
            throw StorageError(.gitFailed, "git \(arguments.first ?? "") answered more than the \(outputLimit) bytes expected")
        }
        return Output(status: process.terminationStatus, output: output, errors: message)
    }

    /// Runs `body` on this thread with `SIGPIPE` blocked, and takes back the one its writes raised:
    /// a git that stopped reading (it failed) makes a write fail with `EPIPE` instead of ending the
    /// program, without changing how the rest of the program handles the signal.
    private static func withoutBrokenPipeSignal(_ body: () -> Void) {
        var brokenPipe = sigset_t(), previous = sigset_t()
        sigemptyset(&brokenPipe)
        sigaddset(&brokenPipe, SIGPIPE)
        pthread_sigmask(SIG_BLOCK, &brokenPipe, &previous)
        body()
        var pending = sigset_t()
        if sigpending(&pending) == 0, sigismember(&pending, SIGPIPE) == 1 {
            var signal: Int32 = 0
            sigwait(&brokenPipe, &signal)
        }
        pthread_sigmask(SIG_SETMASK, &previous, nil)
    }

    /// Everything `handle` yields, or nil once it is more than `limit` bytes.
    private func readOutput(_ handle: FileHandle, limit: Int) -> [UInt8]? {
        var output: [UInt8] = []
        while let chunk = try? handle.read(upToCount: 1 << 20), !chunk.isEmpty {
            guard chunk.count <= limit - output.count else { return nil }
            if output.isEmpty { output.reserveCapacity(min(limit, 64 << 20)) }
            output.append(contentsOf: chunk)
        }
        return output
    }
}
