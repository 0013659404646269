// A module named SwiftData for platforms without Apple's framework: files that say `import SwiftData`
// and spell `SwiftData.Schema` or `SwiftData.ModelContainer` build unchanged against Folio, because
// qualified lookup into this module finds what it re-exports. On Apple platforms, depend on Apple's
// SwiftData or on the Folio product instead (see docs/swiftdata-compatibility.md): this module's name
// would clash with Apple's framework.
@_exported import Folio
