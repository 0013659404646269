/// A commit, as `git log` prints it with an explicit format.
struct GitCommit: Hashable {
    var hash: String
    /// The parents' full hashes, the first parent first; empty for a root commit, and when the format
    /// did not ask for them.
    var parents: [String] = []
    var author: String
    /// The author date, strict ISO 8601 as git prints it (`%aI`).
    var date: String
    var subject: String

    var shortHash: String { String(hash.prefix(10)) }
}
