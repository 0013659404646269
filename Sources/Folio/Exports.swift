// `import Folio` gives what `import SwiftData` gives: Foundation (for `#Predicate`, `SortDescriptor`,
// `Date`, …) and Observation (for `@Observable`-style tracking of models).
@_exported import Foundation
@_exported import Observation
