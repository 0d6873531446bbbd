import CryptoVault
import Writing

/// The paired devices this vault syncs with by itself (the daemon's background sync, §19.9): the
/// owner's own devices (trusted `mine`), and someone else's device while a project is shared between
/// the two, either way (the issue: "background sync starts when a paired device is seen"; a shared
/// project "syncs the same way"). Someone else's device that shares nothing is never asked: its
/// exchange could carry nothing, and each would be an audit entry on both sides.
public enum SyncPartners {
    /// Every such device, in id order.
    public static func all(in vault: UnlockedVault) throws -> [DeviceID] {
        try vault.vault.familyPairings().map(\.peer.deviceID).filter { try isPartner($0, in: vault) }
            .sorted { $0.bytes.lexicographicallyPrecedes($1.bytes) }
    }

    /// Whether `device` is paired with this vault and either one of the owner's own devices or shares
    /// a project with it: a share granted here and not revoked, or a project it shared with this vault
    /// that it has not stopped sharing (its last answer did not say `notShared`).
    public static func isPartner(_ device: DeviceID, in vault: UnlockedVault) throws -> Bool {
        guard try vault.vault.familyPairings().contains(where: { $0.peer.deviceID == device }) else { return false }
        if try vault.vault.trust(of: device) == .mine { return true }
        return try vault.transaction { tx in try sharesAProject(with: device, in: tx.database) }
    }

    static func sharesAProject(with device: DeviceID, in database: Database) throws -> Bool {
        let store = SyncExchangeStore(database: database)
        if try store.hasShare(with: device) { return true }
        let notShared = "\(SyncExchangeErrorCode.notShared.rawValue):"
        return try store.projectsShared(by: device).contains { try store.skipReason(of: $0, by: device)?.hasPrefix(notShared) != true }
    }
}
