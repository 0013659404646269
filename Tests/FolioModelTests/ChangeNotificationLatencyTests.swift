import Foundation
import Testing
@testable import Folio

/// The latency of change notifications is configuration, set before the container is made: the
/// container and its change hub take it from the configuration, and nothing can change it afterwards.
@Suite("Change notification latency")
struct ChangeNotificationLatencyTests {
    @Test func theContainerAndItsChangeHubUseTheConfigurationsLatency() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        #expect(ModelConfiguration(url: store.url).changeNotificationLatency == 0.25)
        var configuration = ModelConfiguration(url: store.url)
        configuration.changeNotificationLatency = 0.05
        let container = try ModelContainer(for: Trip.self, configurations: configuration)
        #expect(container.changeNotificationLatency == 0.05)
        #expect(container.changeHub.latency == 0.05)
    }
}
