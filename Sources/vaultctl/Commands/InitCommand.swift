import Appliance
import AuditChain
import CryptoVault
import Foundation

enum InitCommand {
    static let command = Command("init", synopsis: "create a new vault", about: """
        Creates a vault: a directory with vault.db and assets/, private to you, and this device's
        identity in it (its keys for pairing and sync; 'vaultctl device' shows it). The passphrase is
        asked twice on the terminal unless --passphrase-file is given. Refuses to touch an existing vault.
        """, options: [
            Option("--passphrase-file", value: "PATH", "read the new passphrase from the first line of PATH (- for stdin)"),
            Option("--kdf-target-ms", value: "N", "calibrate Argon2id to take about N ms on this machine"),
            Option("--kdf-memory-mib", value: "M", "Argon2id memory in MiB (default 64, at least 19)"),
            Option("--kdf-iterations", value: "T", "Argon2id passes (default 3, at least 2)"),
            Option("--kdf-parallelism", value: "P", "Argon2id lanes (default 4)"),
        ], json: true, examples: ["vaultctl init --vault ~/clinic-vault", "vaultctl init --kdf-target-ms 1000"]) { arguments in
            let directory = VaultLocation.directory(arguments)
            try Vault.refuseExisting(at: directory)
            let parameters = try kdfParameters(arguments)
            let passphrase = try Credentials.newPassphrase(from: arguments, fileOption: "--passphrase-file")
            let unlocked = try Vault.create(at: directory, passphrase: passphrase, kdf: parameters, journal: AuditLog(), modules: VaultModules.all)
            // The device identity is made with the vault (device.create), so every backup holds it and
            // needs no passphrase: a vault restored from a backup without one takes a new identity at
            // its next pairing, and refuses for good the records its own devices took under the lost
            // one (review 17 s12, N-s12-2 (b); SECURITY.md §4.7, §13.1).
            _ = try unlocked.deviceKeys()
            let vault = unlocked.vault
            try vault.finishCommand()  // the log's checkpoint covers device.create too
            if arguments.has("--json") {
                Output.json(["vault": directory, "vault_id": try vault.status().vaultID, "kdf": StatusCommand.kdfJSON(.passwordHash(parameters))])
            } else {
                Output.line("Created a vault in \(directory)")
                Output.line("  passphrase slot: \(StatusCommand.describe(.passwordHash(parameters)))")
                Output.line("Next: 'vaultctl recovery create-key' so a forgotten passphrase is not the end of your data.")
            }
        }

    /// Explicit parameters, a calibration target, or the defaults. Out-of-range values are usage errors.
    static func kdfParameters(_ arguments: ParsedArguments) throws -> KDFParameters {
        let explicit = ["--kdf-memory-mib", "--kdf-iterations", "--kdf-parallelism"].filter { arguments.value($0) != nil }
        if let target = try arguments.integer("--kdf-target-ms", in: 10...60_000) {
            guard explicit.isEmpty else {
                throw UsageError(message: "--kdf-target-ms cannot be combined with \(explicit[0])", usage: arguments.usage)
            }
            Output.note("Calibrating Argon2id to about \(target) ms on this machine...")
            return try KDFScheme.calibrateArgon2id(targetMilliseconds: target)
        }
        guard case let .argon2id(defaultMemoryKiB, defaultIterations, defaultParallelism) = KDFParameters.argon2idDefault else {
            preconditionFailure("the default KDF is Argon2id")
        }
        let memoryMiB = try arguments.integer("--kdf-memory-mib", in: 1...1_048_576) ?? defaultMemoryKiB / 1024
        let parameters = KDFParameters.argon2id(
            memoryKiB: memoryMiB * 1024,
            iterations: try arguments.integer("--kdf-iterations", in: 1...1_000) ?? defaultIterations,
            parallelism: try arguments.integer("--kdf-parallelism", in: 1...255) ?? defaultParallelism)
        do {
            try parameters.validate()
        } catch let error as CryptoVaultError {
            throw UsageError(message: error.message, usage: arguments.usage)
        }
        return parameters
    }
}
