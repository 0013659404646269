#if !canImport(ObjectiveC)
    import Foundation

    extension UndoManager {
        /// Whether there is something to undo: a group on the undo stack, or operations in the open
        /// top-level group (which ``undo()`` closes first).
        public var canUndo: Bool {
            !undoStack.isEmpty || openGroups.first.map { !$0.isEmpty } ?? false
        }

        /// Whether there is a group on the redo stack.
        ///
        /// Posts `.NSUndoManagerCheckpoint` first, as Foundation's does, so that observers can register
        /// pending operations, which would clear the redo stack.
        public var canRedo: Bool {
            post(.NSUndoManagerCheckpoint)
            return !redoStack.isEmpty
        }

        /// Closes the open top-level group if ``groupsByEvent`` is set and only one group is open, then
        /// undoes the last group (``undoNestedGroup()``).
        ///
        /// Posts `.NSUndoManagerCheckpoint` first. Ignored while undoing or redoing, and when nested
        /// groups are still open.
        public func undo() {
            guard !isUndoing && !isRedoing else { return }
            post(.NSUndoManagerCheckpoint)
            if groupsByEvent && openGroups.count == 1 { endUndoGrouping() }
            guard openGroups.isEmpty else { return }
            undoNestedGroup()
        }

        /// Performs the operations of the last group, last registered first: the top of the undo stack,
        /// or, while a group is open, the nested group closed last inside it. What they register goes to
        /// the redo stack as one group, named as the undone group.
        ///
        /// Posts `.NSUndoManagerCheckpoint` and `.NSUndoManagerWillUndoChange` before, and
        /// `.NSUndoManagerDidUndoChange` after the operations; the group collecting the redo operations
        /// opens and closes with its own notifications in between. Ignored while undoing or redoing, and
        /// when there is no such group.
        public func undoNestedGroup() {
            guard !isUndoing && !isRedoing else { return }
            post(.NSUndoManagerCheckpoint)
            guard let group = takeGroupToUndo() else { return }
            post(.NSUndoManagerWillUndoChange)
            isUndoing = true
            perform(group)
            isUndoing = false
            post(.NSUndoManagerDidUndoChange)
        }

        /// Performs the operations of the group on top of the redo stack, last registered first. What they
        /// register goes to the undo stack as one group, named as the redone group; the redo stack keeps
        /// its other groups.
        ///
        /// Posts `.NSUndoManagerCheckpoint` and `.NSUndoManagerWillRedoChange` before, and
        /// `.NSUndoManagerDidRedoChange` after the operations. Closes an open top-level group first, as
        /// ``undo()`` does. Ignored while undoing or redoing, and when nested groups are open.
        public func redo() {
            guard !isUndoing && !isRedoing else { return }
            post(.NSUndoManagerCheckpoint)
            if groupsByEvent && openGroups.count == 1 { endUndoGrouping() }
            guard openGroups.isEmpty, let group = redoStack.popLast() else { return }
            post(.NSUndoManagerWillRedoChange)
            isRedoing = true
            perform(group)
            isRedoing = false
            post(.NSUndoManagerDidRedoChange)
        }

        /// Removes and returns the group ``undoNestedGroup()`` undoes: the top of the undo stack when no
        /// group is open, else the nested group closed last in the innermost open group.
        private func takeGroupToUndo() -> UndoGroup? {
            guard !openGroups.isEmpty else { return undoStack.popLast() }
            let innermost = openGroups.count - 1
            guard case .group(let group)? = openGroups[innermost].items.last else { return nil }
            openGroups[innermost].items.removeLast()
            return group
        }

        /// Performs `group` inside a new top-level group that collects the opposite operations, with the
        /// open groups (of an undo of a nested group) set aside meanwhile.
        private func perform(_ group: UndoGroup) {
            let setAside = openGroups
            let eventGroupWasOpen = isEventGroupOpen
            openGroups = []
            beginUndoGrouping()
            openGroups[0].actionName = group.actionName
            group.perform()
            // Groups an operation opened and left open close with the collecting group.
            while !openGroups.isEmpty { endUndoGrouping() }
            openGroups = setAside
            isEventGroupOpen = eventGroupWasOpen
        }
    }
#endif
