import Foundation
import FolioStorage

/// `Tools/folio_read_store.py`, the format's reference reader in Python, run on a store directory.
enum PythonReader {
    static let python: URL? = ["/usr/bin/python3", "/usr/local/bin/python3", "/opt/homebrew/bin/python3"]
        .map { URL(fileURLWithPath: $0) }.first { FileManager.default.isExecutableFile(atPath: $0.path) }

    static var script: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Tools/folio_read_store.py")
    }

    /// The records of `entity` the script rebuilds, by identifier; nil when there is no python3 here.
    static func records(of entity: String, in store: URL) throws -> [Int64: [String: JSONValue]]? {
        guard let python else { return nil }
        let result = try run(python, arguments: [script.path, store.path])
        guard result.status == 0 else { throw CocoaError(.fileReadCorruptFile, userInfo: [NSLocalizedDescriptionKey: "\(result)"]) }
        let state = try JSONReader().parse(Array(result.stdout.utf8))
        guard case .object(let members) = state, case .object(let byEntity)? = members["records"] else { return [:] }
        guard case .array(let records)? = byEntity[entity] else { return [:] }
        var found: [Int64: [String: JSONValue]] = [:]
        for record in records {
            guard case .object(let fields) = record, case .int(let id)? = fields["id"], case .object(let values)? = fields["values"] else { continue }
            found[id] = values
        }
        return found
    }
}
