import Foundation

/// The result of checking a store directory: every problem found, not just the first.
package struct StoreVerification: Sendable {
    /// Problems that make `open` fail, in the order found (each names file, line and what is wrong).
    package var problems: [StorageError]
    /// Problems `open` tolerates (a torn last journal line, leftover temporary files).
    package var warnings: [String]
    /// Whether the store opens and nothing is wrong.
    package var isHealthy: Bool { problems.isEmpty }
}

/// Checks a store without modifying it: the library side of `folio verify`.
package enum StoreVerifier {
    /// Reads every file of the store at `directory` and lists every problem found.
    ///
    /// Unlike ``Store/open(at:configuration:)``, which stops at the first problem, verification carries on
    /// past damaged lines so that one run shows everything that needs repair.
    package static func verify(at directory: URL, configuration: StoreConfiguration = StoreConfiguration()) -> StoreVerification {
        var configuration = configuration
        configuration.readOnly = true
        let paths = StorePaths(directory: directory.path)
        var problems: [StorageError] = []
        var warnings: [String] = []
        do {
            let loaded = try StoreLoader.load(paths, configuration: configuration, checkingBlobReferences: true) {
                problems.append($0)
            }
            warnings += loaded.warnings
        } catch let error as StorageError {
            problems.append(error)
        } catch {
            problems.append(StorageError(.ioFailure, "\(error)", file: paths.directory))
        }
        let fs = configuration.fileSystem
        for folder in [paths.directory, paths.snapshots, paths.cacheDirectory] {
            for name in (try? fs.contentsOfDirectory(folder)) ?? [] where FileSystemNames.isTemporary(name) {
                warnings.append("\(folder)/\(name): temporary file left by an interrupted write; the next compaction removes it")
            }
        }
        return StoreVerification(problems: problems, warnings: warnings)
    }
}
