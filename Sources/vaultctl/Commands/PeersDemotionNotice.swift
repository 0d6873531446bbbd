import CryptoVault
import Sync

/// What `peers trust … other` and `peers revoke` tell the owner about their other own devices
/// (review s8, F4; SECURITY.md §19.9 "Which keys verify"). Trust is per vault: demoting or
/// revoking a device here leaves every other own device that pairs it trusting it as the owner's,
/// and those keep sending it every privileged project. This vault cannot change them, and cannot
/// see their pairings; it names the devices it trusts as the owner's own (each may pair the
/// demoted one) and the exact command to run on each.
struct PeersDemotionNotice {
    struct Device {
        let pairing: FamilyPairing
        let command: String
    }

    let demoted: FamilyPairing
    let devices: [Device]

    /// The devices this vault trusts as the owner's own, other than `demoted`, each with the
    /// command (`peers trust --peer FINGERPRINT other` or `peers revoke --peer FINGERPRINT`) that
    /// makes the same change there. Read before the change: a revoke deletes the pairing.
    static func of(_ demoted: FamilyPairing, revoking: Bool, in vault: UnlockedVault) throws -> PeersDemotionNotice {
        let command = "vaultctl peers \(revoking ? "revoke" : "trust") --peer \(demoted.peer.fingerprint)\(revoking ? "" : " other")"
        let own = try vault.otherOwnDevices(besides: demoted.peer.deviceID)
        return PeersDemotionNotice(demoted: demoted, devices: own.map { Device(pairing: $0, command: command) })
    }

    /// The lines printed after the command's own; none when this vault trusts no other own device.
    var lines: [String] {
        guard !devices.isEmpty else { return [] }
        return ["This vault cannot change your other devices: each that pairs \(demoted.peer.name) still trusts it as yours "
                + "and keeps sending it your privileged projects. Make the same change on each of them now:"]
            + devices.map { "  on \($0.pairing.peer.name) (\($0.pairing.peer.fingerprint)):  \($0.command)" }
    }

    /// `--json`: `also_change_on`, one entry per own device: the device and the command to run there.
    var json: [[String: Any]] {
        devices.map { ["peer": DeviceCommand.json($0.pairing.peer), "command": $0.command] }
    }
}
