#if !canImport(ObjectiveC)
    extension UndoManager {
        /// Names the action of the group being recorded, for menu titles: the open top-level group (while
        /// undoing, the group collecting the redo operations), else the group on top of the undo stack.
        /// An empty name removes the name.
        public func setActionName(_ actionName: String) {
            if !openGroups.isEmpty {
                openGroups[0].actionName = actionName
            } else if !undoStack.isEmpty {
                undoStack[undoStack.count - 1].actionName = actionName
            }
        }

        /// The name of the action ``undo()`` would undo: that of the open top-level group if it has
        /// operations, else that of the group on top of the undo stack; empty when there is none or it has
        /// no name.
        public var undoActionName: String {
            if let open = openGroups.first, !open.isEmpty, !isUndoing, !isRedoing { return open.actionName }
            return undoStack.last?.actionName ?? ""
        }

        /// The name of the action ``redo()`` would redo; empty when there is none or it has no name.
        public var redoActionName: String {
            redoStack.last?.actionName ?? ""
        }

        /// The title of an Undo menu item: "Undo", followed by ``undoActionName`` when it is not empty.
        public var undoMenuItemTitle: String {
            undoMenuTitle(forUndoActionName: undoActionName)
        }

        /// The title of a Redo menu item: "Redo", followed by ``redoActionName`` when it is not empty.
        public var redoMenuItemTitle: String {
            redoMenuTitle(forUndoActionName: redoActionName)
        }

        /// "Undo" followed by `actionName`, or "Undo" alone for an empty name. In English only.
        public func undoMenuTitle(forUndoActionName actionName: String) -> String {
            actionName.isEmpty ? "Undo" : "Undo \(actionName)"
        }

        /// "Redo" followed by `actionName`, or "Redo" alone for an empty name. In English only.
        public func redoMenuTitle(forUndoActionName actionName: String) -> String {
            actionName.isEmpty ? "Redo" : "Redo \(actionName)"
        }
    }
#endif
