import CryptoVault
import Writing

/// Whose a project is as the vault core keeps it, beside `sync_origins` (review 17 s12, N-s12-6).
/// A project made here from someone else's device's offer was made because that device granted this
/// vault the project's compartment (`adopt`: `vaultctl share` there); the vault core keeps that grant
/// as a shared compartment (`compartment list`: "shared by … as viewer"), named as the project's is
/// (`project <id>`, or `project <id> (synced)`), and the exchange keeps the device the project was
/// made from (`sync_project_sources`). When both name the same device, someone else's, the project
/// came from it, whatever `sync_origins` says: one byte of that table's `project_id` once made the
/// project look like the owner's own, shared on to a third device (og1.sh).
///
/// The grant alone is not enough: any paired device can send a grant of a compartment named as one
/// of the owner's projects, which would then stop the owner sharing it; its offer never made that
/// project (`sync_project_sources` names the device the project was made from, or none when made here).
enum ProjectGrants {
    /// The project a compartment named `name` is named for (`project <id>` or `project <id> (synced)`).
    static func project(named name: String) -> ProjectID? {
        let words = name.split(separator: " ", omittingEmptySubsequences: false)
        guard words.count == 2 || (words.count == 3 && words[2] == "(synced)"), words[0] == "project" else { return nil }
        return try? ProjectID(hex: String(words[1]))
    }

    /// Each project made here from the offer of a device, not one of `own`, that granted this vault
    /// the project's compartment: that device and the role its grant gave. Reads the vault core's
    /// shared compartments (their names opened) and the exchange's sources, in transactions of their
    /// own: never inside another.
    static func someoneElses(_ vault: UnlockedVault, own: Set<DeviceID>) throws -> [ProjectID: (device: DeviceID, role: ShareRole)] {
        var granted: [ProjectID: (device: DeviceID, role: ShareRole)] = [:]
        for compartment in try vault.sharedCompartments() {
            guard let share = compartment.sharing, !own.contains(share.senderDeviceID), let project = project(named: compartment.name) else { continue }
            granted[project] = (share.senderDeviceID, share.role)
        }
        guard !granted.isEmpty else { return [:] }
        return try vault.transaction { tx in
            let store = SyncExchangeStore(database: tx.database)
            return try granted.filter { try store.source(of: $0.key) == $0.value.device }
        }
    }
}
