#if !canImport(ObjectiveC)
    import Foundation

    /// The notifications ``UndoManager`` posts, named and spelled as on Apple platforms. Each is posted on
    /// `NotificationCenter.default` with the manager as the object and no user info.
    extension NSNotification.Name {
        /// Posted when a group opens or closes, before an undo or redo, and when ``UndoManager/canRedo``
        /// is read: observers register the operations of pending changes then.
        public static let NSUndoManagerCheckpoint = NSNotification.Name("NSUndoManagerCheckpointNotification")
        /// Posted just before an undo manager performs an undo.
        public static let NSUndoManagerWillUndoChange = NSNotification.Name("NSUndoManagerWillUndoChangeNotification")
        /// Posted just after an undo manager performed an undo.
        public static let NSUndoManagerDidUndoChange = NSNotification.Name("NSUndoManagerDidUndoChangeNotification")
        /// Posted just before an undo manager performs a redo.
        public static let NSUndoManagerWillRedoChange = NSNotification.Name("NSUndoManagerWillRedoChangeNotification")
        /// Posted just after an undo manager performed a redo.
        public static let NSUndoManagerDidRedoChange = NSNotification.Name("NSUndoManagerDidRedoChangeNotification")
        /// Posted when an undo manager opened a group (``UndoManager/beginUndoGrouping()``).
        public static let NSUndoManagerDidOpenUndoGroup = NSNotification.Name("NSUndoManagerDidOpenUndoGroupNotification")
        /// Posted just before an undo manager closes a group (``UndoManager/endUndoGrouping()``).
        public static let NSUndoManagerWillCloseUndoGroup = NSNotification.Name("NSUndoManagerWillCloseUndoGroupNotification")
        /// Posted just after an undo manager closed a group.
        public static let NSUndoManagerDidCloseUndoGroup = NSNotification.Name("NSUndoManagerDidCloseUndoGroupNotification")
    }
#endif
