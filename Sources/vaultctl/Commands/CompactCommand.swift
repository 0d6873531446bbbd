import Appliance
import CryptoVault
import Foundation

/// `vaultctl compact` (SECURITY.md §4.9): the vault's database rewritten without its free space,
/// as `git gc` repacks a repository.
enum CompactCommand {
    static let command = Command("compact", synopsis: "rewrite the vault's database without its free space", about: """
        Rewrites the vault's database (vault.db) without the free space that removals and rows
        rewritten in place leave in its pages (SQLite's VACUUM), and says how large it was and is.
        Nothing the vault holds changes: the same records, sealed the same way, under the same ids;
        the audit log verifies as before, with one more entry, vault.compact, whose subject holds the
        sizes before and after in clear. The rewrite is one transaction: if the process is killed,
        the vault is as it was or compacted. The fresh copy is made in memory, never in a temporary
        file outside the vault's folder, so it needs free memory about the database's size (refused
        above half of this machine's memory) and free disk about twice it while it runs. Refused
        while 'vaultctl serve' serves this vault (stop it first), and no serve starts while it runs;
        other commands on the vault wait for it.
        """, options: Credentials.options, json: true, examples: ["vaultctl compact", "vaultctl compact --json"]) { arguments in
            // Before the vault is opened: a refused compaction leaves it exactly as it was.
            let lock = try MaintenanceLock.holdingTheVault(arguments, conflict: "a compaction would rewrite its database under it")
            defer { withExtendedLifetime(lock) {} }
            let unlocked = try VaultLocation.unlock(arguments)
            let compaction = try unlocked.compact()
            if arguments.has("--json") {
                Output.json(["bytes_before": compaction.bytesBefore, "bytes_after": compaction.bytesAfter, "bytes_freed": compaction.bytesFreed])
                return
            }
            Output.line("Compacted \(unlocked.vault.databasePath): \(kibibytes(compaction.bytesBefore)) before, "
                        + "\(kibibytes(compaction.bytesAfter)) now (\(kibibytes(compaction.bytesFreed)) freed).")
        }

    static func kibibytes(_ bytes: Int) -> String {
        String(format: "%.1f KiB", Double(bytes) / 1024)
    }
}
