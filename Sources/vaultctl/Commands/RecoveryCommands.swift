import CryptoVault
import Foundation

enum RecoveryCommands {
    static let createKey = Command("recovery create-key", synopsis: "create a recovery key (printed once)", about: """
        Creates a recovery key that unlocks the vault when the passphrase is lost, and prints it once
        on stdout: write it down and keep it somewhere safe. If the vault has one already, the new key
        replaces it and the old one stops working: that needs --replace (or typing YES on a terminal),
        and the audit log records recovery.replace-key.
        The key is 160 random bits in 6 groups of 6 characters; the last 4 are a checksum that
        catches a mistyped character. Unlock with it via --recovery-key-file.
        """, options: [Option("--replace", "replace the existing recovery key (the old one stops working)")] + Credentials.options,
        json: true, examples: ["vaultctl recovery create-key", "vaultctl recovery create-key --replace"]) { arguments in
            let replacing = try confirmReplacement(of: .recoveryKey, arguments: arguments)
            let unlocked = try VaultLocation.unlock(arguments)
            let recoveryKey = try unlocked.createRecoveryKey(replacing: replacing)
            if arguments.has("--json") {
                Output.json(["recovery_key": recoveryKey.displayString])
            } else {
                Output.note("Your recovery key (shown once; it replaces any earlier one):")
                Output.line(recoveryKey.displayString)
            }
        }

    static let split = Command("recovery split", synopsis: "split break-glass access into k-of-n share files", usage: "--shares N --threshold K -o DIR",
                               about: """
        Creates N recovery shares of which any K together unlock the vault (Shamir's scheme: fewer
        than K reveal nothing). Each share is written to its own file in DIR, mode 0600, to hand to a
        different person. If the vault has a split already, the new one replaces it and every old
        share stops working: that needs --replace (or typing YES on a terminal), and the audit log
        records recovery.replace-split.
        """, options: [
            Option("--shares", value: "N", "how many shares (2 to 255)"), Option("--threshold", value: "K", "how many are needed to unlock (2 to N)"),
            Option("-o", value: "DIR", "where to write share-1-of-N.txt ... (created if missing)", aliases: ["--out"]),
            Option("--replace", "replace the existing split (the old shares stop working)"),
        ] + Credentials.options, json: true, examples: [
            "vaultctl recovery split --shares 5 --threshold 3 -o /media/usb/shares",
            "vaultctl unlock --share-file a.txt --share-file b.txt --share-file c.txt",
        ]) { arguments in
            guard let shares = try arguments.integer("--shares", in: 2...255) else {
                throw UsageError(message: "missing --shares", usage: arguments.usage)
            }
            guard let threshold = try arguments.integer("--threshold", in: 2...shares) else {
                throw UsageError(message: "missing --threshold", usage: arguments.usage)
            }
            let directory = try arguments.required("-o")
            let replacing = try confirmReplacement(of: .recoveryShares, arguments: arguments)
            let unlocked = try VaultLocation.unlock(arguments)
            var written: [String] = []
            try unlocked.splitRecovery(threshold: threshold, shares: shares, replacing: replacing) { files in
                written = try writeShares(files, to: directory)
            }
            if arguments.has("--json") {
                Output.json(["threshold": threshold, "shares": written])
            } else {
                Output.line("Wrote \(shares) shares (any \(threshold) unlock the vault):")
                for path in written { Output.line("  \(path)") }
            }
        }

    /// Whether an existing recovery slot of `kind` is to be replaced: asked before the passphrase, from
    /// the locked vault's slots, so a refusal costs nothing. The library checks again in the transaction.
    static func confirmReplacement(of kind: Keyslot.Kind, arguments: ParsedArguments) throws -> Bool {
        let vault = try VaultLocation.open(arguments)
        guard let existing = try vault.keyslots().first(where: { $0.kind == kind }) else { return false }
        let created = Output.timestamp(existing.createdAt)
        let consequence = kind == .recoveryKey
            ? "this vault already has a recovery key (created \(created)); a new one replaces it and the key written down then stops working"
            : "this vault already has a recovery split (\(existing.threshold ?? 0) of \(existing.shareCount ?? 0), created \(created)); a new one replaces it and every old share stops working"
        try Confirmation.require(arguments.has("--replace"), flag: "--replace", consequence: consequence)
        return true
    }

    /// Writes every share durably, refusing to overwrite; on failure removes what it wrote.
    static func writeShares(_ files: [RecoveryShareFile], to directory: String) throws -> [String] {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        let paths = files.map { (directory as NSString).appendingPathComponent($0.fileName) }
        if let existing = paths.first(where: { FileManager.default.fileExists(atPath: $0) }) {
            throw CommandError(message: "\(existing) already exists; choose an empty --out folder", exitCode: .cannotCreate)
        }
        do {
            for (file, path) in zip(files, paths) {
                try DurableFile.write(try file.serialized(), to: path, mode: 0o600)
            }
        } catch {
            for path in paths { try? FileManager.default.removeItem(atPath: path) }
            throw error
        }
        return paths
    }
}
