import CryptoVault
import Foundation

/// `vaultctl demo`: an end-to-end tour on a temporary vault that explains each step as it goes.
/// Later layers (bundles, audit, sessions, peers) add their steps here.
enum DemoCommand {
    static let command = Command("demo", synopsis: "a guided tour on a temporary vault", usage: """
        Usage: vaultctl demo [--keep]

        Creates a temporary vault and walks through what vaultctl does, explaining each step.
        The vault is deleted at the end unless --keep is given.
        """, options: [OptionSpec(name: "--keep", kind: .flag)]) { arguments in
            let directory = NSTemporaryDirectory() + "vaultctl-demo-\(UUID().uuidString.prefix(8))"
            defer { if !arguments.has("--keep") { try? FileManager.default.removeItem(atPath: directory) } }
            try Tour(directory: directory).run()
            Output.line(arguments.has("--keep") ? "\nThe demo vault is kept in \(directory)." : "\nThe demo vault was deleted. Tour complete.")
        }
}

private struct Tour {
    let directory: String
    let passphrase: SecureBytes
    let newPassphrase: SecureBytes

    init(directory: String) throws {
        self.directory = directory
        passphrase = try SecureBytes(copying: Array("correct horse battery staple".utf8))
        newPassphrase = try SecureBytes(copying: Array("a longer passphrase for a new year".utf8))
    }

    func step(_ title: String, _ explanation: String, command: String? = nil) {
        Output.line("\n== \(title)")
        Output.line(explanation)
        if let command { Output.line("   $ vaultctl \(command)") }
    }

    func run() throws {
        let unlocked = try createVault()
        try compartments(unlocked)
        try recovery(unlocked)
        try changePassphrase()
        try destroy()
    }

    private func createVault() throws -> UnlockedVault {
        step("1. Create a vault", """
            A vault is a directory: vault.db (SQLite) and assets/. A random 256-bit master key is
            wrapped under a key derived from your passphrase with Argon2id (64 MiB, 3 passes, 4 lanes).
            """, command: "init --vault \(directory)")
        let start = Date()
        let unlocked = try Vault.create(at: directory, passphrase: passphrase, kdf: .argon2idDefault)
        Output.line("   created in \(Int(Date().timeIntervalSince(start) * 1000)) ms")
        step("2. Look without unlocking", "status shows the keyslots and their parameters, never a secret.", command: "status")
        for slot in try unlocked.vault.status().keyslots { Output.line("   " + StatusCommand.slotLine(slot)) }
        return unlocked
    }

    private func compartments(_ unlocked: UnlockedVault) throws {
        step("3. Compartments", """
            Each compartment has its own keys, derived from the master key and a random salt per key
            version. Healthcare and legal compartments are privileged by default.
            """, command: "compartment create \"Session notes\" --register healthcare")
        let notes = try unlocked.createCompartment(named: "Session notes", register: .healthcare)
        _ = try unlocked.createCompartment(named: "Newsletter", register: .marketing)
        for compartment in try unlocked.compartments() {
            Output.line("   \(compartment.name): \(compartment.register.rawValue)\(compartment.isPrivileged ? ", privileged" : "")")
        }
        step("4. Rotate a key", "Rotation adds a version; what was sealed under v1 stays readable.",
             command: "compartment rotate \"Session notes\"")
        let version = try unlocked.rotateCompartment(named: "Session notes")
        let rotated = try unlocked.compartment(named: "Session notes")
        let distinct = try unlocked.compartmentKey(for: rotated, version: 1) != unlocked.compartmentKey(for: rotated, version: version)
        Output.line("   '\(notes.name)' now has key versions \(rotated.keyVersions.map(\.version)); v1 and v\(version) differ: \(distinct)")
    }

    private func recovery(_ unlocked: UnlockedVault) throws {
        step("5. A recovery key", "Printed once, 160 bits with a checksum that catches a typo.", command: "recovery create-key")
        let recoveryKey = try unlocked.createRecoveryKey()
        Output.line("   \(recoveryKey.displayString)   (a demo vault: a real key is never shown twice)")
        let vault = try Vault.open(at: directory)
        _ = try vault.unlock(with: .recoveryKey(try RecoveryKey(parsing: recoveryKey.displayString.lowercased())))
        Output.line("   unlocking with it (typed in lower case) works")

        step("6. Break-glass shares", "Any 2 of 3 people together can unlock; one alone learns nothing.",
             command: "recovery split --shares 3 --threshold 2 --out shares/")
        var shares: [RecoveryShareFile] = []
        try unlocked.splitRecovery(threshold: 2, shares: 3) { shares = $0 }
        do {
            _ = try vault.unlock(with: .recoveryShares([shares[0]]))
        } catch let error as CryptoVaultError {
            Output.line("   one share: refused (\(error.message))")
        }
        _ = try vault.unlock(with: .recoveryShares([shares[0], shares[2]]))
        Output.line("   shares 1 and 3: unlocked")
    }

    private func changePassphrase() throws {
        step("7. Change the passphrase", "Only the keyslot is rewritten, in one transaction; no data is touched.", command: "passwd")
        let vault = try Vault.open(at: directory)
        try vault.unlock(with: .passphrase(passphrase)).changePassphrase(to: newPassphrase)
        do {
            _ = try vault.unlock(with: .passphrase(passphrase))
        } catch let error as CryptoVaultError {
            Output.line("   the old passphrase: refused (\(error.message)), exit code 2")
        }
        _ = try vault.unlock(with: .passphrase(newPassphrase))
        Output.line("   the new passphrase: unlocked")
    }

    private func destroy() throws {
        step("8. Destroy a compartment", """
            Destroying shreds the key salts (overwritten in the database and its log), so nothing sealed
            in it can be opened again, even by someone who still has the master key.
            """, command: "compartment destroy Newsletter --yes")
        let unlocked = try Vault.open(at: directory).unlock(with: .passphrase(newPassphrase))
        let newsletter = try unlocked.compartment(named: "Newsletter")
        try unlocked.destroyCompartment(named: "Newsletter")
        do {
            _ = try unlocked.compartmentKey(for: newsletter, version: 1)
        } catch let error as CryptoVaultError {
            Output.line("   deriving its key now fails: \(error.message)")
        }
        Output.line("   remaining: \(try unlocked.compartments().map(\.name))")
    }
}
