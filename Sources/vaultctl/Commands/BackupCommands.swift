import Appliance
import AuditChain
import CryptoVault
import Foundation
import Sync
import Writing
#if canImport(Glibc)
import Glibc
#endif

/// `backup`, `backup verify` and `restore-backup`: one consistent file of the whole vault (SECURITY.md §13).
enum BackupCommands {
    static let backup = Command("backup", synopsis: "write a consistent backup of the whole vault to one file", usage: "-o FILE [--force]", about: """
        Writes one consistent snapshot of the vault (its database, taken with SQLite's online backup
        API, and every bundle file it lists, as stored ciphertext) to FILE. It can run while the
        daemon or other commands write: the snapshot is one moment of the vault. The database is
        encrypted to the vault's backup key, so no passphrase is needed, none is in the file, and
        only the audit log's public part and the keyslots travel in the clear. (A vault made before
        encrypted backups asks for its passphrase once, to make its backup key; so does one made
        before 'init' made the device identity and never paired, to make that identity, without
        which a restored vault would be a new device to your others.) Copying the vault folder
        while it is in use is not a backup.
        """, options: [Option.output("where to write the backup (appears only complete)"), Option.force] + Credentials.options, json: true, examples: [
            "vaultctl backup -o /media/usb/vault-2026-12-01.vaultbackup",
            "vaultctl backup verify /media/usb/vault-2026-12-01.vaultbackup",
        ]) { arguments in
            guard let path = arguments.value("-o") else {
                throw UsageError(message: "missing -o FILE", usage: arguments.usage)
            }
            try InMemoryMode.refuse("a backup", arguments)
            let vault = try VaultLocation.open(arguments)
            try makeWhatTheBackupNeeds(vault, arguments)
            let output = try OutputTarget(path, force: arguments.has("--force"))
            var summary: BackupSummary?
            try output.produce { output in summary = try BackupWriter.write(vault, to: output.descriptor) }
            guard let summary else { return }
            if arguments.has("--json") {
                Output.json(["file": output.name, "bytes": summary.fileBytes, "bundles": summary.bundles.count]); return
            }
            Output.line("Backed up the vault (\(summary.bundles.count) bundle(s), \(summary.fileBytes) bytes) to \(output.name).")
        }

    static let verify = Command("backup verify", synopsis: "check a backup file, with or without the passphrase", usage: "FILE [--passphrase-file PATH | --recovery-key-file PATH | --share-file PATH ...]", about: """
        Checks FILE completely without any key: its structure, every record's length and SHA-256,
        the trailer over the whole file, the database's soundness, that it lists exactly the bundles
        carried at their recorded lengths, and the audit log with every checkpoint and signature.
        With a credential it also unlocks the backup's copy and opens every bundle under its
        compartment key (header and every chunk). Nothing is written anywhere but a private scratch
        folder, removed afterwards. Exit 0 when all holds, 65 when the backup is refused, 1 when its
        audit log fails, 2 when the credential does not unlock it.
        """, options: Credentials.options, positionals: 1...1, json: true, examples: [
            "vaultctl backup verify /media/usb/vault-2026-12-01.vaultbackup",
            "vaultctl backup verify /media/usb/vault-2026-12-01.vaultbackup --passphrase-file -",
        ]) { arguments in
            let withKeys = hasCredential(arguments)
            let scratch = try BackupCheck.scratchDirectory(near: arguments.positionals[0])
            defer { try? FileManager.default.removeItem(atPath: scratch) }
            // Read once: a passphrase on standard input cannot be read twice.
            let credential = withKeys ? try Credentials.credential(from: arguments) : nil
            let checked = try checkedExtract(arguments.positionals[0], into: scratch, durable: false, credential: credential)
            var opened = 0
            if let credential {
                let unlocked = try Vault.open(at: scratch, journal: AuditLog(), modules: VaultModules.all).unlock(with: credential)
                _ = try unlocked.compartments()
                let failing = try unlocked.storedBundlesNeedingRestore()
                if let first = failing.first {
                    throw CommandError(message: "the backup is refused: bundle \(first.bundle.idString) does not open: \(first.reason.message)",
                                       exitCode: .dataError)
                }
                opened = try unlocked.storedBundles().count
            }
            let summary = checked.summary, report = checked.report
            if arguments.has("--json") {
                Output.json(["verified": true, "version": Int(summary.version), "bundles": summary.bundles.count, "entries": report.entryCount,
                             "checkpoints": report.checkpointCount, "keys_checked": withKeys, "bundles_opened": opened])
                return
            }
            Output.line("Backup verified: \(summary.bundles.count) bundle(s), audit log of \(report.entryCount) entries and \(report.checkpointCount) checkpoints.")
            if withKeys {
                Output.line("Every bundle (\(opened)) opens under its compartment key\(summary.version >= 2 ? "; the database opens and agrees with the audit log carried in the clear" : "").")
            } else {
                Output.line("Keys not checked: add --passphrase-file PATH to open \(summary.version >= 2 ? "the sealed database and " : "")every bundle.")
            }
        }

    static let restore = Command("restore-backup", synopsis: "restore a backup file into a new vault folder", usage: "FILE --into DIR", about: """
        Checks FILE as 'backup verify' does, then writes it into DIR (which must not hold a vault; a
        missing or empty folder is fine) durably: the files are written and synced in a private
        folder beside DIR, which takes DIR's name only when complete, so an interrupted restore
        leaves no half vault. A backup's database is sealed to the vault's backup key, so the
        passphrase (or recovery key, or shares) is asked; a version 1 backup needs none. A backup
        made by an older vaultctl is upgraded in the restored copy, as any vault is by a write
        command (vault.upgrade). The restored vault's audit log records vault.restore-backup.
        Every project is view-only in the restored vault until it has synced with each device that
        may hold this device's records of it: each of your own devices (pair again one you paired
        after the backup), and someone else's device a project is shared with or from ('vaultctl
        sync now --peer DEVICE'; the daemon syncs with someone else's device only when it sees it
        on this network, so sync with it yourself; 'vaultctl sync status' names the devices each project
        still waits for): the backup rewound this device's records, and a change before would
        reuse their numbers (SECURITY.md §19.10). A device revoked, or no longer sharing the
        project, is no longer waited for. When none of them holds this device's records,
        'vaultctl repair --write-anyway PROJECT' lets a project take changes again.
        """, options: [Option("--into", value: "DIR", "the new vault folder")] + Credentials.options, positionals: 1...1, json: true, examples: [
            "vaultctl restore-backup /media/usb/vault-2026-12-01.vaultbackup --into ~/clinic-vault",
            "vaultctl restore-backup vault.vaultbackup --into ~/clinic-vault --recovery-key-file key.txt",
        ]) { arguments in
            let target = try arguments.required("--into")
            try requireNewFolder(target)
            var waits = RestoredWaits()
            let summary = try restore(arguments.positionals[0], into: target, credential: { try Credentials.credential(from: arguments) }) {
                waits = try recordRestore(in: $0, credential: $1)
            }
            if arguments.has("--json") {
                Output.json(["vault": target, "bundles": summary.bundles.count].merging(try waits.json(vault: target)) { $1 }); return
            }
            Output.line("Restored the vault (\(summary.bundles.count) bundle(s)) into \(target).")
            try waits.say(vault: target)
        }

    /// What a backup must hold that an older vault may lack, made before the snapshot (each recorded
    /// in its own audited transaction): the backup key (a vault made before encrypted backups;
    /// `backup.key-create`), and the device identity (a vault made before `init` made it, never
    /// paired; `device.create`). Without the identity, a vault restored from the backup takes a new
    /// one at its next pairing and refuses for good the records its own devices took under this one
    /// (review 17 s12, N-s12-2 (b)). In the daemon (§10.8), its unlocked vault makes them: no
    /// passphrase is asked; otherwise the vault is unlocked once, as any command that writes it.
    /// When only the identity is missing and no one can be asked (no credential given, no terminal:
    /// a scheduled backup), the backup is written as before, with a warning that says how to make
    /// the identity once (reviewer 13, LOW on 60462bc: such a backup must not start failing).
    static func makeWhatTheBackupNeeds(_ vault: Vault, _ arguments: ParsedArguments) throws {
        let needsKey = try vault.backupPublicKey() == nil
        guard try needsKey || vault.deviceProfile() == nil else { return }
        let unlocked: UnlockedVault
        do {
            unlocked = try CommandHost.vault(for: arguments) ?? VaultLocation.unlock(vault, arguments)
        } catch let error as CommandError where error.exitCode == .usage && !needsKey && !hasCredential(arguments) {
            Output.note("vaultctl: warning: this vault has no device identity yet (an older vaultctl made it, and it was never paired), "
                        + "and there is no terminal to ask for the passphrase to make one: a vault restored from this backup would be a new "
                        + "device to your other devices, which would keep its records apart for good. Run 'vaultctl device' once "
                        + "(it asks for the passphrase), or back up once with --passphrase-file.")
            return
        }
        try unlocked.ensureBackupKey()
        _ = try unlocked.deviceKeys()
    }

    /// Refuses a DIR that holds a vault or anything else: a restore never overwrites.
    static func requireNewFolder(_ target: String) throws {
        if FileManager.default.fileExists(atPath: (target as NSString).appendingPathComponent(Vault.databaseName)) {
            throw CommandError(message: "\(target) already holds a vault; refusing to overwrite it", exitCode: .cannotCreate)
        }
        let contents = (try? FileManager.default.contentsOfDirectory(atPath: target)) ?? []
        guard contents.isEmpty else { throw CommandError(message: "\(target) is not empty; restore into a new folder", exitCode: .cannotCreate) }
    }

    /// Checks the backup at `path` and writes it durably into a private staging folder beside
    /// `target`; `finishing` records in the staged vault (given the credential, if one was asked)
    /// and closes it; only then does the staging folder take `target`'s name (§13.3). Shared by
    /// restore-backup and recover.
    static func restore(_ path: String, into target: String, credential: () throws -> UnlockCredential?,
                        finishing: (String, UnlockCredential?) throws -> Void) throws -> BackupSummary {
        let (parent, name) = try splitTarget(target)
        let staging = (parent as NSString).appendingPathComponent(".restoring-\(getpid())-\(name)")
        try? FileManager.default.removeItem(atPath: staging)
        removeAbandonedStaging(in: parent, for: name)
        guard mkdir(staging, 0o700) == 0 else { throw CommandError(message: "cannot create \(staging): \(String(cString: strerror(errno)))", exitCode: .ioError) }
        do {
            var given: UnlockCredential?  // asked once: a passphrase on standard input cannot be read twice
            let summary = try checkedExtract(path, into: staging, durable: true, credential: { given = try credential(); return given }).summary
            try finishing(staging, given)
            if FileManager.default.fileExists(atPath: target) { rmdir(target) }
            guard rename(staging, target) == 0 else {
                throw CommandError(message: "cannot move the restored vault to \(target): \(String(cString: strerror(errno)))", exitCode: .cannotCreate)
            }
            try DurableFile.syncDirectory(parent)
            return summary
        } catch {
            try? FileManager.default.removeItem(atPath: staging)
            throw error
        }
    }

    /// DIR's parent folder and its own name, split by hand: Foundation's deletingLastPathComponent
    /// traps on a one-component relative path ("restored") in this toolchain.
    static func splitTarget(_ target: String) throws -> (parent: String, name: String) {
        var path = Substring(target)
        while path.count > 1, path.hasSuffix("/") { path = path.dropLast() }
        guard let slash = path.lastIndex(of: "/") else { return (".", String(path)) }
        let name = String(path[path.index(after: slash)...])
        guard !name.isEmpty, name != ".", name != ".." else {
            throw CommandError(message: "\(target) does not name a new folder", exitCode: .usage)
        }
        return (slash == path.startIndex ? "/" : String(path[..<slash]), name)
    }

    /// Records vault.restore-backup and its checkpoint in the staged vault, then closes it (SQLite
    /// folds the write-ahead log back into vault.db on the last close): the rename that follows
    /// publishes a vault at rest, and nothing writes to DIR after it, so a kill leaves DIR absent or whole.
    /// With the credential (a version 2 backup's), in the same transaction every project waits for
    /// one sync with an own device and every own device for the owner's word (`RestoredWaits`).
    static func recordRestore(in staging: String, credential: UnlockCredential?) throws -> RestoredWaits {
        var waits = RestoredWaits()
        do {
            let staged = try Vault.open(at: staging, journal: AuditLog(), modules: VaultModules.all)
            if let credential {
                let identity = try staged.deviceProfile()
                let unlocked = try staged.unlock(with: credential)
                waits = try unlocked.transaction { tx in
                    try tx.record(.vaultRestoreBackup)
                    return try RestoredWaits.mark(in: tx, identity: identity)
                }
                waits.colleagues = try RestoredWaits.colleagues(in: unlocked)
            } else {
                try staged.recordLocked(.vaultRestoreBackup)
            }
            try staged.finishCommand()
        }
        try DurableFile.syncDirectory(staging)
        return waits
    }

    /// Staging folders of restores into the same name whose process is gone (killed mid-restore):
    /// they hold a decrypted database, so they go, as abandoned backup snapshots do.
    static func removeAbandonedStaging(in parent: String, for name: String) {
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: parent)) ?? [] where entry.hasPrefix(".restoring-") {
            let rest = entry.dropFirst(".restoring-".count)
            guard let dash = rest.firstIndex(of: "-"), rest[rest.index(after: dash)...] == Substring(name),
                  let pid = Int32(rest[..<dash]), ProcessLiveness.isGone(pid) else { continue }
            try? FileManager.default.removeItem(atPath: (parent as NSString).appendingPathComponent(entry))
        }
    }

    static func hasCredential(_ arguments: ParsedArguments) -> Bool {
        arguments.value("--passphrase-file") != nil || arguments.value("--recovery-key-file") != nil || !arguments.allValues("--share-file").isEmpty
    }

    static func checkedExtract(_ path: String, into directory: String, durable: Bool,
                               credential: UnlockCredential?) throws -> (summary: BackupSummary, report: AuditVerifier.Report) {
        try checkedExtract(path, into: directory, durable: durable, credential: { credential })
    }

    /// Extracts and checks: the container, then (version 1) the database, its bundle list and audit
    /// log; (version 2) the public record and its audit log with no key, then with the credential
    /// (asked only for a version 2 file) the sealed database, opened into `vault.db`, checked as
    /// version 1's is and against the public record. The public record and the sealed database are
    /// removed from `directory` afterwards, so it is a plain vault folder.
    static func checkedExtract(_ path: String, into directory: String, durable: Bool,
                               credential: () throws -> UnlockCredential?) throws -> (summary: BackupSummary, report: AuditVerifier.Report) {
        let summary = try BackupReader.extract(path, into: directory, durable: durable)
        guard summary.version >= 2 else {
            try upgradeIfOlder(directory, checkingFirst: { _ in })
            let vault = try BackupCheck.checkContents(of: directory, summary: summary, modules: VaultModules.all)
            return (summary, try auditReport { try AuditLogReader(vault: vault).verify() })
        }
        let publicPath = (directory as NSString).appendingPathComponent(BackupFormat.publicRecordName)
        let sealedPath = (directory as NSString).appendingPathComponent(BackupFormat.sealedDatabaseName)
        defer { unlink(publicPath); unlink(sealedPath) }
        let record = try BackupPublicRecord.open(publicPath, vaultID: summary.vaultID)
        let report = try auditReport {
            let snapshot = try AuditSnapshot.load(from: record, vaultID: summary.vaultID)
            guard let genesis = snapshot.keys.first(where: { $0.epoch == 0 })?.publicKey else {
                throw AuditVerificationFailure(entry: nil, reason: "the log has no genesis key")
            }
            let key = try NoteVerifierKey(name: Checkpointer.origin(vaultID: summary.vaultID), publicKey: genesis)
            return try AuditVerifier(snapshot: snapshot, genesis: key).verify()
        }
        guard let credential = try credential() else { return (summary, report) }
        let backupKey = try BackupPublicRecord.backupKey(from: record, credential: credential, vaultID: summary.vaultID)
        try SealedDatabase.open(sealedPath, into: (directory as NSString).appendingPathComponent(Vault.databaseName),
                                with: backupKey, vaultID: summary.vaultID, durable: durable)
        let upgraded = try upgradeIfOlder(directory) { try BackupPublicRecord.checkAgreement(record, with: $0) }
        let vault = try BackupCheck.checkContents(of: directory, summary: summary, modules: VaultModules.all)
        if !upgraded { try BackupPublicRecord.checkAgreement(record, with: vault) }
        return (summary, report)
    }

    /// A backup made by an older vaultctl holds a database of an older schema, which the checks
    /// cannot read: they open it read-only, and a read-only open refuses an older schema rather than
    /// change it. So the extracted copy (the restore's staging folder, or verify's private scratch
    /// folder; never the backup file nor any live vault) is upgraded first, through the same
    /// migrations and with the same `vault.upgrade` entry as any vault opened by a write command;
    /// the checks then read the upgraded copy. `check` runs before, on the database as the backup
    /// carried it (a version 2 backup's agreement with its public record, which the upgrade's new
    /// entries would break). Returns whether it upgraded; a current or unreadable database is left
    /// to the checks, which say what is wrong with it.
    @discardableResult
    static func upgradeIfOlder(_ directory: String, checkingFirst check: (Database) throws -> Void) throws -> Bool {
        guard isOlderSchema(directory) else { return false }
        do {
            let database = try Database(path: (directory as NSString).appendingPathComponent(Vault.databaseName), create: false, readOnly: true)
            try check(database)
        }
        let copy = try Vault.open(at: directory, journal: AuditLog(), modules: VaultModules.all)
        try copy.finishCommand()
        return true
    }

    private static func isOlderSchema(_ directory: String) -> Bool {
        do {
            _ = try Vault.openReadOnly(at: directory, modules: VaultModules.all)
            return false
        } catch {
            return (error as? CryptoVaultError)?.code == .olderSchema
        }
    }

    private static func auditReport(_ verify: () throws -> AuditVerifier.Report) throws -> AuditVerifier.Report {
        do {
            return try verify()
        } catch let failure as AuditVerificationFailure {
            throw CommandError(message: "the backup's audit log FAILED verification: \(failure.reason)", exitCode: .failure)
        }
    }
}
