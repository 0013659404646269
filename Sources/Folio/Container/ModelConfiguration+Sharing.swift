extension ModelConfiguration {
    /// Which app group's shared container holds the store, as in SwiftData.
    ///
    /// Folio has no app groups: `.automatic` and `.none` keep the store in
    /// ``ModelConfiguration/defaultDirectory``, and `.identifier(name)` puts it in a directory of that
    /// name inside it, which every program that names the same group shares (several processes may
    /// open one store).
    public struct GroupContainer: Hashable, Sendable {
        /// The group's name, for ``identifier(_:)``.
        public let identifier: String?

        /// The app's default group: the default directory.
        public static var automatic: GroupContainer { GroupContainer(identifier: nil) }
        /// No group: the default directory.
        public static var none: GroupContainer { GroupContainer(identifier: nil) }
        /// The group named `groupName`: a directory of that name in the default directory.
        public static func identifier(_ groupName: String) -> GroupContainer { GroupContainer(identifier: groupName) }
    }

    /// Which CloudKit database the store syncs with, as in SwiftData.
    ///
    /// Folio does not sync with CloudKit: every value is accepted and kept in
    /// ``ModelConfiguration/cloudKitDatabase``, and the store stays local. Share a store between
    /// machines through git instead (see `docs/git.md`). Models written CloudKit-style (every
    /// relationship optional, every attribute with a default) work unchanged.
    public struct CloudKitDatabase: Hashable, Sendable {
        /// The private database's container identifier, for ``private(_:)``.
        public let containerIdentifier: String?
        /// Whether the configuration asked for CloudKit at all (not `.none`).
        public let isEnabled: Bool

        /// The app's default CloudKit container, where SwiftData finds one.
        public static var automatic: CloudKitDatabase { CloudKitDatabase(containerIdentifier: nil, isEnabled: true) }
        /// No CloudKit.
        public static var none: CloudKitDatabase { CloudKitDatabase(containerIdentifier: nil, isEnabled: false) }
        /// The private database of the CloudKit container `name`.
        public static func `private`(_ name: String) -> CloudKitDatabase { CloudKitDatabase(containerIdentifier: name, isEnabled: true) }
    }
}
