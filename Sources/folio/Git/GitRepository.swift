import Foundation
import FolioStorage

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Why `folio git-setup` cannot go on. Each case names what it is about; ``failure`` is the message
/// and remedy the command prints (exit 1).
enum GitSetupError: Error, Equatable {
    /// No `git` on `PATH`.
    case gitNotFound
    /// The current directory is not inside a git work tree (`git rev-parse --show-toplevel` failed,
    /// with what git said).
    case notInWorkTree(directory: String, git: String)
    /// A STORE argument names no directory.
    case noSuchDirectory(String)
    /// A STORE argument is a directory outside the work tree whose top is `top`.
    case outsideWorkTree(String, top: String)
    /// A STORE argument is a directory without the files of a store.
    case notAStore(String)
    /// No STORE was given and the work tree whose top is this holds no store.
    case noStores(String)
    /// A store's path holds a character that `.gitattributes` and `.gitignore` cannot spell.
    case unsupportedPath(String)
    /// A file to update cannot be read or written.
    case file(String, String)
    /// A git command failed.
    case gitFailed(arguments: [String], status: Int32, message: String)
    /// The path of the running `folio` could not be found.
    case executableUnknown

    var failure: CommandFailure {
        switch self {
        case .gitNotFound:
            return CommandFailure("git was not found on PATH.", help: "Install git, or put it on PATH, and run 'folio git-setup' again.")
        case .notInWorkTree(let directory, let git):
            return CommandFailure(
                "'\(directory)' is not inside a git work tree\(git.isEmpty ? "" : " (git: \(git))").",
                help: "Run 'folio git-setup' inside a clone of the repository that holds the stores ('git init' makes one).")
        case .noSuchDirectory(let path):
            return CommandFailure(
                "No store at '\(path)': the directory does not exist.", help: "Give the directory of a Folio store, or no STORE to find every store.")
        case .outsideWorkTree(let path, let top):
            return CommandFailure(
                "The store '\(path)' is outside the git work tree \(top).",
                help: "Give stores inside the work tree, or run 'folio git-setup' inside the store's repository.")
        case .notAStore(let path):
            return CommandFailure(
                "'\(path)' is not a Folio store: it has no manifest.json, journal.jsonl, history.jsonl or snapshots.",
                help: "Give the directory that holds the store's manifest.json, or no STORE to find every store.")
        case .noStores(let top):
            return CommandFailure(
                "No Folio store in the git work tree \(top): no directory holds a journal.jsonl or a folio-store manifest.json.",
                help: "Give the store's directory as STORE, or create the store first.")
        case .unsupportedPath(let path):
            return CommandFailure(
                "The store path '\(path)' holds a control character (a tab, a line break…), which .gitignore cannot match.",
                help: "Rename the store directory, then run 'folio git-setup' again.")
        case .file(let path, let problem):
            return CommandFailure("Could not update \(path): \(problem)", help: "Check the file's permissions, then run 'folio git-setup' again.")
        case .gitFailed(let arguments, let status, let message):
            return CommandFailure(
                "'git \(arguments.joined(separator: " "))' failed with exit \(status)\(message.isEmpty ? "" : ": \(message)")",
                help: "Run that git command in the work tree to see why; nothing after it was changed.")
        case .executableUnknown:
            return CommandFailure(
                "Could not find the path of the running folio executable.",
                help: "Run folio by its path (for example /usr/local/bin/folio git-setup).")
        }
    }
}

/// The git work tree `folio git-setup` works in, and the `git` it runs for it.
///
/// Git runs as a child process with explicit arguments (never through a shell), with `-C TOP`.
struct GitRepository {
    /// The `git` executable.
    let git: URL
    /// The work tree's top, as git prints it (symbolic links resolved).
    let top: String

    /// What one git command printed and returned.
    struct Output {
        var status: Int32
        var stdout: Data
        var stderr: String
    }

    /// The work tree holding `directory` (the current directory by default).
    ///
    /// - Throws: ``GitSetupError/gitNotFound``, ``GitSetupError/notInWorkTree(directory:git:)``.
    static func find(
        from directory: String = FileManager.default.currentDirectoryPath,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(GitSetupError) -> GitRepository {
        guard let git = executable(named: "git", path: environment["PATH"] ?? "/usr/bin:/bin") else { throw .gitNotFound }
        let output: Output
        do {
            output = try run(git, ["rev-parse", "--show-toplevel"], in: directory)
        } catch {
            throw .notInWorkTree(directory: directory, git: "\(error)")
        }
        var top = String(decoding: output.stdout, as: UTF8.self)
        if top.hasSuffix("\n") { top.removeLast() }
        guard output.status == 0, !top.isEmpty else {
            throw .notInWorkTree(directory: directory, git: output.stderr.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        return GitRepository(git: git, top: top)
    }

    /// Runs `git -C TOP ARGUMENTS`, with `input` on its standard input.
    func run(_ arguments: [String], input: Data? = nil) throws(GitSetupError) -> Output {
        do {
            return try Self.run(git, ["-C", top] + arguments, input: input)
        } catch {
            throw .gitFailed(arguments: arguments, status: -1, message: "\(error)")
        }
    }

    /// Runs git and requires one of `statuses`.
    func checked(_ arguments: [String], input: Data? = nil, statuses: Set<Int32> = [0]) throws(GitSetupError) -> Output {
        let output = try run(arguments, input: input)
        guard statuses.contains(output.status) else {
            throw .gitFailed(arguments: arguments, status: output.status, message: output.stderr.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        return output
    }

    // MARK: Configuration

    /// Every value of `key` in the repository's own configuration (`git config --local`), in order;
    /// empty when it is not set.
    func localValues(_ key: String) throws(GitSetupError) -> [String] {
        let output = try checked(["config", "--local", "-z", "--get-all", key], statuses: [0, 1])
        guard output.status == 0 else { return [] }
        return Self.fields(output.stdout)
    }

    /// Sets `key` to `value` in the repository's own configuration, replacing every earlier value.
    func setLocal(_ key: String, _ value: String) throws(GitSetupError) {
        _ = try checked(["config", "--local", "--replace-all", key, value])
    }

    // MARK: Attributes and ignore rules, as git sees them

    /// `attribute → value` for each path (relative to the top), as `git check-attr` reports them:
    /// `set`, `unset`, `unspecified` or the value.
    func attributes(_ names: [String], of paths: [String]) throws(GitSetupError) -> [String: [String: String]] {
        let fields = Self.fields(try checked(["check-attr", "-z"] + names + ["--"] + paths).stdout)
        var result: [String: [String: String]] = [:]
        var index = 0
        while index + 2 < fields.count {
            result[fields[index], default: [:]][fields[index + 1]] = fields[index + 2]
            index += 3
        }
        return result
    }

    /// For each path (relative to the top) that an ignore rule matches, the rule (`.gitignore:3: *.jsonl`),
    /// and whether it ignores the path (a `!` rule re-includes it). Tracked files are checked as well.
    func ignoreRules(of paths: [String]) throws(GitSetupError) -> [String: (rule: String, ignored: Bool)] {
        // check-ignore reads its paths as pathspecs: `./` keeps one that starts with `:` from reading as magic.
        var input = Data()
        for path in paths { input.append(contentsOf: Array("./\(path)".utf8) + [0]) }
        let fields = Self.fields(try checked(["check-ignore", "--no-index", "-v", "-n", "-z", "--stdin"], input: input, statuses: [0, 1]).stdout)
        var result: [String: (rule: String, ignored: Bool)] = [:]
        var index = 0
        while index + 3 < fields.count {
            let (source, line, pattern, path) = (fields[index], fields[index + 1], fields[index + 2], fields[index + 3])
            if !pattern.isEmpty { result[String(path.dropFirst(2))] = ("\(source):\(line): \(pattern)", !pattern.hasPrefix("!")) }
            index += 4
        }
        return result
    }

    // MARK: Processes

    /// The NUL-terminated fields of git's `-z` output.
    static func fields(_ data: Data) -> [String] {
        var fields = data.split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
        if fields.last == "" { fields.removeLast() }
        return fields
    }

    /// The executable `name` in the directories of `path` (a `PATH` value).
    static func executable(named name: String, path: String) -> URL? {
        for directory in path.split(separator: ":") where !directory.isEmpty {
            let candidate = URL(fileURLWithPath: String(directory)).appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        return nil
    }

    /// Runs `executable` with `arguments` (no shell) and collects both outputs.
    static func run(_ executable: URL, _ arguments: [String], in directory: String? = nil, input: Data? = nil) throws -> Output {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory, isDirectory: true) }
        let output = Pipe(), error = Pipe(), standardInput = Pipe()
        process.standardOutput = output
        process.standardError = error
        process.standardInput = standardInput
        let exited = try ProcessExit(running: process)
        // Both pipes are read at once, and the input written beside them, so that no full pipe blocks git.
        let errorOutput = LockedState(Data())
        let group = DispatchGroup()
        group.enter()
        DispatchQueue.global().async {
            let read = error.fileHandleForReading.readDataToEndOfFile()
            errorOutput.withLock { $0 = read }
            group.leave()
        }
        let writer = standardInput.fileHandleForWriting
        group.enter()
        DispatchQueue.global().async {
            if let input { writer.write(input) }
            try? writer.close()
            group.leave()
        }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        exited.wait()
        return Output(status: process.terminationStatus, stdout: data, stderr: String(decoding: errorOutput.withLock { $0 }, as: UTF8.self))
    }
}

/// Paths of the running program and of the files it is given.
enum FilePaths {
    /// `path` with every symbolic link resolved and made absolute (realpath(3)), or nil when it does not exist.
    static func real(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// The absolute path of the running executable, symbolic links resolved.
    static func runningExecutable() -> String? {
        #if os(Linux)
            if let path = real("/proc/self/exe") { return path }
        #endif
        if let path = Bundle.main.executablePath, let resolved = real(path) { return resolved }
        guard let first = CommandLine.arguments.first, !first.isEmpty else { return nil }
        if first.contains("/") { return real(first) }
        return GitRepository.executable(named: first, path: ProcessInfo.processInfo.environment["PATH"] ?? "").flatMap { real($0.path) }
    }
}
