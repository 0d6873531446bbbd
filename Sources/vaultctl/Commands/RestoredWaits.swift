import CryptoVault
import Foundation
import Sync
import Writing

/// What a vault made by `restore-backup` or `recover` waits for before it syncs as before
/// (SECURITY.md §19.10): its projects, for a sync with each device that may hold this device's
/// records of them (the backup rewound them; review 17 s10, N-s10-4): each own device the backup
/// trusted (s12, N-s12-3), someone else's device a project is shared with or from (reviewer 13,
/// N-s13-3), any own device when the backup pairs none (one paired after it is not known here, yet
/// may hold those records; s11, N-s11-1); and the devices the backup trusted as the owner's own,
/// for the owner's word that each still is (the backup does not know of a revoke or a demotion made
/// since; review 17 s11, N-s11-4).
struct RestoredWaits {
    var awaiting: [ProjectID] = []
    var held: [FamilyPairing] = []
    /// The backup holds no device identity: an older vaultctl made it before the vault was first
    /// paired (`init` and `backup` make the identity now; review 17 s12, N-s12-2 (b)).
    var noIdentity = false
    /// How many of `awaiting` are privileged (released only in a session: `--purpose`).
    var privileged = 0
    /// Someone else's devices the backup shares projects with (reviewer 13, N-s13-3): one may hold
    /// this device's records of a shared project made after the backup, so the projects shared with
    /// it wait for it too. Set after the restore's transaction (`colleagues(in:)`).
    var colleagues: [FamilyPairing] = []

    /// Marks both, in the transaction that records the restore; `identity` is the restored vault's
    /// device identity, read before it. The own devices are held first: each project waits for each
    /// of them (review 17 s12, N-s12-3), and for the devices of someone else's it is shared with or
    /// from (reviewer 13, N-s13-3).
    static func mark(in tx: VaultTransaction, identity: DeviceProfile?) throws -> RestoredWaits {
        let heldDevices = try DeviceTrust.holdAfterRestore(in: tx)
        let awaiting = try RestoredOwnRecords.markAwaiting(in: tx, own: heldDevices)
        let held = try heldDevices.compactMap { try FamilyPairing.stored(deviceID: $0, in: tx.database) }
        let privileged = try WritingStore(tx, access: .vault).projects().filter { $0.isPrivileged && awaiting.contains($0.id) }.count
        return RestoredWaits(awaiting: awaiting, held: held, noIdentity: identity == nil, privileged: privileged)
    }

    /// Someone else's devices the restored projects wait for (those shared with them or from them).
    static func colleagues(in vault: UnlockedVault) throws -> [FamilyPairing] {
        let shared = Set(try RestoredOwnRecords.awaited(in: vault).values.joined().filter { $0.kind == .shared }.compactMap(\.device))
        return try vault.vault.familyPairings().filter { shared.contains($0.peer.deviceID) }
    }

    func json(vault: String) throws -> [String: Any] {
        ["awaiting": awaiting.map(\.hex), "colleagues": colleagues.map { DeviceCommand.json($0.peer) },
         "held": held.map { ["peer": DeviceCommand.json($0.peer), "confirm": Self.confirm($0, vault: vault)] }]
    }

    // MARK: The devices a project still waits for

    /// Each device `awaited` names, as `sync status` and a refused change say it: its name and
    /// fingerprint, whose it is, and what to do to sync with it.
    /// (The console's refusal says them alike: `RestoredOwnRecords.describe`.)
    static func describe(_ awaited: [RestoredOwnRecords.Awaited], in vault: UnlockedVault) throws -> [String] {
        try RestoredOwnRecords.describe(awaited, in: vault)
    }

    static func json(_ awaited: [RestoredOwnRecords.Awaited], in vault: UnlockedVault) throws -> [[String: Any]] {
        let pairings = Dictionary(try vault.vault.familyPairings().map { ($0.peer.deviceID, $0.peer) }, uniquingKeysWith: { first, _ in first })
        return awaited.map { item in
            var entry: [String: Any] = ["kind": item.kind?.rawValue ?? "damaged", "device": item.device?.hex ?? NSNull()]
            if let peer = item.device.flatMap({ pairings[$0] }) { entry["peer"] = DeviceCommand.json(peer) }
            return entry
        }
    }

    /// A change refused because `project` waits after a restore: which devices it still waits for
    /// and the ways out, exit 77; nil when it does not wait so (a viewer's project, a repair's
    /// wait). When every device it waited for was revoked or stopped sharing it, the wait ends now
    /// and the command is to be run again.
    static func refusal(of project: WritingProject, in vault: UnlockedVault) throws -> CommandError? {
        // A damaged floor row says its own reason elsewhere (sync status): the refusal is the plain one.
        guard let awaited = (try? RestoredOwnRecords.awaited(project.id, in: vault)) ?? nil else { return nil }
        let name = "\(WritingContext.term(.project, project.register)) \(project.id)"
        guard !awaited.isEmpty else {
            try vault.transaction { tx in _ = try RestoredOwnRecords.settle(in: tx) }
            return CommandError(message: "\(name) waited for devices that are all revoked or no longer share it: it takes changes again now; nothing was changed",
                                exitCode: .permissionDenied, hint: "run the command again")
        }
        return CommandError(message: "\(name) is view-only until this device's own records of it made after the backup it was restored from "
                            + "('restore-backup' or 'recover') are back from every device that may hold them; still to sync with: "
                            + (try describe(awaited, in: vault)).joined(separator: "; ") + ". Nothing was changed",
                            exitCode: .permissionDenied,
                            hint: "'vaultctl sync now --peer DEVICE' with each; if none of them holds this device's records of it, "
                            + "'vaultctl repair --write-anyway \(project.id)' lets it take changes now")
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
        Output.line("\(awaiting.count) project(s) are view-only here until this vault has synced with each device that may hold this device's records of them "
                    + "made after the backup: the backup rewound them, and a change before would reuse their numbers, so such a device would split from this one for good.")
        // A device paired after the backup is not known here (review 17 s11, N-s11-1's remaining case).
        if held.isEmpty {
            Output.line("This backup pairs none of your own devices. If you paired one with this device after the backup, it may hold "
                        + "this device's later records: pair it again ('vaultctl pair host' on it, 'vaultctl pair join ADDRESS --trust mine' here) "
                        + "and sync with it before you write.")
        } else {
            Output.line("Every project waits for a sync with each of them (confirm it first, or revoke it), and with one you paired with this device after "
                        + "the backup once you pair it again ('vaultctl pair join ADDRESS --trust mine'): it is not known here.")
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
            // A colleague holding this device's later records of a shared project would see the next
            // one as a fork: the projects shared with it wait for it too (reviewer 13, N-s13-3). The
            // daemon's background sync reaches it only when it sees it (BackgroundSync): the owner syncs.
            Output.line("The backup shares projects with \(colleagues.count) device(s) of someone else's: "
                        + colleagues.map { "\($0.peer.name) (\($0.peer.fingerprint))" }.joined(separator: ", ") + ". "
                        + "One may hold this device's records of a shared project made after the backup: each project shared with one waits "
                        + "for a sync with it too. The daemon syncs with someone else's device only when it sees it on this network: run "
                        + "'vaultctl sync now --peer DEVICE --vault \(vault)' with each of them yourself.")
        }
        Output.line("'vaultctl sync status --vault \(vault)' names the devices each project still waits for.")
        let noneHolds = held.isEmpty && colleagues.isEmpty ? "If no device of yours ever synced with this one"
            : held.isEmpty ? "If no device of yours ever synced with this one and none of theirs holds its records" : "If none of them is still yours"
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
