import CryptoVault
import Sync
import Writing

/// What a vault made by `restore-backup` or `recover` waits for before it syncs as before
/// (SECURITY.md §19.10): its projects, for one sync with an own device (the backup rewound this
/// device's records; review 17 s10, N-s10-4, and s11, N-s11-1), also when the backup pairs none (one
/// paired after it is not known here, yet may hold those records), and the devices the backup trusted
/// as the owner's own, for the owner's word that each still is (the backup does not know of a
/// revoke or a demotion made since; review 17 s11, N-s11-4).
struct RestoredWaits {
    var awaiting: [ProjectID] = []
    var held: [FamilyPairing] = []
    /// The backup holds no device identity: an older vaultctl made it before the vault was first
    /// paired (`init` and `backup` make the identity now; review 17 s12, N-s12-2 (b)).
    var noIdentity = false
    /// How many of `awaiting` are privileged (released only in a session: `--purpose`).
    var privileged = 0
    /// Someone else's devices the backup shares projects with (reviewer 13, N-s13-3): one may hold
    /// this device's records of a shared project made after the backup, and the wait is lifted by
    /// an own device only. Set after the restore's transaction (`colleagues(in:besides:)`).
    var colleagues: [FamilyPairing] = []

    /// Marks both, in the transaction that records the restore; `identity` is the restored vault's
    /// device identity, read before it.
    static func mark(in tx: VaultTransaction, identity: DeviceProfile?) throws -> RestoredWaits {
        let awaiting = try RestoredOwnRecords.markAwaiting(in: tx)
        let held = try DeviceTrust.holdAfterRestore(in: tx).compactMap { try FamilyPairing.stored(deviceID: $0, in: tx.database) }
        let privileged = try WritingStore(tx, access: .vault).projects().filter { $0.isPrivileged && awaiting.contains($0.id) }.count
        return RestoredWaits(awaiting: awaiting, held: held, noIdentity: identity == nil, privileged: privileged)
    }

    /// The devices the restored vault syncs with besides the owner's own (`SyncPartners`: a project
    /// shared either way), but for those the backup trusted as the owner's (`held`, now `other`).
    static func colleagues(in vault: UnlockedVault, besides held: [FamilyPairing]) throws -> [FamilyPairing] {
        let partners = Set(try SyncPartners.all(in: vault)), ownHeld = Set(held.map(\.peer.deviceID))
        return try vault.vault.familyPairings().filter { partners.contains($0.peer.deviceID) && !ownHeld.contains($0.peer.deviceID) }
    }

    func json(vault: String) throws -> [String: Any] {
        ["awaiting": awaiting.map(\.hex), "colleagues": colleagues.map { DeviceCommand.json($0.peer) },
         "held": held.map { ["peer": DeviceCommand.json($0.peer), "confirm": Self.confirm($0, vault: vault)] }]
    }

    /// The lines after the restore's own: the held devices first, since the sync that lifts the
    /// projects' wait needs a device confirmed as the owner's.
    func say(vault: String) throws {
        if !held.isEmpty {
            Output.line("The backup trusted \(held.count) device(s) as your own: "
                        + held.map { "\($0.peer.name) (\($0.peer.fingerprint))" }.joined(separator: ", ") + ".")
            Output.line("Each is held as someone else's device until you confirm it is still yours and in your hands "
                        + "(the backup does not know of a device you revoked or demoted since):")
            held.forEach { Output.line("  " + Self.confirm($0, vault: vault)) }
            Output.line("Revoke any that is not: vaultctl peers revoke --peer FINGERPRINT --vault \(vault)")
        }
        guard !awaiting.isEmpty else { return }
        Output.line("\(awaiting.count) project(s) are view-only here until this vault has synced with one of your own devices: "
                    + "the backup rewound this device's records, and a change before would reuse their numbers, so your devices would split for good.")
        // A device paired after the backup is not known here (review 17 s11, N-s11-1's remaining case).
        if held.isEmpty {
            Output.line("This backup pairs none of your own devices. If you paired one with this device after the backup, it may hold "
                        + "this device's later records: pair it again ('vaultctl pair host' on it, 'vaultctl pair join ADDRESS --trust mine' here) "
                        + "and sync with it before you write.")
        } else {
            Output.line("The first sync with any device of yours ends the wait: sync with each of them before you write, and pair again "
                        + "one you paired with this device after the backup ('vaultctl pair join ADDRESS --trust mine'): it is not known here.")
        }
        if noIdentity {
            // Pairing again makes a new identity; the records made under the lost one name this vault's
            // audit device and are refused here (attributionMismatch; reviewer 12's rb4, rb8: no repair takes them).
            Output.line("This backup holds no device identity (an older vaultctl made it before this vault was first paired): pairing again gives this vault "
                        + "a new one, and the records a device of yours took from it after the backup, under the lost one, are refused here for good. "
                        + "If one did, copy the words it shows ('vaultctl doc show' there) into a new project: a new project syncs.")
        }
        Output.line("Sync with your own devices before you write: vaultctl sync now --peer DEVICE --vault \(vault)")
        if !colleagues.isEmpty {
            // Only an own device's pull ends the wait: a colleague holding this device's later records of
            // a shared project is not asked, and a change before would fork that project with it for good.
            Output.line("The backup shares projects with \(colleagues.count) device(s) of someone else's: "
                        + colleagues.map { "\($0.peer.name) (\($0.peer.fingerprint))" }.joined(separator: ", ") + ". "
                        + "One may hold this device's records of a shared project made after the backup: sync with each of them too "
                        + "(vaultctl sync now --peer DEVICE) before you write in a project you share, or that project splits from theirs for good.")
        }
        let noneHolds = held.isEmpty ? "If no device of yours ever synced with this one" : "If none of them is still yours"
        // One word for every project (reviewer 12, rb9: a vault on the owner's only device); a chart only in a session.
        Output.line("\(noneHolds), let every project take changes again: vaultctl repair --write-anyway-all"
                    + (privileged > 0 ? " --purpose TEXT" : "") + " --vault \(vault) (one project: --write-anyway PROJECT)")
        if privileged > 0 {
            Output.line("Privileged projects among them: \(privileged); each is released in a one-command session, recorded with --purpose (name no patient in it).")
        }
    }

    static func confirm(_ pairing: FamilyPairing, vault: String) -> String {
        "vaultctl peers trust --peer \(pairing.peer.fingerprint) mine --vault \(vault)"
    }
}
