extension EndToEndDiagnosticsTests {
    /// Model actors as apps write them for SwiftData, which must compile, and the mistakes the compiler
    /// must catch: `@ModelActor` on a class and the context reached from outside the actor.
    static let modelActorFixture = """
        import Folio

        @Model
        final class Crate {
            var label: String = ""
            init() {}
        }

        @ModelActor
        actor CrateImporter {
            func add(_ labels: [String]) throws -> [PersistentIdentifier] {
                let crates = labels.map { label in
                    let crate = Crate()
                    crate.label = label
                    return crate
                }
                for crate in crates { modelContext.insert(crate) }
                try modelContext.save()
                return crates.map(\\.persistentModelID)
            }

            func label(of id: PersistentIdentifier) -> String? {
                self[id, as: Crate.self]?.label
            }
        }

        @ModelActor
        public actor PublicImporter {}

        actor HandWrittenImporter: ModelActor {
            nonisolated let modelContainer: ModelContainer
            nonisolated let modelExecutor: any ModelExecutor

            init(modelContainer: ModelContainer) {
                self.modelContainer = modelContainer
                self.modelExecutor = DefaultSerialModelExecutor(modelContext: ModelContext(modelContainer))
            }
        }

        enum Importers {
            @ModelActor
            actor Nested {}
        }

        func makeImporters(_ container: ModelContainer) {
            _ = CrateImporter(modelContainer: container)
            _ = PublicImporter(modelContainer: container)
            _ = HandWrittenImporter(modelContainer: container)
            _ = Importers.Nested(modelContainer: container)
        }

        func reachIn(_ importer: CrateImporter) {
            _ = importer.modelContext // expected-error: actor-isolated property 'modelContext'
        }

        @ModelActor
        final class NotAnActor { // expected-error: '@ModelActor' cannot be applied to a class; write 'actor NotAnActor'
        }
        """
}
