import Foundation
import Folio

/// A store directory of its own under the temporary directory, for one sample app's test.
struct SampleStore {
    let url: URL

    init(_ name: String = #function) {
        let safe = name.filter { $0.isLetter || $0.isNumber }
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("folio-sample-\(safe)-\(UUID().uuidString)", isDirectory: true)
    }

    /// A container over the store, as the app would open it.
    func container(_ types: any PersistentModel.Type...) throws -> ModelContainer {
        try ModelContainer(for: Schema(types), configurations: [ModelConfiguration(url: url)])
    }

    func cleanUp() {
        try? FileManager.default.removeItem(at: url)
    }
}
