import CryptoVault
import PrivilegedSession
import Writing

/// Whether each project of this vault syncs (SECURITY.md §19.5, §19.9), for `vaultctl sync status`:
/// its stored change records rebuild (`ready`), or they are damaged and the project works local-only
/// until `vaultctl repair --from DEVICE`, with the reason (which record, and the failure's code).
public struct SyncProjectStatus: Sendable, Equatable {
    public let project: ProjectID
    public let privileged: Bool
    public let state: SyncState
}

extension SyncStatus {
    /// Every project, oldest first, with its sync state. The state is found by rebuilding the
    /// project's replica from its stored records (each opened and its signature checked against the
    /// keys the project takes), so a privileged project's records are read inside a privileged
    /// processing session of its compartment (actor `sync`), opened for the check and ended after it,
    /// both recorded, as every read of its records is (SECURITY.md §10).
    public static func projects(_ vault: UnlockedVault, clock: VaultClock = .system) throws -> [SyncProjectStatus] {
        let keys = try vault.deviceKeys()
        let author = SyncAuthor(device: keys.profile.deviceID, key: keys.signingKey)
        let own = try ownDeviceKeys(vault)
        let projects = try vault.transaction { tx in try WritingStore(tx).projects() }
        return try projects.map { project in
            var session: PrivilegedProcessingSession?
            if project.isPrivileged {
                session = try PrivilegedProcessingSession.start(vault: vault, compartment: project.compartment, actor: "sync",
                                                                purpose: "sync status")
            }
            defer { try? session?.end() }
            let access: RecordAccess = session.map { .session($0) } ?? .vault
            let state = try vault.transaction { tx in
                var devices = try SyncExchangeStore(database: tx.database).roster(of: project.id)
                devices.merge(own) { kept, _ in kept }
                return try VaultSync(WritingStore(tx, access: access, clock: clock), author: author, devices: devices).state(of: project.id)
            }
            return SyncProjectStatus(project: project.id, privileged: project.isPrivileged, state: state)
        }
    }

    /// This device's and the owner's own devices' signing keys: whose records every project takes.
    static func ownDeviceKeys(_ vault: UnlockedVault) throws -> [DeviceID: [UInt8]] {
        let profile = try vault.deviceKeys().profile
        var keys = [profile.deviceID: profile.signingPublicKey]
        for pairing in try vault.vault.familyPairings() where try vault.vault.trust(of: pairing.peer.deviceID) == .mine {
            keys[pairing.peer.deviceID] = pairing.peer.signingPublicKey
        }
        return keys
    }
}
