import Foundation
import Testing
@testable import Folio

/// `FolioError.Code` is extensible, as `StorageError.Code` is: codes compare by name, a `catch` can
/// match one, and a `switch` over them takes a `default`.
@Suite("Error codes")
struct FolioErrorCodeTests {
    @Test func aCodeIsItsNameAndACatchPatternMatchesIt() throws {
        #expect(FolioError.Code(rawValue: "invalidModel") == .invalidModel)
        #expect(FolioError.Code.modelCoding.description == "modelCoding")
        #expect(FolioError.Code(rawValue: "aCodeOfALaterVersion") != .storage)
        let container = try ModelContainer(for: Exhibit.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        var caught: FolioError.Code?
        do {
            _ = try context.fetch(FetchDescriptor<Vase>())
        } catch FolioError.Code.invalidFetchDescriptor {
            caught = .invalidFetchDescriptor
        } catch {
            Issue.record("an unexpected error: \(error)")
        }
        #expect(caught == .invalidFetchDescriptor, "a model the schema does not hold")
    }

    @Test func aSwitchOverCodesReadsAsItDidWithTheEnum() {
        func advice(_ code: FolioError.Code) -> String {
            switch code {
            case .migrationRequired: return "write a stage"
            case .storage: return "check the disk"
            default: return "read the message"
            }
        }
        #expect(advice(.migrationRequired) == "write a stage")
        #expect(advice(FolioError.Code(rawValue: "storage")) == "check the disk")
        #expect(advice(.reentrantCall) == "read the message")
    }
}
