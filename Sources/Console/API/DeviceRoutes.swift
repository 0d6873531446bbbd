import Appliance
import CryptoVault
import Foundation
import PeerChannel

/// The devices page: this device's identity, the devices paired with this vault (`vaultctl peers
/// list`), pairing a new one with a code, and forgetting one (`vaultctl peers revoke`, recorded).
struct DeviceRoutes {
    let vault: UnlockedVault
    let pairing: DevicePairing
    static let defaultPairingAddress = "0.0.0.0:7420"

    func list() throws -> [String: Any] {
        let this = try vault.vault.deviceProfile() ?? vault.deviceKeys().profile
        return ["this": Self.json(this), "paired": try vault.vault.familyPairings().map(Self.json), "pairing": pairing.json]
    }

    /// `{address?}`: where to wait for the other device (default 0.0.0.0:7420, as `pair host`).
    func startPairing(_ body: JSONBody) throws -> [String: Any] {
        let text = try body.optionalString("address") ?? Self.defaultPairingAddress
        let address: SocketAddress
        do { address = try SocketAddress(parsing: text) } catch { throw ConsoleError(.invalidBody, "not an address and port: \(text)") }
        let started = try pairing.start(vault: vault, address: address)
        var answer = pairing.json
        answer["code"] = started.code   // to this answer alone: the page keeps it in memory while it waits
        return answer
    }

    func cancelPairing() -> [String: Any] {
        pairing.cancel()
        return pairing.json
    }

    /// Forgets the paired device with this fingerprint; it can no longer connect.
    func revoke(_ fingerprint: String) throws -> [String: Any] {
        guard let paired = try vault.vault.familyPairings().first(where: { $0.peer.fingerprint == fingerprint }) else {
            throw ConsoleError(.notFound, "no paired device has that fingerprint")
        }
        return ["revoked": Self.json(try vault.revokePairing(deviceID: paired.peer.deviceID))]
    }

    static func json(_ device: DeviceProfile) -> [String: Any] {
        ["name": device.name, "fingerprint": device.fingerprint, "created_at": Timestamp.text(device.createdAt)]
    }

    static func json(_ pairing: FamilyPairing) -> [String: Any] {
        ["device": json(pairing.peer), "role": pairing.role == .host ? "hosted" : "joined", "paired_at": Timestamp.text(pairing.pairedAt)]
    }
}
