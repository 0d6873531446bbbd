import CryptoVault
import PrivilegedSession
import Writing

/// Only a project's owner shares it (SECURITY.md §19.9, "Whose project it is"): a project someone
/// else's device shared with this vault (or with one of the owner's devices, relayed here) is never
/// given on by this vault, neither by `vaultctl share` of its compartment nor in an offer.
extension SyncControl {
    /// Returns when `compartment` is not the compartment of a project someone else shared with this
    /// vault; otherwise records `share.refused` (details: device, role, reason `notOwner`, origin:
    /// the project's owner) and throws `notOwner`, before anything is wrapped or sent.
    public static func requireOwner(of compartment: VaultCompartment, sharingWith device: DeviceID, role: ShareRole,
                                    in vault: UnlockedVault) throws {
        guard let (project, origin, granted) = try sharedProject(in: compartment, vault: vault) else { return }
        try vault.record(VaultEvent(.shareRefused, compartmentID: compartment.id, subject: project,
                                    details: [.init("device", device.hex), .init("role", role.rawValue),
                                              .init("reason", SyncExchangeErrorCode.notOwner.rawValue), .init("origin", origin.hex)]))
        // Told by the vault core's grant alone: the exchange's own record of it is lost or damaged.
        let told = granted ? """
             (the vault keeps its grant of the project's compartment and made the project from its offer, though the sync state's \
            record of where the project came from is damaged or gone: 'vaultctl repair' mends a damaged one)
            """ : ""
        throw SyncExchangeError(.notOwner, "project \(project) in '\(compartment.name)' was shared with this vault by device \(origin.fingerprint)\(told): only its owner shares it")
    }

    /// The project whose compartment `compartment` is, and the device it came from, when that
    /// device is someone else's (not this one, not trusted `mine`): as `sync_origins` says, or else
    /// as the vault core's grant of the project's compartment says (`ProjectGrants`; review 17 s12,
    /// N-s12-6: one byte of `sync_origins` once hid it), then `granted`.
    static func sharedProject(in compartment: VaultCompartment, vault: UnlockedVault) throws -> (ProjectID, DeviceID, granted: Bool)? {
        let me = try vault.deviceKeys().profile.deviceID
        let found = try vault.transaction { tx -> (ProjectID, DeviceID?)? in
            guard let project = try WritingStore(tx).projects().first(where: { $0.compartment.id == compartment.id }) else { return nil }
            return (project.id, try SyncExchangeStore(database: tx.database).origin(of: project.id)?.device)
        }
        guard let (project, origin) = found else { return nil }
        let own = Set(try vault.vault.familyPairings().map(\.peer.deviceID).filter { try vault.vault.trust(of: $0) == .mine } + [me])
        if let origin, !own.contains(origin) { return (project, origin, false) }
        return try ProjectGrants.someoneElses(vault, own: own)[project].map { (project, $0.device, true) }
    }
}
