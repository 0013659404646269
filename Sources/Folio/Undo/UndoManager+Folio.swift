import Foundation

// The one place where what a `ModelContext` asks of its undo manager differs between Folio's
// `UndoManager` and Foundation's on Apple platforms, which recent SDKs bind to the main actor
// (`@MainActor class UndoManager`, its `registerUndo(withTarget:handler:)` taking a `@MainActor`
// handler).

#if canImport(ObjectiveC)
    extension UndoManager {
        /// Whether a change made now is to be registered: on the main thread only, since Foundation's
        /// manager belongs to the main actor, and while registration is enabled.
        nonisolated var folioIsRecording: Bool {
            guard Thread.isMainThread else { return false }
            return MainActor.assumeIsolated { isUndoRegistrationEnabled }
        }

        /// Registers `handler` on the main actor; dropped on any other thread (see ``folioIsRecording``).
        nonisolated func folioRegisterUndo<Target: AnyObject>(withTarget target: Target, handler: @escaping (Target) -> Void) {
            guard Thread.isMainThread else { return }
            // Unchecked: reached on the main thread only, where the manager also performs the handler.
            nonisolated(unsafe) let target = target
            nonisolated(unsafe) let handler = handler
            MainActor.assumeIsolated {
                registerUndo(withTarget: target) { handler($0) }
            }
        }

        /// Does nothing: on Apple platforms the run loop closes the group of each event.
        nonisolated func folioEndEvent() {}

        /// Empties both stacks, on the main thread only.
        nonisolated func folioRemoveAllActions() {
            guard Thread.isMainThread else { return }
            MainActor.assumeIsolated { removeAllActions() }
        }
    }
#else
    extension UndoManager {
        /// Whether a change made now is to be registered.
        var folioIsRecording: Bool { isUndoRegistrationEnabled }

        func folioRegisterUndo<Target: AnyObject>(withTarget target: Target, handler: @escaping (Target) -> Void) {
            registerUndo(withTarget: target, handler: handler)
        }

        /// Ends the current event (see ``UndoManager/endEvent()``).
        func folioEndEvent() {
            endEvent()
        }

        func folioRemoveAllActions() {
            removeAllActions()
        }
    }
#endif
