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
        try isPartner(device, sharing: nil, in: vault)
    }

    /// The devices a local save of `compartments` should reach at once: the owner's own devices
    /// always; someone else's device only when a saved compartment is a project shared between the
    /// two (never a privileged one: it is never shared). A save elsewhere, in a privileged chart above
    /// all, must not make the daemon contact a colleague's device, whose audit log would then time
    /// the owner's private work to the second (review 17 s9, N-s9-5).
    public static func forSave(of compartments: Set<CompartmentID>, in vault: UnlockedVault) throws -> [DeviceID] {
        try vault.vault.familyPairings().map(\.peer.deviceID).filter { try isPartner($0, sharing: compartments, in: vault) }
            .sorted { $0.bytes.lexicographicallyPrecedes($1.bytes) }
    }

    /// `isPartner`, with someone else's device counted only for a project in `compartments` (nil: any).
    static func isPartner(_ device: DeviceID, sharing compartments: Set<CompartmentID>?, in vault: UnlockedVault) throws -> Bool {
        guard try vault.vault.familyPairings().contains(where: { $0.peer.deviceID == device }) else { return false }
        if try vault.vault.trust(of: device) == .mine { return true }
        let (shared, privileged) = try vault.transaction { tx in
            (try sharedCompartments(with: device, in: tx), Set(try WritingStore(tx).projects().filter(\.isPrivileged).map(\.compartment.id)))
        }
        guard let compartments else { return !shared.isEmpty }
        return !shared.subtracting(privileged).isDisjoint(with: compartments)
    }

    /// The compartments of the projects shared between this vault and `device`, either way, while shared.
    static func sharedCompartments(with device: DeviceID, in tx: VaultTransaction) throws -> Set<CompartmentID> {
        let store = SyncExchangeStore(database: tx.database)
        var shared = try store.sharedCompartments(with: device)
        let notShared = "\(SyncExchangeErrorCode.notShared.rawValue):"
        for project in try store.projectsShared(by: device) where try store.skipReason(of: project, by: device)?.hasPrefix(notShared) != true {
            if let held = try? WritingStore(tx).project(project) { shared.insert(held.compartment.id) }
        }
        return shared
    }
}
