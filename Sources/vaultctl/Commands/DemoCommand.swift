import Appliance
import AuditChain
import CryptoVault
import Foundation
import PrivilegedSession
import Registers
import Sync
import Writing

/// `vaultctl demo`: an end-to-end tour on a temporary vault that explains each step as it goes.
/// Later layers (bundles, audit, sessions, peers) add their steps here.
enum DemoCommand {
    static let command = Command("demo", synopsis: "a guided tour on a temporary vault", about: """
        Creates a temporary vault and walks through what vaultctl does, explaining each step.
        The vault is deleted at the end unless --keep is given.
        """, options: [Option("--keep", "keep the demo vault and say where it is")], noJSON: "it is a guided tour for people", examples: ["vaultctl demo --keep"]) { arguments in
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
        try bundles()
        try destroy()
        try soapNote()
        try audit()
    }

    private func createVault() throws -> UnlockedVault {
        step("1. Create a vault", """
            A vault is a directory: vault.db (SQLite) and assets/. A random 256-bit master key is
            wrapped under a key derived from your passphrase with Argon2id (64 MiB, 3 passes, 4 lanes).
            """, command: "init --vault \(directory)")
        let start = VaultClock.system.date()
        let unlocked = try Vault.create(at: directory, passphrase: passphrase, kdf: .argon2idDefault, journal: AuditLog(), modules: VaultModules.all)
        Output.line("   created in \(Int(VaultClock.system.date().timeIntervalSince(start) * 1000)) ms")
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
        let vault = try Vault.open(at: directory, journal: AuditLog(), modules: VaultModules.all)
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
        let vault = try Vault.open(at: directory, journal: AuditLog(), modules: VaultModules.all)
        try vault.unlock(with: .passphrase(passphrase)).changePassphrase(to: newPassphrase)
        do {
            _ = try vault.unlock(with: .passphrase(passphrase))
        } catch let error as CryptoVaultError {
            Output.line("   the old passphrase: refused (\(error.message)), exit code 2")
        }
        _ = try vault.unlock(with: .passphrase(newPassphrase))
        Output.line("   the new passphrase: unlocked")
    }

    private func bundles() throws {
        let unlocked = try Vault.open(at: directory, journal: AuditLog(), modules: VaultModules.all).unlock(with: .passphrase(newPassphrase))
        let notes = try unlocked.compartment(named: "Session notes")
        let plain = directory + "/session-2026-11-29.txt"
        try Data("Client reports improved sleep; continue CBT-I, review in two weeks.\n".utf8).write(to: URL(fileURLWithPath: plain))
        step("8. Seal a file", """
            A bundle: a header that binds vault, compartment, key version and the sealed file name, then
            64 KiB chunks sealed with ChaCha20-Poly1305 in parallel, each bound to its position.
            """, command: "put --compartment \"Session notes\" session-2026-11-29.txt")
        let stored = try PrivilegedFingerprints.put(from: try FileDescriptor.openForReading(plain), compartment: notes,
                                                    metadata: BundleMetadata(name: "session-2026-11-29.txt", contentType: "text/plain", modificationTime: 0),
                                                    in: unlocked)
        try FileManager.default.removeItem(atPath: plain)
        Output.line("   stored as bundle \(stored.idString) (\(stored.plaintextLength) bytes); the plaintext file is gone")
        let bundlePath = unlocked.vault.assetsPath + "/\(stored.idString).vbundle"
        let header = try EncryptedBundle.readHeader(try FileDescriptor.openForReading(bundlePath))
        Output.line("   anyone can read its public header: key version \(header.keyVersion), chunk size \(header.chunkSize), no file name")

        do {
            _ = try unlocked.openStored(stored.bundleID)
        } catch let error as CryptoVaultError {
            Output.line("   reading it back without a session: refused (\(error.message)), exit code 77")
        }
        // "Session notes" is privileged: from here on it is read only inside a recorded session.
        let session = try PrivilegedProcessingSession.start(vault: unlocked, compartment: notes, actor: AuditLog.currentAccount(),
                                                            purpose: "demo: read back the note just sealed")

        step("9. Tampering is caught", "Flip one bit anywhere and the bundle refuses to open, saying where.",
             command: "open tampered.vbundle --purpose \"...\"")
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: bundlePath)))
        bytes[bytes.count - 5] ^= 0x01
        let tampered = directory + "/tampered.vbundle"
        try Data(bytes).write(to: URL(fileURLWithPath: tampered))
        do {
            try session.read(.file(try FileDescriptor.openForReading(tampered))) { _ in }
        } catch let error as CryptoVaultError {
            Output.line("   refused: \(error.message)")
        }
        try session.end()

        step("10. Rotate and rewrap", """
            After a key rotation, rewrap rewrites only each bundle's header (the payload bytes do not
            change), then the old key version can be retired: shredded for good.
            """, command: "compartment rewrap \"Session notes\"")
        let payloadBefore = Array(try Data(contentsOf: URL(fileURLWithPath: bundlePath)).dropFirst(header.size))
        _ = try unlocked.rotateCompartment(named: "Session notes")
        let count = try unlocked.rewrapStored(in: try unlocked.compartment(named: "Session notes")).changed
        let rotated = try unlocked.compartment(named: "Session notes")
        let older = rotated.keyVersions.filter { $0.isActive && $0.version != rotated.currentVersion }.map(\.version)
        for version in older { try unlocked.retireCompartmentVersion(named: "Session notes", version: version) }
        let payloadAfter = Array(try Data(contentsOf: URL(fileURLWithPath: bundlePath)).dropFirst(header.size))
        var text: [UInt8] = []
        let reading = try PrivilegedProcessingSession.start(vault: unlocked, compartment: rotated, actor: AuditLog.currentAccount(),
                                                            purpose: "demo: check the note after the rewrap")
        try reading.read(.stored(stored.bundleID)) { text += $0 }
        try reading.end()
        Output.line("   rewrapped \(count) bundle(s) to v\(rotated.currentVersion ?? 0); payload unchanged: \(payloadBefore == payloadAfter); retired: \(older.map { "v\($0)" }.joined(separator: ", "))")
        Output.line("   it still opens: \"\(String(decoding: text, as: UTF8.self).trimmingCharacters(in: .newlines))\"")
    }

    private func audit() throws {
        let vault = try Vault.open(at: directory, journal: AuditLog(), modules: VaultModules.all)
        try vault.finishCommand()
        let reader = AuditLogReader(vault: vault)
        step("14. The audit log", """
            Every step above is an entry: numbered, chained to the one before, a leaf of a Merkle tree,
            with names and file names sealed. Checkpoints are signed, and the signing key moves on after
            each one, so a thief of today's key cannot rewrite yesterday.
            """, command: "audit log")
        for entry in try reader.entries().suffix(6) {
            Output.line("   \(entry.seq)  \(entry.action)\(entry.detailHashes.isEmpty ? "" : "  (details sealed: \(entry.detailHashes.map(\.name).joined(separator: ", ")))")")
        }
        step("15. An auditor checks it", "With one public key and no passphrase: every entry, checkpoint and key.",
             command: "audit export --out log.export; vaultctl audit verify-export log.export --key VKEY")
        let key = try reader.genesisKey()
        let exportPath = directory + "/log.export"
        let output = try AtomicOutputFile(path: exportPath, replacing: true)
        _ = try reader.export(to: output.descriptor)
        try output.commit()
        let report = try AuditVerifier(snapshot: try AuditExport.parse([UInt8](try Data(contentsOf: URL(fileURLWithPath: exportPath)))),
                                       genesis: key).verify()
        Output.line("   key: \(key.vkey)")
        Output.line("   verified \(report.entryCount) entries, \(report.checkpointCount) checkpoints, \(report.epochCount) key epochs")
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: exportPath)))
        // Change one base64 character inside the first entry: still well-formed text, different bytes.
        if let entryLine = bytes.indices.first(where: { bytes[$0...].starts(with: Array("entry ".utf8)) }) {
            bytes[entryLine + 16] = bytes[entryLine + 16] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        }
        do {
            _ = try AuditVerifier(snapshot: try AuditExport.parse(bytes), genesis: key).verify()
        } catch {
            Output.line("   one character changed in the export: refused (\(error))")
        }
    }

    /// A clinician's note, start to finish, in one privileged session with a purpose: written from
    /// the Healthcare SOAP template, snapshotted, a suggested change proposed as a branch, adopted
    /// and reverted, and the audit entries that record it (ids and counts, never the note's words).
    private func soapNote() throws {
        let unlocked = try Vault.open(at: directory, journal: AuditLog(), modules: VaultModules.all).unlock(with: .passphrase(newPassphrase))
        let firstEntry = try AuditLogReader(vault: unlocked.vault).entries().count
        step("12. A clinician's SOAP note", """
            A healthcare project is privileged: its notes are written and read only inside a session
            opened for a purpose, which the audit log records. The note starts from the SOAP template.
            """, command: "template use \"Intake notes\" soap-note --title \"Session 1\" --purpose \"write up the session\"")
        let project = try unlocked.createProjectMadeHere(named: "Intake notes", register: .healthcare, kind: .document)
        let session = try PrivilegedProcessingSession.start(vault: unlocked, compartment: project.compartment, actor: AuditLog.currentAccount(),
                                                            purpose: "demo: write up the session")
        let write = { (body: (WritingStore) throws -> Void) in try unlocked.transaction { tx in try body(WritingStore(tx, access: .session(session))) } }
        var note: NodeID?, snapshot: SnapshotID?, written = DocumentContent(blocks: [])
        try write { store in
            note = try store.addNode(.scene, titled: "Session 1", in: project.id).id
            written = try Self.filledSOAP()
            try store.replaceDocumentContent(of: note!, in: project.id, with: written)
            snapshot = try store.createSnapshot(of: note!, in: project.id, titled: "Signed").id
        }
        Output.line("   written from soap-note (\(written.blocks.count) blocks) and stored as version 1, \"Signed\"")

        step("13. A suggested change, adopted and reverted", """
            The assistant never touches the note: what it suggests is a branch of kind ai-suggestion
            against a version, as 'vaultctl ai run' stores it (the demo stands in for the model, so
            nothing leaves). Adopting it is a new version; reverting takes it out again, byte for
            byte. Each is an audit entry.
            """, command: "branch create \"Intake notes\" \"Session 1\" --kind ai-suggestion --by assistant; vaultctl branch adopt ... 1; vaultctl branch revert ... 1")
        try write { store in
            var proposal = written
            if let plan = proposal.blocks.indices.last { proposal.blocks[plan].text += " Add a two-week sleep diary." }
            let branch = try store.createBranch(of: note!, in: project.id, base: snapshot!, content: proposal, kind: .aiSuggestion,
                                                provenance: "coauthor-revise by the demo (no model)")
            Output.line("   suggested as a branch of kind \(branch.kind.rawValue), the note untouched")
            let adopted = try store.adopt(branch.id, of: note!, in: project.id)
            Output.line("   adopted as version \(adopted.sequence): the plan now ends \"...\(try store.documentContent(of: note!, in: project.id).blocks.last?.text.suffix(28) ?? "")\"")
            let reverted = try store.revert(branch.id, of: note!, in: project.id)
            let same = SnapshotContent.encode(try store.documentContent(of: note!, in: project.id)) == SnapshotContent.encode(written)
            Output.line("   reverted as version \(reverted.sequence): the note is as signed, byte for byte: \(same)")
            try store.endWritingSessions(in: project.id, now: true)
        }
        try session.end()
        try unlocked.vault.finishCommand()
        Output.line("   what the audit log recorded (record.seal and record.open entries left out):")
        for entry in try AuditLogReader(vault: unlocked.vault).entries().dropFirst(firstEntry)
        where !entry.action.hasPrefix("record.") && entry.action != "compartment.create" {
            Output.line("   \(entry.seq)  \(entry.action)\(entry.detailHashes.isEmpty ? "" : "  (sealed: \(entry.detailHashes.map(\.name).joined(separator: ", ")))")")
        }
    }

    /// The Healthcare SOAP template with each section's prompt replaced by what a clinician wrote.
    private static func filledSOAP() throws -> DocumentContent {
        guard let template = Register.healthcare.profile.template("soap-note") else {
            throw CommandError(message: "the healthcare register has no soap-note template", exitCode: .failure)
        }
        var written = ["Client reports sleeping six hours, fewer night wakings.", "Calm, good eye contact; PHQ-9 down from 14 to 9.",
                       "Improving; no risk indicators today.", "Continue CBT-I; next session in two weeks."][...]
        return DocumentContent(blocks: try template.blocks.map { block in
            let text = block.kind == .paragraph ? (written.popFirst() ?? block.text) : block.text
            return Block(id: try BlockID.random(), kind: block.kind, text: text, rows: block.rows)
        })
    }

    private func destroy() throws {
        step("11. Destroy a compartment", """
            Destroying shreds the key salts (overwritten in the database and its log), so nothing sealed
            in it can be opened again, even by someone who still has the master key.
            """, command: "compartment destroy Newsletter --yes")
        let unlocked = try Vault.open(at: directory, journal: AuditLog(), modules: VaultModules.all).unlock(with: .passphrase(newPassphrase))
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
