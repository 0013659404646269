import Foundation
import Synchronization
import Testing
@testable import Folio

/// A value whose changes register their undo, the way Foundation's documentation shows: the undo sets
/// the old value through the same method, which registers the redo.
private final class UndoableNote {
    let undoManager: UndoManager
    private(set) var text: String

    init(_ text: String, undoManager: UndoManager) {
        self.text = text
        self.undoManager = undoManager
    }

    func setText(_ newText: String) {
        let old = text
        undoManager.registerUndo(withTarget: self) { $0.setText(old) }
        text = newText
    }
}

/// Records the undo notifications one manager posts, by their names without the common parts.
private final class NotificationLog {
    /// The names seen; observers may be called on any thread, so they go through a lock.
    private final class Names: Sendable {
        let list = Mutex<[String]>([])
    }

    private let seen = Names()
    private var observers: [any NSObjectProtocol] = []

    static let watched: [NSNotification.Name] = [
        .NSUndoManagerCheckpoint, .NSUndoManagerWillUndoChange, .NSUndoManagerDidUndoChange,
        .NSUndoManagerWillRedoChange, .NSUndoManagerDidRedoChange, .NSUndoManagerDidOpenUndoGroup,
        .NSUndoManagerWillCloseUndoGroup, .NSUndoManagerDidCloseUndoGroup,
    ]

    init(_ manager: UndoManager) {
        let seen = self.seen
        for name in Self.watched {
            observers.append(
                NotificationCenter.default.addObserver(forName: name, object: manager, queue: nil) { note in
                    let short = note.name.rawValue.replacingOccurrences(of: "NSUndoManager", with: "")
                        .replacingOccurrences(of: "Notification", with: "")
                    seen.list.withLock { $0.append(short) }
                })
        }
    }

    var names: [String] { seen.list.withLock { $0 } }

    func reset() { seen.list.withLock { $0 = [] } }

    deinit {
        for observer in observers { NotificationCenter.default.removeObserver(observer) }
    }
}

@MainActor
private final class MainActorCounter {
    var count = 0
}

@Suite("UndoManager")
struct UndoManagerTests {
    @Test func undoPerformsTheRegisteredHandlerAndRedoPerformsWhatTheUndoRegistered() {
        let manager = UndoManager()
        let note = UndoableNote("a", undoManager: manager)
        #expect(!manager.canUndo)
        note.setText("b")
        #expect(manager.canUndo)
        #expect(!manager.canRedo)
        manager.undo()
        #expect(note.text == "a")
        #expect(!manager.canUndo)
        #expect(manager.canRedo)
        manager.redo()
        #expect(note.text == "b")
        #expect(manager.canUndo)
        #expect(!manager.canRedo)
        manager.undo()
        #expect(note.text == "a")
    }

    @Test func registrationsWithoutAGroupAreOneEventUndoneTogetherLastFirst() {
        let manager = UndoManager()
        var order: [Int] = []
        let target = NSObject()
        manager.registerUndo(withTarget: target) { _ in order.append(1) }
        #expect(manager.groupingLevel == 1)
        manager.registerUndo(withTarget: target) { _ in order.append(2) }
        manager.undo()
        #expect(order == [2, 1])
        #expect(manager.groupingLevel == 0)
        #expect(!manager.canUndo)
    }

    @Test func endingTheEventSeparatesTheGroups() {
        let manager = UndoManager()
        let note = UndoableNote("a", undoManager: manager)
        note.setText("b")
        manager.endEvent()
        note.setText("c")
        note.setText("d")
        manager.undo()
        #expect(note.text == "b")
        manager.undo()
        #expect(note.text == "a")
    }

    @Test func aNewRegistrationClearsTheRedoStackButARedoDoesNot() {
        let manager = UndoManager()
        let note = UndoableNote("a", undoManager: manager)
        note.setText("b")
        manager.endEvent()
        note.setText("c")
        manager.undo()
        manager.undo()
        #expect(note.text == "a")
        manager.redo()
        #expect(note.text == "b")
        #expect(manager.canRedo)
        note.setText("x")
        #expect(!manager.canRedo)
        manager.undo()
        #expect(note.text == "b")
    }

    @Test func aHandlerThatRegistersNothingLeavesNothingToRedo() {
        let manager = UndoManager()
        manager.registerUndo(withTarget: NSObject()) { _ in }
        manager.undo()
        #expect(!manager.canRedo)
    }

    @Test func nestedGroupsJoinTheGroupAroundThemAndAreUndoneWithIt() {
        let manager = UndoManager()
        manager.groupsByEvent = false
        let note = UndoableNote("a", undoManager: manager)
        manager.beginUndoGrouping()
        note.setText("b")
        manager.beginUndoGrouping()
        #expect(manager.groupingLevel == 2)
        note.setText("c")
        manager.endUndoGrouping()
        #expect(manager.groupingLevel == 1)
        manager.endUndoGrouping()
        #expect(manager.groupingLevel == 0)
        manager.undo()
        #expect(note.text == "a")
        #expect(!manager.canUndo)
    }

    @Test func undoNestedGroupUndoesTheNestedGroupClosedLastInsideTheOpenOne() {
        let manager = UndoManager()
        manager.groupsByEvent = false
        let note = UndoableNote("a", undoManager: manager)
        manager.beginUndoGrouping()
        note.setText("b")
        manager.beginUndoGrouping()
        note.setText("c")
        manager.endUndoGrouping()
        manager.undoNestedGroup()
        #expect(note.text == "b")
        #expect(manager.groupingLevel == 1)
        #expect(manager.canRedo)
        manager.endUndoGrouping()
        manager.undo()
        #expect(note.text == "a")
    }

    @Test func undoWithNestedGroupsOpenDoesNothing() {
        let manager = UndoManager()
        let note = UndoableNote("a", undoManager: manager)
        manager.beginUndoGrouping()
        manager.beginUndoGrouping()
        note.setText("b")
        manager.undo()
        #expect(note.text == "b")
        #expect(manager.groupingLevel == 2)
    }

    @Test func withoutGroupingByEventARegistrationOutsideAGroupIsIgnored() {
        let manager = UndoManager()
        manager.groupsByEvent = false
        let note = UndoableNote("a", undoManager: manager)
        note.setText("b")
        #expect(!manager.canUndo)
        #expect(manager.groupingLevel == 0)
    }

    @Test func withoutGroupingByEventUndoLeavesAnOpenGroupOpen() {
        let manager = UndoManager()
        manager.groupsByEvent = false
        let note = UndoableNote("a", undoManager: manager)
        manager.beginUndoGrouping()
        note.setText("b")
        manager.undo()
        #expect(note.text == "b")
        manager.endUndoGrouping()
        manager.undo()
        #expect(note.text == "a")
    }

    @Test func anEmptyGroupIsDiscardedAndEndingNoGroupIsIgnored() {
        let manager = UndoManager()
        manager.beginUndoGrouping()
        manager.endUndoGrouping()
        #expect(!manager.canUndo)
        manager.endUndoGrouping()
        #expect(manager.groupingLevel == 0)
    }

    @Test func levelsOfUndoDropsTheOldestGroups() {
        let manager = UndoManager()
        manager.levelsOfUndo = 2
        let note = UndoableNote("a", undoManager: manager)
        for text in ["b", "c", "d"] {
            note.setText(text)
            manager.endEvent()
        }
        manager.undo()
        manager.undo()
        #expect(note.text == "b")
        #expect(!manager.canUndo)
    }

    @Test func loweringLevelsOfUndoDropsOldGroupsAtOnce() {
        let manager = UndoManager()
        let note = UndoableNote("a", undoManager: manager)
        for text in ["b", "c", "d"] {
            note.setText(text)
            manager.endEvent()
        }
        manager.levelsOfUndo = 1
        manager.undo()
        #expect(note.text == "c")
        #expect(!manager.canUndo)
    }

    @Test func removeAllActionsEmptiesBothStacksAndEnablesRegistration() {
        let manager = UndoManager()
        let note = UndoableNote("a", undoManager: manager)
        note.setText("b")
        manager.endEvent()
        note.setText("c")
        manager.undo()
        manager.disableUndoRegistration()
        manager.removeAllActions()
        #expect(!manager.canUndo)
        #expect(!manager.canRedo)
        #expect(manager.isUndoRegistrationEnabled)
        #expect(manager.groupingLevel == 0)
    }

    @Test func removeAllActionsWithTargetRemovesOnlyThatTargetsOperations() {
        let manager = UndoManager()
        let first = UndoableNote("a", undoManager: manager)
        let second = UndoableNote("x", undoManager: manager)
        first.setText("b")
        second.setText("y")
        manager.endEvent()
        first.setText("c")
        manager.endEvent()
        manager.removeAllActions(withTarget: first)
        // The group holding only the first note's change is gone; the other keeps the second's.
        manager.undo()
        #expect(second.text == "x")
        #expect(first.text == "c")
        #expect(!manager.canUndo)
    }

    @Test func removeAllActionsWithTargetKeepsRegistrationDisabled() {
        let manager = UndoManager()
        manager.disableUndoRegistration()
        manager.removeAllActions(withTarget: NSObject())
        #expect(!manager.isUndoRegistrationEnabled)
    }

    @Test func disablingRegistrationNestsAndDropsRegistrations() {
        let manager = UndoManager()
        let note = UndoableNote("a", undoManager: manager)
        manager.disableUndoRegistration()
        manager.disableUndoRegistration()
        manager.enableUndoRegistration()
        #expect(!manager.isUndoRegistrationEnabled)
        note.setText("b")
        #expect(!manager.canUndo)
        manager.enableUndoRegistration()
        manager.enableUndoRegistration()
        #expect(manager.isUndoRegistrationEnabled)
        note.setText("c")
        #expect(manager.canUndo)
    }

    @Test func isUndoingAndIsRedoingAreSetWhileTheHandlersRun() {
        let manager = UndoManager()
        var seen: [(Bool, Bool)] = []
        let target = NSObject()
        func register() {
            manager.registerUndo(withTarget: target) { _ in
                seen.append((manager.isUndoing, manager.isRedoing))
                register()
            }
        }
        register()
        manager.undo()
        manager.redo()
        #expect(seen.map(\.0) == [true, false])
        #expect(seen.map(\.1) == [false, true])
        #expect(!manager.isUndoing && !manager.isRedoing)
    }

    @Test func actionNamesFollowTheGroupsBetweenTheStacks() {
        let manager = UndoManager()
        let note = UndoableNote("a", undoManager: manager)
        #expect(manager.undoActionName == "")
        #expect(manager.undoMenuItemTitle == "Undo")
        note.setText("b")
        manager.setActionName("Typing")
        #expect(manager.undoActionName == "Typing")
        manager.endEvent()
        note.setText("c")
        manager.setActionName("Paste")
        manager.endEvent()
        #expect(manager.undoMenuItemTitle == "Undo Paste")
        manager.undo()
        #expect(manager.undoActionName == "Typing")
        #expect(manager.redoActionName == "Paste")
        #expect(manager.redoMenuItemTitle == "Redo Paste")
        manager.redo()
        #expect(manager.undoActionName == "Paste")
        #expect(manager.redoActionName == "")
        #expect(manager.redoMenuTitle(forUndoActionName: "") == "Redo")
        #expect(manager.undoMenuTitle(forUndoActionName: "Move") == "Undo Move")
    }

    @Test func settingTheActionNameWithNoOpenGroupNamesTheLastGroup() {
        let manager = UndoManager()
        let note = UndoableNote("a", undoManager: manager)
        note.setText("b")
        manager.endEvent()
        manager.setActionName("Rename")
        #expect(manager.undoActionName == "Rename")
    }

    @Test func anOperationWhoseTargetIsGoneIsSkipped() {
        let manager = UndoManager()
        var performed = false
        do {
            let target = NSObject()
            manager.registerUndo(withTarget: target) { _ in performed = true }
        }
        manager.undo()
        #expect(!performed)
        #expect(!manager.canUndo)
    }

    @Test func notificationsOfARegistrationAnUndoAndARedoComeInFoundationsOrder() {
        let manager = UndoManager()
        let log = NotificationLog(manager)
        let note = UndoableNote("a", undoManager: manager)
        note.setText("b")
        #expect(log.names == ["Checkpoint", "DidOpenUndoGroup"])
        log.reset()
        manager.undo()
        #expect(
            log.names == [
                "Checkpoint", "Checkpoint", "WillCloseUndoGroup", "DidCloseUndoGroup",
                "Checkpoint", "WillUndoChange", "DidOpenUndoGroup", "Checkpoint", "WillCloseUndoGroup",
                "DidCloseUndoGroup", "DidUndoChange",
            ])
        log.reset()
        manager.redo()
        #expect(
            log.names == [
                "Checkpoint", "WillRedoChange", "DidOpenUndoGroup", "Checkpoint", "WillCloseUndoGroup",
                "DidCloseUndoGroup", "DidRedoChange",
            ])
        log.reset()
        _ = manager.canRedo
        #expect(log.names == ["Checkpoint"])
    }

    @Test func theNotificationNamesAreSpelledAsOnApplePlatforms() {
        #expect(NSNotification.Name.NSUndoManagerCheckpoint.rawValue == "NSUndoManagerCheckpointNotification")
        #expect(NSNotification.Name.NSUndoManagerDidCloseUndoGroup.rawValue == "NSUndoManagerDidCloseUndoGroupNotification")
        #expect(Notification.Name.NSUndoManagerWillUndoChange.rawValue == "NSUndoManagerWillUndoChangeNotification")
    }

    /// Code written for Apple's main-actor `UndoManager`, whose handlers touch main-actor state,
    /// compiles and runs against this one.
    @MainActor @Test func aHandlerWrittenOnTheMainActorRunsThere() {
        let manager = UndoManager()
        let counter = MainActorCounter()
        manager.registerUndo(withTarget: counter) { $0.count += 1 }
        manager.undo()
        #expect(counter.count == 1)
    }
}
