import Appliance
import CryptoVault
import Foundation
import PeerChannel
import Sync

/// The devices page: this device's identity, the devices paired with this vault (`vaultctl peers
/// list`, each with its sync state), pairing a new one with a code, and forgetting one (`vaultctl
/// peers revoke`, recorded).
struct DeviceRoutes {
    let vault: UnlockedVault
    let pairing: DevicePairing
    static let defaultPairingAddress = "0.0.0.0:7420"

    func list() throws -> [String: Any] {
        let this = try vault.vault.deviceProfile() ?? vault.deviceKeys().profile
        let sync = try SyncRoutes(vault: vault).states()
        let paired = try vault.vault.familyPairings().map { pairing in
            var row = Self.json(pairing)
            // A pairing from before trust levels has none: it is treated as someone else's device.
            row["trust"] = try vault.vault.trust(of: pairing.peer.deviceID)?.rawValue ?? "unset"
            row["sync"] = sync[pairing.peer.fingerprint] ?? NSNull()
            return row
        }
        return ["this": Self.json(this), "paired": paired, "pairing": pairing.json]
    }

    /// `{trust, address?}`: whose device the other one is ("mine" or "other", chosen on the page as
    /// `pair host --trust` asks it), and where to wait for it (default 0.0.0.0:7420, as `pair host`).
    func startPairing(_ body: JSONBody) throws -> [String: Any] {
        let trust = try Self.trust(try body.string("trust"))
        let text = try body.optionalString("address") ?? Self.defaultPairingAddress
        let address: SocketAddress
        do { address = try SocketAddress(parsing: text) } catch { throw ConsoleError(.invalidBody, "not an address and port: \(text)") }
        let started = try pairing.start(vault: vault, address: address, trust: trust)
        var answer = pairing.json
        answer["code"] = started.code   // to this answer alone: the page keeps it in memory while it waits
        return answer
    }

    func cancelPairing() -> [String: Any] {
        pairing.cancel()
        return pairing.json
    }

    /// Forgets the paired device with this fingerprint; it can no longer connect. As `vaultctl peers
    /// revoke`: a signed demotion is kept for the owner's other own devices (review 17 s12, N-s12-1),
    /// and the answer names them (`also_change_on`), as they still trust it until then.
    func revoke(_ fingerprint: String) throws -> [String: Any] {
        let paired = try device(fingerprint)
        let own = try vault.otherOwnDevices(besides: paired.peer.deviceID)
        let revoked = try vault.revokePairingPassingOnDemotion(paired)
        return ["revoked": Self.json(revoked), "also_change_on": Self.alsoChangeOn(own, command: "vaultctl peers revoke --peer \(paired.peer.fingerprint)")]
    }

    /// `{trust}`: changes a paired device's trust level, explicitly and on the record (`peer.trust`).
    /// As `vaultctl peers trust`: 'other' keeps a signed demotion for the owner's other own devices,
    /// named in `also_change_on`; 'mine' lifts this vault's held demotion of it.
    func setTrust(_ fingerprint: String, _ body: JSONBody) throws -> [String: Any] {
        let trust = try Self.trust(try body.string("trust"))
        let paired = try device(fingerprint)
        let own = trust == .other ? try vault.otherOwnDevices(besides: paired.peer.deviceID) : []
        let changed = try vault.setTrustPassingOnDemotion(trust, of: paired)
        return ["device": Self.json(paired.peer), "trust": trust.rawValue, "changed": changed,
                "also_change_on": Self.alsoChangeOn(own, command: "vaultctl peers trust --peer \(paired.peer.fingerprint) other")]
    }

    /// The owner's other own devices, each with the command that makes the same change there.
    private static func alsoChangeOn(_ own: [FamilyPairing], command: String) -> [[String: Any]] {
        own.map { ["device": json($0.peer), "command": command] }
    }

    private func device(_ fingerprint: String) throws -> FamilyPairing { try Self.pairing(fingerprint, in: vault) }

    /// The pairing of the device with this fingerprint (404 if none has it), for every device route.
    static func pairing(_ fingerprint: String, in vault: UnlockedVault) throws -> FamilyPairing {
        guard let paired = try vault.vault.familyPairings().first(where: { $0.peer.fingerprint == fingerprint }) else {
            throw ConsoleError(.notFound, "no paired device has that fingerprint")
        }
        return paired
    }

    private static func trust(_ text: String) throws -> DeviceTrust {
        guard let trust = DeviceTrust(rawValue: text) else { throw ConsoleError(.invalidBody, "trust is 'mine' (your own device) or 'other' (someone else's)") }
        return trust
    }

    static func json(_ device: DeviceProfile) -> [String: Any] {
        ["name": device.name, "fingerprint": device.fingerprint, "created_at": Timestamp.text(device.createdAt)]
    }

    static func json(_ pairing: FamilyPairing) -> [String: Any] {
        ["device": json(pairing.peer), "role": pairing.role == .host ? "hosted" : "joined", "paired_at": Timestamp.text(pairing.pairedAt)]
    }
}
