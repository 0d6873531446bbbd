import CryptoVault
import Foundation

/// The options every command that unlocks the vault accepts.
enum Credentials {
    static let options: [Option] = [
        Option("--passphrase-file", value: "PATH",
               "read the passphrase from the first line of PATH (- for stdin); without a credential option it is asked on the terminal, without echo"),
        Option("--recovery-key-file", value: "PATH", "unlock with the recovery key written in PATH"),
        Option("--share-file", repeated: "PATH", "unlock with recovery shares (repeat once per share)"),
    ]

    /// The credential the command line names, or the passphrase asked on the terminal.
    static func credential(from arguments: ParsedArguments, prompt: String = "Passphrase: ") throws -> UnlockCredential {
        let shareFiles = arguments.allValues("--share-file")
        let chosen = [arguments.value("--passphrase-file") != nil, arguments.value("--recovery-key-file") != nil, !shareFiles.isEmpty]
        guard chosen.filter({ $0 }).count <= 1 else {
            throw UsageError(message: "give only one of --passphrase-file, --recovery-key-file, --share-file", usage: arguments.usage)
        }
        if let path = arguments.value("--passphrase-file") {
            return .passphrase(try SecretInput.firstLine(ofFile: path, what: "passphrase"))
        }
        if let path = arguments.value("--recovery-key-file") {
            return .recoveryKey(try RecoveryKey(parsing: try SecretInput.firstLine(ofFile: path, what: "recovery key")))
        }
        if !shareFiles.isEmpty {
            return .recoveryShares(try shareFiles.map(readShare))
        }
        return .passphrase(try SecretInput.prompt(prompt))
    }

    private static func readShare(_ path: String) throws -> RecoveryShareFile {
        let bytes = try SecretInput.wholeFile(path, what: "share", maximumSize: RecoveryShareFile.maximumSize + 1)
        do {
            return try RecoveryShareFile(parsing: bytes)
        } catch let error as CryptoVaultError {
            throw CryptoVaultError(error.code, "\(path): \(error.message)")
        }
    }

    /// A new passphrase: from `--new-passphrase-file` or asked twice on the terminal.
    static func newPassphrase(from arguments: ParsedArguments, fileOption: String) throws -> SecureBytes {
        let passphrase: SecureBytes
        if let path = arguments.value(fileOption) {
            passphrase = try SecretInput.firstLine(ofFile: path, what: "new passphrase")
        } else {
            passphrase = try SecretInput.prompt("New passphrase: ")
            // Checked before the repeat: typing a too-short passphrase twice only to be refused wastes the user's time.
            try requireLength(passphrase)
            guard try SecretInput.prompt("Repeat it: ") == passphrase else {
                throw CommandError(message: "the two passphrases differ; nothing was changed", exitCode: .usage)
            }
        }
        try requireLength(passphrase)
        return passphrase
    }

    private static func requireLength(_ passphrase: SecureBytes) throws {
        guard passphrase.count >= 8 else {
            throw CommandError(message: "a passphrase must be at least 8 bytes long", exitCode: .usage,
                               hint: "use several words; length matters more than symbols")
        }
    }
}
