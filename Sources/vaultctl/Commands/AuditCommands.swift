import AuditChain
import CryptoVault
import Foundation
import PeerChannel
import Sync

/// vaultctl audit: the log, its verification, exports for auditors, checkpoints and proofs.
enum AuditCommands {
    static let key = Command("audit key", synopsis: "print the log's genesis public key (vkey) for auditors", about: """
        Prints the signed-note verifier key of the audit log's genesis epoch. Give it to an auditor:
        with it alone they can verify an export ('vaultctl audit verify-export FILE --key VKEY').
        """, json: true, examples: ["vaultctl audit key > genesis.vkey"]) { arguments in
            let vkey = try AuditLogReader(vault: try VaultLocation.open(arguments)).genesisKey().vkey
            if arguments.has("--json") { Output.json(["vkey": vkey]); return }
            Output.line(vkey)
        }

    static let checkpoint = Command("audit checkpoint", synopsis: "print the latest signed checkpoint", about: """
        Prints the latest signed checkpoint (a C2SP tlog-checkpoint in signed-note form).
        With --json: the note as it is (signed_note, to save and give to 'audit consistency --from'),
        and the origin, tree size and root hash (base64) read from its body.
        """, json: true, examples: ["vaultctl audit checkpoint > checkpoint-2026-12-01.txt"]) { arguments in
            guard let note = try AuditLogReader(vault: try VaultLocation.open(arguments)).latestCheckpoint() else {
                throw CommandError(message: "the audit log has no checkpoint yet", exitCode: .noInput)
            }
            guard arguments.has("--json") else { Output.raw(note); return }
            let checkpoint = try Checkpoint(parsing: try SignedNote(parsing: note).body)
            Output.json(["signed_note": note, "origin": checkpoint.origin, "tree_size": NSNumber(value: checkpoint.treeSize),
                         "root_hash": ProofCommands.b64(checkpoint.rootHash)])
        }

    static let verify = Command("audit verify", synopsis: "verify the whole audit log (no passphrase needed)", usage: "[--read-only]", about: """
        Checks every entry's encoding, number and chain link, the Merkle root of every checkpoint,
        every signature and every key transition, from the genesis key. Prints the first entry that
        fails and why. Then lists the paired devices that witnessed the log: each one's newest
        cosignature, checked again, and whether it is on the latest checkpoint. Exit 0 only when
        everything holds, 1 when something does not (a stored cosignature that does not verify too).
        Verifying reads only; afterwards the live vault records that it was verified (audit.verify).
        With --read-only nothing at all is written: use it on a copy of a vault folder. A copy taken
        while the vault was being written is reported as an inconsistent copy, not as tampering.
        """, options: [Option("--read-only", "write nothing (no audit.verify entry, no checkpoint): for a copy of a vault folder")],
        json: true, examples: ["vaultctl audit verify", "vaultctl audit verify --read-only --vault /media/usb/vault-copy --json"]) { arguments in
            let readOnly = arguments.has("--read-only")
            // A copy repair kept holds no assets/ folder (only the database): it is verified from a
            // copy in memory, as `doc show --read-only` reads it (reviewer s17, F17-14).
            let real = VaultLocation.realDirectory(arguments)
            if readOnly, DamagedStoreCopy.isKeptCopy(real) { try InMemoryMode.readKeptCopy(real) }
            let vault = readOnly ? try VaultLocation.openReadOnly(arguments) : try VaultLocation.open(arguments, upgrade: false)
            let report: AuditVerifier.Report
            let witnesses: [WitnessStatus]
            do {
                report = try AuditLogReader(vault: vault).verify()
                witnesses = try WitnessReport.statuses(of: vault)
            } catch let failure as AuditVerificationFailure {
                throw CommandError(message: "audit log verification FAILED: \(failure.reason)", exitCode: .failure)
            } catch let error as PeerChannelError where error.code == .cosignatureInvalid {
                throw CommandError(message: "audit log verification FAILED: \(error.message)", exitCode: .failure)
            }
            // Recorded after the verification, only on the live vault: a read-only copy stays as it was.
            if !readOnly { try vault.recordLocked(.auditVerify) }
            if arguments.has("--json") {
                Output.json(["verified": true, "entries": report.entryCount, "checkpoints": report.checkpointCount,
                             "epochs": report.epochCount, "unsigned_entries": report.uncheckpointedEntries,
                             "witnesses": witnesses.map { witnessJSON($0, entries: report.entryCount) }])
                return
            }
            Output.line("Audit log verified: \(report.entryCount) entries, \(report.checkpointCount) checkpoints, \(report.epochCount) key epochs.")
            if report.uncheckpointedEntries > 0 { Output.line("\(report.uncheckpointedEntries) newest entries are not yet covered by a checkpoint.") }
            if witnesses.isEmpty { Output.line("No witness has cosigned this log.") }
            for witness in witnesses { Output.line(witnessLine(witness, entries: report.entryCount)) }
        }

    /// "Witnessed by desk (3f2a09c1-...): the checkpoint of 120 entries, cosigned 2026-11-30T00:40:00Z; 2 entries since."
    static func witnessLine(_ witness: WitnessStatus, entries: Int) -> String {
        let who = "\(witness.name ?? "a device no longer paired") (\(witness.fingerprint))"
        let since = witness.coversLatestCheckpoint ? "the latest checkpoint" : "\(entries - witness.treeSize) entries since"
        return "Witnessed by \(who): the checkpoint of \(witness.treeSize) entries, cosigned \(Output.timestamp(Int64(witness.cosignedAt))); \(since)."
    }

    static func witnessJSON(_ witness: WitnessStatus, entries: Int) -> [String: Any] {
        ["name": witness.name ?? NSNull(), "fingerprint": witness.fingerprint, "tree_size": witness.treeSize,
         "cosigned_at": Output.timestamp(Int64(witness.cosignedAt)), "latest_checkpoint": witness.coversLatestCheckpoint,
         "entries_after": entries - witness.treeSize]
    }

    static let export = Command("audit export", synopsis: "write the log to one file for an auditor", usage: "-o FILE", about: """
        Writes entries (details stay sealed), checkpoints and the key chain to FILE. An auditor
        checks it with 'vaultctl audit verify-export FILE --key VKEY', needing no vault and no passphrase.
        """, options: [Option.output("the file to write (- for standard output)"), Option.force], json: true,
        examples: ["vaultctl audit export -o audit-2026-12.vaudit"]) { arguments in
            if arguments.has("--json") && arguments.value("-o") == "-" {
                throw UsageError(message: "audit export --json prints a report on standard output: write the export with -o FILE", usage: arguments.usage)
            }
            let vault = try VaultLocation.open(arguments)
            try vault.recordLocked(.auditExport)
            try vault.finishCommand()
            let output = try OutputTarget(try arguments.required("-o"), force: arguments.has("--force"))
            var count = 0
            try output.produce { output in count = try AuditLogReader(vault: vault).export(to: output.descriptor) }
            if arguments.has("--json") { Output.json(["entries": count, "file": output.name]); return }
            // Exported to standard output, the summary goes to stderr: stdout carries the export alone.
            if output.isStandardOutput { Output.note("Exported \(count) entries.") } else { Output.line("Exported \(count) entries to \(output.name).") }
        }

    static let verifyExport = Command("audit verify-export", synopsis: "verify an export with the genesis key alone", usage: "FILE --key VKEY", about: """
        Verifies an audit export without any vault or passphrase: the key chain from VKEY (as printed by
        'vaultctl audit key'), every checkpoint, every entry. Exit 0 when all holds, 1 when not.
        """, options: [Option("--key", value: "VKEY", "the log's genesis key, as 'vaultctl audit key' prints it")], positionals: 1...1, json: true, examples: ["vaultctl audit verify-export audit-2026-12.vaudit --key \"$(cat genesis.vkey)\""]) { arguments in
            let key = try NoteVerifierKey(vkey: try arguments.required("--key"))
            guard let data = FileManager.default.contents(atPath: arguments.positionals[0]) else {
                throw CommandError(message: "cannot read \(arguments.positionals[0])", exitCode: .noInput)
            }
            let report: AuditVerifier.Report
            do {
                report = try AuditVerifier(snapshot: try AuditExport.parse([UInt8](data)), genesis: key).verify()
            } catch let failure as AuditVerificationFailure {
                throw CommandError(message: "export verification FAILED: \(failure.reason)", exitCode: .failure)
            } catch let error as AuditChainError {
                throw CommandError(message: "export verification FAILED: \(error.message)", exitCode: .failure)
            }
            if arguments.has("--json") {
                Output.json(["verified": true, "entries": report.entryCount, "checkpoints": report.checkpointCount, "epochs": report.epochCount,
                             "witnesses": report.witnesses.map { ["vkey": $0.witness.vkey, "tree_size": $0.treeSize,
                                                                  "cosigned_at": Output.timestamp(Int64(clamping: $0.timestamp))] }])
                return
            }
            Output.line("Export verified: \(report.entryCount) entries, \(report.checkpointCount) checkpoints, \(report.epochCount) key epochs.")
            // The witness keys are the export's own claim: an auditor compares each vkey with the
            // witnesses they trust.
            for witness in report.witnesses {
                Output.line("Cosigned by witness \(witness.witness.vkey): the checkpoint of \(witness.treeSize) entries, at \(Output.timestamp(Int64(witness.timestamp))).")
            }
        }

    static let log = Command("audit log", synopsis: "show the audit log", about: """
        Lists entries: number, time (UTC), actor, action, compartment, subject. TIME is UTC in the
        form 2026-11-29T10:00:00Z, or Unix seconds (a decimal, '-' allowed, no leading zeros); SINCE
        and UNTIL are inclusive and SINCE may not be after UNTIL. ACTION is an action (bundle.put) or
        its first parts (bundle): 1 to 64 of a-z 0-9 . -. --details unseals each entry's details
        (names, files); those of a privileged compartment only inside a session of it (see
        --purpose), else they print as withheld. A malformed, repeated or unknown option exits 64.
        """, options: [
            Option("--since", value: "TIME", "only entries at or after TIME"),
            Option("--until", value: "TIME", "only entries at or before TIME"),
            Option("--action", value: "ACTION", "only this action (bundle.put) or the actions under it (bundle)"),
            Option("--compartment", value: "NAME", "only entries about this compartment"),
            Option("--details", "unseal each entry's details (names, files): needs the vault unlocked"),
            PrivilegedDetails.purposeOption, DaemonSocket.option,
        ] + Credentials.options, json: true, examples: [
            "vaultctl audit log --since 2026-11-29T10:00:00Z --action bundle",
            "vaultctl audit log --compartment \"Session notes\" --details --purpose \"audit request 12\" --json",
        ]) { arguments in
            // Every option is checked before the vault is unlocked: a usage error records nothing.
            let since = try arguments.value("--since").map { try parseTime($0, option: "--since", usage: arguments.usage) }
            let until = try arguments.value("--until").map { try parseTime($0, option: "--until", usage: arguments.usage) }
            if let since, let until, since > until {
                throw UsageError(message: "--since (\(since)) is after --until (\(until)): no entry can match", usage: arguments.usage)
            }
            let action = try arguments.value("--action").map { try parseAction($0, usage: arguments.usage) }
            if arguments.value("--purpose") != nil && !arguments.has("--details") {
                throw UsageError(message: "--purpose opens privileged details: it needs --details", usage: arguments.usage)
            }
            let unlocked = try VaultLocation.unlock(arguments, upgrade: false)
            let names = Dictionary(try unlocked.compartments().map { ($0.id, $0.name) }) { first, _ in first }
            let compartment = try arguments.value("--compartment").map { try unlocked.compartment(named: $0).id }
            let keys = arguments.has("--details") ? try unlocked.auditKeys() : nil
            let privileged = try keys.map { _ in try PrivilegedDetails.open(arguments, vault: unlocked, only: arguments.value("--compartment")) }
            // A failure while listing still ends the sessions (their end recorded where possible).
            defer { try? privileged?.close() }
            let entries = try AuditLogReader(vault: unlocked.vault).entries().filter { entry in
                (since.map { entry.time >= $0 } ?? true) && (until.map { entry.time <= $0 } ?? true)
                    && (action.map { entry.action == $0 || entry.action.hasPrefix($0 + ".") } ?? true)
                    && (compartment.map { entry.compartmentID == $0 } ?? true)
            }
            let rows = try entries.map { entry -> [String: Any] in
                var row: [String: Any] = ["seq": entry.seq, "time": Output.timestamp(entry.time), "actor": entry.actor, "action": entry.action,
                                          "device": entry.deviceID.hex]
                if let compartment = entry.compartmentID { row["compartment"] = names[compartment] ?? compartment.hex }
                if !entry.subjectID.isEmpty { row["subject"] = BundleCommands.hex(entry.subjectID) }
                if !entry.detailHashes.isEmpty {
                    row["detail_hashes"] = Dictionary(entry.detailHashes.map { ($0.name, BundleCommands.hex($0.hash)) }) { first, _ in first }
                }
                if keys != nil, privileged?.isWithheld(entry) == true {
                    row["details_withheld"] = true
                } else if let keys {
                    let details = try AuditLogReader.details(of: entry, vaultID: unlocked.vault.vaultID, keys: keys)
                    row["details"] = Dictionary(details.map { ($0.name, $0.value) }) { first, _ in first }
                }
                return row
            }
            try privileged?.close()
            if arguments.has("--json") { Output.json(rows); return }
            for row in rows {
                var line = "\(row["seq"]!)  \(row["time"]!)  \(row["actor"]!)  \(row["action"]!)"
                if let compartment = row["compartment"] { line += "  \(compartment)" }
                if let subject = row["subject"] { line += "  \(subject)" }
                if let details = row["details"] as? [String: String], !details.isEmpty {
                    line += "  " + details.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
                }
                if row["details_withheld"] != nil { line += "  (details withheld: privileged, no session)" }
                Output.line(line)
            }
        }

    /// Unix seconds in canonical decimal, or exactly YYYY-MM-DDTHH:MM:SSZ: one spelling per time, so
    /// a typo ("2026-11-29", "+5", "0012") is an error rather than a filter that silently matches less.
    static func parseTime(_ text: String, option: String, usage: String) throws -> Int64 {
        if let seconds = Int64(text), String(seconds) == text { return seconds }
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        guard text.utf8.count == 20, let date = formatter.date(from: text), formatter.string(from: date) == text else {
            throw UsageError(message: "\(option) '\(text)' is not a time: give Unix seconds or UTC as 2026-11-29T10:00:00Z", usage: usage)
        }
        return Int64(date.timeIntervalSince1970)
    }

    /// An action filter must be something an entry's action can be (SECURITY.md §8.2): otherwise it
    /// could match nothing, and an empty listing would look like an empty log.
    static func parseAction(_ text: String, usage: String) throws -> String {
        let allowed = Set("abcdefghijklmnopqrstuvwxyz0123456789.-".utf8)
        guard (1...64).contains(text.utf8.count), text.utf8.allSatisfy(allowed.contains), !text.hasPrefix("."), !text.hasSuffix(".") else {
            throw UsageError(message: "--action '\(text)' is not an action: 1 to 64 of a-z 0-9 . - (e.g. bundle.put, or bundle)", usage: usage)
        }
        return text
    }
}
