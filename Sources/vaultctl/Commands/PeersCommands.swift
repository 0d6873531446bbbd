import CryptoVault
import Foundation

/// `peers list` and `peers revoke`: the devices this vault paired with (SECURITY.md §4.1, §9.7, §9.9).
enum PeersCommands {
    static let list = Command("peers list", synopsis: "list the devices this vault is paired with (no unlock)", about: """
        Lists paired devices: name, fingerprint, which side hosted the pairing, and when it was made.
        Needs no passphrase: pairings hold only public keys.
        """, json: true, examples: ["vaultctl peers list --json"]) { arguments in
            let vault = try VaultLocation.open(arguments)
            let pairings = try vault.familyPairings()
            let trusts = try pairings.map { try vault.trust(of: $0.peer.deviceID) }
            DamagedTrustNotice.print(vault)
            if arguments.has("--json") {
                Output.json(zip(pairings, trusts).map { json($0, trust: $1) })
                return
            }
            if pairings.isEmpty { Output.line("No paired devices; pair one with 'vaultctl pair host' or 'vaultctl pair join'.") }
            for (pairing, trust) in zip(pairings, trusts) {
                let role = pairing.role == .host ? "hosted" : "joined"
                Output.line("\(pairing.peer.name)  \(pairing.peer.fingerprint)  \(role)  \(trust?.rawValue ?? "other (not set)")  \(Output.timestamp(pairing.pairedAt))")
            }
        }

    static let revoke = Command("peers revoke", synopsis: "forget a paired device; it can no longer connect", usage: "--peer PEER", about: """
        Deletes the pairing with PEER (its name, or its fingerprint as 'vaultctl peers list' shows
        it) and records 'peer.revoke' in the audit log. From the next connection on, this vault's
        channel refuses that device's key; to trust it again, pair again. Your other own devices
        still pair it: the command names those this vault trusts as 'mine', with the command to run
        on each (--json: also_change_on). Each of them also takes the device as someone else's at
        its next sync with one of your devices that knows (recorded there as sync.device-demoted).
        """, options: Credentials.options + [PeerSelection.option("the paired device to forget: its name or fingerprint")],
        positionals: 0...1, json: true, examples: ["vaultctl peers revoke --peer 3f2a09c1-5be0d4a7-0c11e2f3-8d9a6b5c"]) { arguments in
            let unlocked = try VaultLocation.unlock(arguments)
            let pairing = try PeerSelection.pairing(try PeerSelection.named(arguments), in: unlocked.vault.familyPairings())
            let notice = try PeersDemotionNotice.of(pairing, revoking: true, in: unlocked)
            try unlocked.revokePairingPassingOnDemotion(pairing)
            if arguments.has("--json") {
                Output.json(["revoked": json(pairing), "also_change_on": notice.json])
                return
            }
            Output.line("Revoked \(pairing.peer.name)  \(pairing.peer.fingerprint); it can no longer connect to this vault.")
            notice.lines.forEach(Output.line)
        }

    /// `peers trust`: the explicit, audited change of a paired device's trust level.
    static let trust = Command("peers trust", synopsis: "say whether a paired device is yours ('mine') or someone else's ('other')",
                               usage: "--peer PEER mine|other", about: """
        Sets the trust level of a paired device and records 'peer.trust' (with the level it had) in
        the audit log. 'mine' is your own device: privileged projects may sync to it, each time an
        egress decision for destination device:ID. 'other' is someone else's: only what sharing
        allows, privileged compartments refused and the refusal logged. Setting the level a device
        already has changes and records nothing. Trust is per vault: after 'other', the command
        names your other own devices (those trusted 'mine' here), which may still send the device
        your privileged projects, with the command to run on each (--json: also_change_on). Each of
        them also takes 'other' at its next sync with one of your devices that knows (recorded there
        as sync.device-demoted); 'mine' is never passed on.
        """, options: Credentials.options + [PeerSelection.option("the paired device: its name or fingerprint")],
        positionals: 1...1, json: true, examples: ["vaultctl peers trust --peer laptop mine"]) { arguments in
            guard let level = arguments.positionals.first.flatMap(DeviceTrust.init(rawValue:)) else {
                throw UsageError(message: "say 'mine' or 'other'", usage: arguments.usage)
            }
            guard let peer = arguments.value("--peer") else { throw UsageError(message: "missing --peer", usage: arguments.usage) }
            let unlocked = try VaultLocation.unlock(arguments)
            let pairing = try PeerSelection.pairing(peer, in: unlocked.vault.familyPairings())
            let changed = try unlocked.setTrustPassingOnDemotion(level, of: pairing)
            // Demotion only: a device made 'mine' here is the owner's word on this vault alone.
            let notice = level == .other ? try PeersDemotionNotice.of(pairing, revoking: false, in: unlocked) : nil
            if arguments.has("--json") {
                Output.json(["changed": changed, "pairing": json(pairing, trust: level), "also_change_on": notice?.json ?? []])
                return
            }
            Output.line(changed ? "\(pairing.peer.name) is now \(level == .mine ? "your own device" : "someone else's device")."
                                : "\(pairing.peer.name) was already \(level.rawValue); nothing changed.")
            notice?.lines.forEach(Output.line)
        }

    static func json(_ pairing: FamilyPairing, trust: DeviceTrust? = nil) -> [String: Any] {
        ["peer": DeviceCommand.json(pairing.peer), "role": pairing.role.rawValue, "paired_at": Output.timestamp(pairing.pairedAt),
         "trust": trust?.rawValue ?? "other", "trust_set": trust != nil]
    }
}

/// Finds a paired device by the name or fingerprint a person typed.
enum PeerSelection {
    /// `--peer PEER`: how every command names a paired device.
    static func option(_ help: String) -> Option { Option("--peer", value: "PEER", help) }

    /// The device named by `--peer`, or by the one argument (the older form of `peers ping` and
    /// `peers revoke`, still accepted); one of the two, not both.
    static func named(_ arguments: ParsedArguments) throws -> String {
        switch (arguments.value("--peer"), arguments.positionals.first) {
        case let (peer?, nil), let (nil, peer?): return peer
        case (.some, .some): throw UsageError(message: "give the device once, as --peer PEER", usage: arguments.usage)
        case (nil, nil): throw UsageError(message: "missing --peer", usage: arguments.usage)
        }
    }

    /// The pairing whose fingerprint (any case, with or without hyphens) or exact name is `text`. A
    /// name that several devices share is refused, since the wrong one might be chosen.
    static func pairing(_ text: String, in pairings: [FamilyPairing]) throws -> FamilyPairing {
        let digits = text.lowercased().filter { $0 != "-" }
        if digits.count == 2 * DeviceProfile.identifierSize,
           let match = pairings.first(where: { $0.peer.deviceID.hex == digits }) {
            return match
        }
        let named = pairings.filter { $0.peer.name == text }
        if named.count > 1 {
            throw CommandError(message: "\(named.count) paired devices are named '\(text)'", exitCode: .usage,
                               hint: "name one by its fingerprint: \(named.map(\.peer.fingerprint).joined(separator: ", "))")
        }
        guard let match = named.first else {
            throw CommandError(message: "no paired device has the name or fingerprint '\(text)'", exitCode: .noInput,
                               hint: "'vaultctl peers list' shows the paired devices")
        }
        return match
    }
}
