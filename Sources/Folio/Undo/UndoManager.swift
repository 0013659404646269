// Foundation's `UndoManager` is the Objective-C class `NSUndoManager`: it exists exactly where the
// Objective-C runtime does (Apple's platforms). swift-corelibs-foundation (Linux, Windows, Android) has
// none, so Folio supplies one there with the same API, and Apple's is used everywhere else.
#if !canImport(ObjectiveC)
    import Foundation

    /// A general-purpose recorder of operations that enables undo and redo, with the API and behaviour of
    /// Foundation's `UndoManager` on Apple platforms, for platforms whose Foundation has none.
    ///
    /// Register an undo operation with ``registerUndo(withTarget:handler:)``: a closure that reverts a
    /// change. Operations are collected into groups; ``undo()`` performs the last group's operations, last
    /// registered first, and the operations they register while undoing go to the redo stack as one
    /// group, which ``redo()`` performs in turn. A registration made while neither undoing nor redoing
    /// clears the redo stack.
    ///
    /// ## Events without a run loop
    ///
    /// On Apple platforms, with ``groupsByEvent`` set (the default), a registration made with no group
    /// open opens one, and the run loop closes it at the end of the event. Here no run loop is assumed:
    /// such an automatically opened group stays open until the event ends, which happens when
    ///
    /// - ``undo()`` or ``redo()`` is called (they close it first, as Foundation's do),
    /// - ``endUndoGrouping()`` is called at grouping level 1,
    /// - a `ModelContext` that uses the manager saves (`save()`) or is told to
    ///   (`processPendingChanges()`).
    ///
    /// So every change made to a context between two saves is undone as one action, unless you group
    /// changes yourself with ``beginUndoGrouping()`` and ``endUndoGrouping()``.
    ///
    /// ## Misuse
    ///
    /// Where Foundation raises `NSInternalInconsistencyException` (``endUndoGrouping()`` with no open
    /// group, ``undo()`` with nested groups open, ``enableUndoRegistration()`` without a matching
    /// ``disableUndoRegistration()``, a registration with no open group while ``groupsByEvent`` is
    /// false, ``undo()`` or ``redo()`` while undoing or redoing), this type ignores the call and leaves
    /// its state unchanged: it never traps.
    ///
    /// ## Differences from Foundation's
    ///
    /// - `registerUndo(withTarget:selector:object:)` and `prepare(withInvocationTarget:)` are absent: they
    ///   need the Objective-C runtime.
    /// - Targets are held weakly, not unowned: an operation whose target no longer exists is skipped.
    /// - Menu titles are in English.
    /// - The class is final; Foundation's can be subclassed.
    ///
    /// Like Foundation's, the class is not thread-safe (on Apple platforms it is bound to the main actor):
    /// use a manager from one thread or actor at a time.
    ///
    /// ## Notifications
    ///
    /// The manager posts the `NSUndoManager…` notifications (static members of `NSNotification.Name`) on
    /// `NotificationCenter.default`, with the manager as the object and no user info, on the thread that
    /// made the call.
    public final class UndoManager {
        /// The open groups, outermost first; empty when no group is open.
        var openGroups: [UndoGroup] = []
        /// Closed top-level groups that ``undo()`` performs, oldest first.
        var undoStack: [UndoGroup] = []
        /// Closed top-level groups that ``redo()`` performs, oldest first.
        var redoStack: [UndoGroup] = []
        /// Whether the outermost open group was opened by a registration (``groupsByEvent``), so that the
        /// end of the event closes it.
        var isEventGroupOpen = false
        /// How many ``disableUndoRegistration()`` calls are not yet balanced.
        var registrationDisableCount = 0

        /// Whether the manager is performing an undo; registrations made meanwhile go to the redo stack.
        public internal(set) var isUndoing = false
        /// Whether the manager is performing a redo; registrations made meanwhile go to the undo stack,
        /// leaving the redo stack as it is.
        public internal(set) var isRedoing = false

        /// Whether a registration with no group open opens one, which the end of the event closes (see
        /// "Events without a run loop" above). The default is `true`. When `false`, open and close groups
        /// yourself, and close them before calling ``undo()`` or ``undoNestedGroup()``.
        public var groupsByEvent = true

        /// The maximum number of top-level groups the undo stack (and the redo stack) holds; 0, the
        /// default, means no limit. Closing a group past the limit drops the oldest; lowering the limit
        /// drops the oldest groups at once.
        public var levelsOfUndo = 0 {
            didSet {
                levelsOfUndo = max(0, levelsOfUndo)
                undoStack = trimmed(undoStack)
                redoStack = trimmed(redoStack)
            }
        }

        /// Creates an undo manager with empty stacks.
        public init() {}

        // MARK: Registering

        /// Registers a closure that undoes a change, performed on `target` when the group it belongs to is
        /// undone (or redone, when registered while undoing).
        ///
        /// With no group open, the registration opens one if ``groupsByEvent`` is set, and is ignored
        /// otherwise. Registering while neither undoing nor redoing clears the redo stack. Nothing is
        /// registered while registration is disabled (``isUndoRegistrationEnabled``).
        ///
        /// - Parameters:
        ///   - target: The object the change is undone on. The manager does not keep it alive; removing
        ///     it with ``removeAllActions(withTarget:)`` removes the operation.
        ///   - handler: Reverts the change, given the target. To make the undo redoable, the handler
        ///     registers the opposite change.
        public func registerUndo<TargetType: AnyObject>(
            withTarget target: TargetType,
            handler: @escaping (TargetType) -> Void
        ) {
            guard isUndoRegistrationEnabled else { return }
            if openGroups.isEmpty {
                guard groupsByEvent else { return }
                beginUndoGrouping()
                isEventGroupOpen = true
            }
            if !isUndoing && !isRedoing { redoStack.removeAll() }
            openGroups[openGroups.count - 1].items.append(.action(UndoAction(target: target, handler: handler)))
        }

        /// Whether registrations are recorded: `true` unless ``disableUndoRegistration()`` was called more
        /// often than ``enableUndoRegistration()``.
        public var isUndoRegistrationEnabled: Bool { registrationDisableCount == 0 }

        /// Stops recording registrations until a matching ``enableUndoRegistration()``. Calls nest.
        public func disableUndoRegistration() {
            registrationDisableCount += 1
        }

        /// Balances one ``disableUndoRegistration()``; ignored when registration is not disabled.
        public func enableUndoRegistration() {
            guard registrationDisableCount > 0 else { return }
            registrationDisableCount -= 1
        }

        // MARK: Grouping

        /// The number of open groups: 0 when none is open. During ``undo()`` and ``redo()`` it counts the
        /// group that collects the opposite operations.
        public var groupingLevel: Int { openGroups.count }

        /// Opens a group, nested in the open one if any: the operations registered until the matching
        /// ``endUndoGrouping()`` are undone together.
        ///
        /// Posts `.NSUndoManagerCheckpoint` (unless an undo or redo is in progress), then
        /// `.NSUndoManagerDidOpenUndoGroup`.
        public func beginUndoGrouping() {
            if !isUndoing && !isRedoing { post(.NSUndoManagerCheckpoint) }
            openGroups.append(UndoGroup())
            post(.NSUndoManagerDidOpenUndoGroup)
        }

        /// Closes the innermost open group: a nested group joins the group around it, a top-level one goes
        /// on the undo stack (the redo stack while undoing). A group with no operations is discarded.
        /// Ignored when no group is open.
        ///
        /// Posts `.NSUndoManagerCheckpoint` and `.NSUndoManagerWillCloseUndoGroup` before the group
        /// closes, and `.NSUndoManagerDidCloseUndoGroup` after.
        public func endUndoGrouping() {
            guard !openGroups.isEmpty else { return }
            post(.NSUndoManagerCheckpoint)
            post(.NSUndoManagerWillCloseUndoGroup)
            let group = openGroups.removeLast()
            if !group.isEmpty {
                if openGroups.isEmpty {
                    if isUndoing {
                        redoStack = trimmed(redoStack + [group])
                    } else {
                        undoStack = trimmed(undoStack + [group])
                    }
                } else {
                    openGroups[openGroups.count - 1].items.append(.group(group))
                }
            }
            if openGroups.isEmpty { isEventGroupOpen = false }
            post(.NSUndoManagerDidCloseUndoGroup)
        }

        /// Ends the current event: closes the group a registration opened (``groupsByEvent``) when it is
        /// the only one open. What a run loop pass does on Apple platforms; a context calls it at
        /// `save()` and `processPendingChanges()`.
        func endEvent() {
            guard isEventGroupOpen, groupsByEvent, openGroups.count == 1 else { return }
            endUndoGrouping()
        }

        // MARK: Clearing

        /// Removes every operation from both stacks and the open groups, closes the open groups without
        /// notifications, and enables registration again.
        public func removeAllActions() {
            openGroups = []
            undoStack = []
            redoStack = []
            isEventGroupOpen = false
            registrationDisableCount = 0
        }

        /// Removes the operations whose target is `target` from both stacks and the open groups; groups
        /// left with no operation are dropped. Registration stays disabled if it was.
        public func removeAllActions(withTarget target: AnyObject) {
            undoStack = undoStack.map { $0.removingActions(withTarget: target) }.filter { !$0.isEmpty }
            redoStack = redoStack.map { $0.removingActions(withTarget: target) }.filter { !$0.isEmpty }
            openGroups = openGroups.map { $0.removingActions(withTarget: target) }
        }

        // MARK: Machinery

        /// `stack` without its oldest groups past ``levelsOfUndo``.
        func trimmed(_ stack: [UndoGroup]) -> [UndoGroup] {
            guard levelsOfUndo > 0, stack.count > levelsOfUndo else { return stack }
            return Array(stack.suffix(levelsOfUndo))
        }

        func post(_ name: NSNotification.Name) {
            NotificationCenter.default.post(name: name, object: self)
        }
    }
#endif
