#if !canImport(ObjectiveC)
    /// One registered undo operation: a closure and the object it is performed on.
    struct UndoAction {
        /// The target, held weakly as Foundation holds it unowned: the manager never keeps it alive, and
        /// an action whose target is gone is skipped instead of trapping.
        weak var target: AnyObject?
        /// Performs the operation on the target.
        let perform: (AnyObject) -> Void

        init<Target: AnyObject>(target: Target, handler: @escaping (Target) -> Void) {
            self.target = target
            perform = { object in
                if let target = object as? Target { handler(target) }
            }
        }
    }

    /// A group of undo operations and nested groups, undone together, last registered first.
    struct UndoGroup {
        /// An item of a group: an action, or a nested group closed inside it.
        indirect enum Item {
            case action(UndoAction)
            case group(UndoGroup)
        }

        var items: [Item] = []
        /// The name of the action the group undoes, for menu titles; empty when none was set.
        var actionName = ""

        /// Whether the group holds no action, counting those of its nested groups.
        var isEmpty: Bool {
            items.allSatisfy { item in
                if case .group(let group) = item { return group.isEmpty }
                return false
            }
        }

        /// Performs the group's actions, the last one registered first.
        func perform() {
            for item in items.reversed() {
                switch item {
                case .action(let action):
                    if let target = action.target { action.perform(target) }
                case .group(let group):
                    group.perform()
                }
            }
        }

        /// The group without the actions whose target is `target`, and without nested groups left empty.
        func removingActions(withTarget target: AnyObject) -> UndoGroup {
            var result = UndoGroup(actionName: actionName)
            for item in items {
                switch item {
                case .action(let action):
                    if action.target !== target { result.items.append(item) }
                case .group(let group):
                    let kept = group.removingActions(withTarget: target)
                    if !kept.isEmpty { result.items.append(.group(kept)) }
                }
            }
            return result
        }
    }
#endif
