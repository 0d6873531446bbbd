import CryptoVault
import Writing

/// Whose a project is when someone else's device shared it with this vault (review 17 s8, F17):
/// shown beside the project's name (`vaultctl project list/show`, the console), since such a
/// project takes, and may change to, any name its owner gives it, the name of one of this owner's
/// privileged charts included. Nil for the owner's own projects, whichever own device made them.
public struct SharedProjectOrigin: Sendable, Equatable {
    public let device: DeviceID
    /// The name the device was paired under, or its id when it is not paired with this vault
    /// (a project relayed by an own device).
    public let name: String
    /// "editor" or "viewer": the role its owner gave this vault.
    public let role: String

    /// The origin of every project here that someone else shared with this vault.
    public static func all(in vault: UnlockedVault) throws -> [ProjectID: SharedProjectOrigin] {
        let me = try vault.deviceKeys().profile.deviceID
        let pairings = try vault.vault.familyPairings()
        let own = Set(try pairings.filter { try vault.vault.trust(of: $0.peer.deviceID) == .mine }.map(\.peer.deviceID))
        let origins = try vault.transaction { tx in try SyncExchangeStore(database: tx.database).sharedOrigins() }
        var shared: [ProjectID: SharedProjectOrigin] = [:]
        for (project, origin) in origins where origin.access != .mine && origin.device != me && !own.contains(origin.device) {
            let name = pairings.first { $0.peer.deviceID == origin.device }?.peer.name ?? "device \(origin.device.hex)"
            shared[project] = SharedProjectOrigin(device: origin.device, name: name, role: origin.access.name)
        }
        return shared
    }

    /// Whether someone else's device shared `project` with this vault (`all`'s rule: its origin is
    /// neither this device nor one trusted as the owner's own), read in the caller's transaction;
    /// false in a vault without the exchange's tables (it never took a project from a device).
    static func isSomeoneElses(_ project: ProjectID, me: DeviceID, in database: Database) throws -> Bool {
        guard try AppliedModuleMigrations.modules(in: database).contains(SyncExchangeSchema.module.module),
              let origin = try SyncExchangeStore(database: database).origin(of: project) else { return false }
        guard origin.access != .mine, origin.device != me else { return false }
        return try DeviceTrust.stored(deviceID: origin.device, in: database) != .mine
    }

    /// What people read. The name is the one the device gave itself at pairing (it could be
    /// "my desk"), so the words say whose the project is, not only the name.
    public var label: String { "someone else's project, shared by device \(name) (\(role))" }
}
