import CryptoVault
import Foundation

enum UnlockCommand {
    static let command = Command("unlock", synopsis: "check that a passphrase, recovery key or shares unlock the vault", about: """
        Unlocks the vault and locks it again, exiting 0 if the credential is right and 2 if not.
        A passphrase slot with KDF parameters weaker than the vault's policy is upgraded on the way.
        """, options: Credentials.options, json: true, examples: ["vaultctl unlock --recovery-key-file /media/usb/recovery-key.txt"]) { arguments in
            let vault = try VaultLocation.open(arguments)
            // One hostile row must not lock the owner out: it is skipped here and named by the unlock.
            let before = try vault.keyslotsSkippingDamaged().slots
            let unlocked = try VaultLocation.unlock(vault, arguments)
            let after = try vault.keyslotsSkippingDamaged().slots
            let slot = after.first { $0.id == unlocked.unlockedSlotID }
            let upgraded = slot.map { current in before.first { $0.id == current.id }?.kdf != current.kdf } ?? false
            if arguments.has("--json") {
                Output.json(["unlocked": true, "keyslot": slot?.id ?? 0, "kind": slot?.kind.rawValue ?? "", "upgraded": upgraded])
                return
            }
            Output.line("Unlocked with \(slot?.kind.rawValue ?? "unknown") slot \(slot?.id ?? 0).")
            if upgraded, let slot { Output.line("Its KDF parameters were upgraded to \(slot.kdf.encoded).") }
        }
}

enum PasswdCommand {
    static let command = Command("passwd", synopsis: "change the passphrase (rewraps one keyslot, touches no data)", about: """
        Sets a new passphrase. Unlock with the current passphrase, or with the recovery key or shares
        if it is forgotten (then every passphrase slot is replaced by the new one). Only the keyslot is
        rewritten, in one transaction: if the process is killed, the old or the new passphrase works.
        A copy 'vaultctl repair' kept in VAULT/damaged/ still opens with the passphrase it had: while
        there is one, this is refused, naming it; --remove-kept-copies removes every kept copy with
        the change (recorded in the audit log).
        """, options: Credentials.options + [Option("--new-passphrase-file", value: "PATH", "read the new passphrase from PATH (- for stdin: with --passphrase-file -, the first line is the current passphrase and the second the new one)"), KeptCopies.option], json: true, examples: ["vaultctl passwd", "printf '%s\\n%s\\n' \"$OLD\" \"$NEW\" | vaultctl passwd --passphrase-file - --new-passphrase-file -"]) { arguments in
            let copies = try KeptCopies.refuseKeeping(arguments, command: "passwd", consequence: """
                each still opens with the passphrase it had when it was kept, and holds every compartment's keys
                """)
            // Two passphrases are typed here: say which one is asked first.
            let unlocked = try VaultLocation.unlock(arguments, prompt: "Current passphrase: ")
            let newPassphrase = try Credentials.newPassphrase(from: arguments, fileOption: "--new-passphrase-file")
            try unlocked.changePassphrase(to: newPassphrase)
            let gone = try KeptCopies.remove(copies, unlocked, because: "passwd")
            if arguments.has("--json") { Output.json(["changed": true, "kept_copies_removed": gone]); return }
            Output.line("Passphrase changed.")
            for copy in gone { Output.line("Removed the copy repair kept in \(copy).") }
        }
}
