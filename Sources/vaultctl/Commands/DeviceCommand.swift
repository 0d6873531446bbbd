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
                report["audit_device_id"] = BundleCommands.hex(try vault.auditDeviceID())
                Output.json(report)
                return
            }
            Output.line("Device       \(identity.name)")
            Output.line("Fingerprint  \(identity.fingerprint)")
            Output.line("Audit device \(BundleCommands.hex(try vault.auditDeviceID())) (the device field of this vault's audit entries)")
            Output.line("Signing key  \(BundleCommands.hex(identity.signingPublicKey)) (Ed25519)")
            Output.line("Noise key    \(BundleCommands.hex(identity.noisePublicKey)) (X25519)")
            Output.line("Created      \(Output.timestamp(identity.createdAt))")
        }

    static func json(_ identity: DeviceProfile) -> [String: Any] {
        ["name": identity.name, "device_id": BundleCommands.hex(identity.deviceID), "fingerprint": identity.fingerprint,
         "signing_public_key": BundleCommands.hex(identity.signingPublicKey),
         "noise_public_key": BundleCommands.hex(identity.noisePublicKey), "created_at": Output.timestamp(identity.createdAt)]
    }
}
