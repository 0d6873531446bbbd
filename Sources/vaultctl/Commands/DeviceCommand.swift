import CryptoVault
import Foundation

enum DeviceCommand {
    static let command = Command("device", synopsis: "show this vault's device identity (made on first use)", about: """
        Shows the device identity other vaults pin when they pair with this one: its name, its id
        and the fingerprint to compare aloud, and its two public keys (Ed25519 for signing, X25519 for
        the Noise channel). The first time, the keys are made, which needs the vault unlocked; after
        that no passphrase is asked. The name is the host name when the keys are made.
        """, options: Credentials.options, json: true, examples: ["vaultctl device"]) { arguments in
            let vault = try VaultLocation.open(arguments)
            let identity = try vault.deviceProfile() ?? VaultLocation.unlock(arguments).deviceKeys().profile
            if arguments.has("--json") {
                var report = json(identity)
                report["audit_device_id"] = try vault.auditDeviceID().hex
                Output.json(report)
                return
            }
            Output.line("Device       \(identity.name)")
            Output.line("Fingerprint  \(identity.fingerprint)")
            Output.line("Audit device \(try vault.auditDeviceID().hex) (the device field of this vault's audit entries)")
            Output.line("Signing key  \(BundleCommands.hex(identity.signingPublicKey)) (Ed25519)")
            Output.line("Noise key    \(BundleCommands.hex(identity.noisePublicKey)) (X25519)")
            Output.line("Created      \(Output.timestamp(identity.createdAt))")
        }

    static func json(_ identity: DeviceProfile) -> [String: Any] {
        ["name": identity.name, "device_id": identity.deviceID.hex, "fingerprint": identity.fingerprint,
         "signing_public_key": BundleCommands.hex(identity.signingPublicKey),
         "noise_public_key": BundleCommands.hex(identity.noisePublicKey), "created_at": Output.timestamp(identity.createdAt)]
    }
}

extension DeviceCommand {
    static let rename = Command("device rename", synopsis: "rename this device, or the name kept here for a paired one", usage: "OLD NEW", about: """
        Renames the device named OLD (its name or fingerprint): this vault's own device (as
        'vaultctl device' shows it) or a paired device (as 'vaultctl peers list' shows it), so two
        machines are not both "vm". Only the name changes: the device id and the pinned keys stay, so
        no pairing breaks. A new name of your own reaches a paired device when you pair again. The
        rename is recorded in the audit log (device.rename). NEW must be a name no other device here
        has (exit 73); an OLD that names no device exits 66, one that names two exits 64.
        """, options: Credentials.options, positionals: 2...2, json: true,
        examples: ["vaultctl device rename vm desk", "vaultctl device rename 3f2a09c1-5be0d4a7-0c11e2f3-8d9a6b5c laptop"]) { arguments in
            let (old, new) = (arguments.positionals[0], arguments.positionals[1])
            let unlocked = try VaultLocation.unlock(arguments)
            let known = try ([unlocked.vault.deviceProfile()].compactMap { $0 }) + unlocked.vault.familyPairings().map(\.peer)
            let device = try named(old, in: known)
            if let taken = known.first(where: { $0.name == new && $0.deviceID != device.deviceID }) {
                throw CommandError(message: "another device here is already named '\(new)' (\(taken.fingerprint))", exitCode: .cannotCreate,
                                   hint: "choose another name, or rename that one first")
            }
            let own = try unlocked.vault.deviceProfile()?.deviceID == device.deviceID
            let before = own ? try unlocked.renameThisDevice(to: new) : try unlocked.renamePairing(deviceID: device.deviceID, to: new)
            if arguments.has("--json") {
                Output.json(["fingerprint": device.fingerprint, "old_name": before, "name": new, "this_device": own])
                return
            }
            Output.line("Renamed \(own ? "this device" : "paired device") \(device.fingerprint) from '\(before)' to '\(new)'.")
        }

    /// The one device whose fingerprint (any case, hyphens optional) or name is `text`.
    private static func named(_ text: String, in devices: [DeviceProfile]) throws -> DeviceProfile {
        let digits = text.lowercased().filter { $0 != "-" }
        if let match = devices.first(where: { $0.deviceID.hex == digits }) { return match }
        let matches = devices.filter { $0.name == text }
        if matches.count > 1 {
            throw CommandError(message: "\(matches.count) devices here are named '\(text)'", exitCode: .usage,
                               hint: "name one by its fingerprint: \(matches.map(\.fingerprint).joined(separator: ", "))")
        }
        guard let match = matches.first else {
            throw CommandError(message: "no device here has the name or fingerprint '\(text)'", exitCode: .noInput,
                               hint: "'vaultctl device' shows this device, 'vaultctl peers list' the paired ones")
        }
        return match
    }
}
