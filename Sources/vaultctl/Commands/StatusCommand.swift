import CryptoVault
import Foundation

enum StatusCommand {
    static let command = Command("status", synopsis: "show the vault's keyslots and parameters (no unlock)", about: """
        Shows the vault's id, schema, keyslots with their KDF parameters, and how many compartments it
        holds. Needs no passphrase and reveals no secret.
        """, json: true, examples: ["vaultctl status", "vaultctl --vault ~/clinic-vault status --json"]) { arguments in
            let vault = try VaultLocation.open(arguments, upgrade: false)
            let status = try vault.status()
            let policy = try vault.kdfPolicy()
            if arguments.has("--json") {
                Output.json([
                    "vault": vault.directory, "vault_id": status.vaultID, "created_at": Output.timestamp(status.createdAt),
                    "schema_version": status.schemaVersion, "kdf_policy": kdfJSON(.passwordHash(policy)),
                    "compartments": status.compartmentCount, "privileged_compartments": status.privilegedCompartmentCount,
                    "keyslots": status.keyslots.map(slotJSON), "damaged_keyslots": status.damagedKeyslots,
                ])
                return
            }
            Output.line("Vault      \(vault.directory)")
            Output.line("Id         \(status.vaultID)")
            Output.line("Created    \(Output.timestamp(status.createdAt))")
            Output.line("Schema     \(status.schemaVersion)")
            Output.line("KDF policy \(describe(.passwordHash(policy)))")
            Output.line("Compartments \(status.compartmentCount) (\(status.privilegedCompartmentCount) privileged)")
            Output.line("Keyslots:")
            for slot in status.keyslots { Output.line("  " + slotLine(slot)) }
            for damage in status.damagedKeyslots { Output.line("  refused: \(damage)") }
        }

    static func slotLine(_ slot: Keyslot) -> String {
        var line = "\(slot.id)  \(slot.kind.rawValue.padding(toLength: 16, withPad: " ", startingAt: 0)) \(describe(slot.kdf))"
        if let threshold = slot.threshold, let count = slot.shareCount { line += "  (\(threshold) of \(count) shares)" }
        return line + "  changed \(Output.timestamp(slot.updatedAt))"
    }

    /// Parameters as a person reads them: "argon2id m=64 MiB t=3 p=4".
    static func describe(_ kdf: KeyslotKDF) -> String {
        switch kdf {
        case .hkdfSHA256: return "hkdf-sha256 (high-entropy secret)"
        case let .passwordHash(.argon2id(memoryKiB, iterations, parallelism)):
            let memory = memoryKiB % 1024 == 0 ? "\(memoryKiB / 1024) MiB" : "\(memoryKiB) KiB"
            return "argon2id m=\(memory) t=\(iterations) p=\(parallelism)"
        case let .passwordHash(.scrypt(log2N, r, p)):
            return "scrypt N=2^\(log2N) r=\(r) p=\(p)"
        }
    }

    /// KDF parameters as a JSON object with the keys in snake_case like every other key (not the
    /// stored column's text, which is JSON inside a string and spells memoryKiB).
    static func kdfJSON(_ kdf: KeyslotKDF) -> [String: Any] {
        switch kdf {
        case .hkdfSHA256: return ["algorithm": "hkdf-sha256"]
        case let .passwordHash(.argon2id(memoryKiB, iterations, parallelism)):
            return ["algorithm": "argon2id", "memory_kib": memoryKiB, "iterations": iterations, "parallelism": parallelism]
        case let .passwordHash(.scrypt(log2N, r, p)):
            return ["algorithm": "scrypt", "log2_n": log2N, "r": r, "p": p]
        }
    }

    static func slotJSON(_ slot: Keyslot) -> [String: Any] {
        var entry: [String: Any] = ["id": slot.id, "kind": slot.kind.rawValue, "kdf": kdfJSON(slot.kdf),
                                    "created_at": Output.timestamp(slot.createdAt), "updated_at": Output.timestamp(slot.updatedAt)]
        if let threshold = slot.threshold, let count = slot.shareCount {
            entry["threshold"] = threshold
            entry["shares"] = count
        }
        return entry
    }
}
