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
        guard let (project, origin) = try sharedProject(in: compartment, vault: vault) else { return }
        try vault.record(VaultEvent(.shareRefused, compartmentID: compartment.id, subject: project,
                                    details: [.init("device", device.hex), .init("role", role.rawValue),
                                              .init("reason", SyncExchangeErrorCode.notOwner.rawValue), .init("origin", origin.hex)]))
        throw SyncExchangeError(.notOwner, "project \(project) in '\(compartment.name)' was shared with this vault by device \(origin.fingerprint): only its owner shares it")
    }

    /// The project whose compartment `compartment` is, and the device it came from, when that
    /// device is someone else's (not this one, not trusted `mine`).
    static func sharedProject(in compartment: VaultCompartment, vault: UnlockedVault) throws -> (ProjectID, DeviceID)? {
        let me = try vault.deviceKeys().profile.deviceID
        let found = try vault.transaction { tx -> (ProjectID, DeviceID)? in
            guard let project = try WritingStore(tx).projects().first(where: { $0.compartment.id == compartment.id }),
                  let origin = try SyncExchangeStore(database: tx.database).origin(of: project.id) else { return nil }
            return (project.id, origin.device)
        }
        guard let found, found.1 != me, try vault.vault.trust(of: found.1) != .mine else { return nil }
        return found
    }
}
