@testable import CryptoVault
import Foundation
import Testing

@Suite("vaultctl: end-to-end workflows")
struct WorkflowTests {
    @Test("status --json lists the passphrase slot and its parameters without unlocking")
    func statusJSON() throws {
        let fixture = try CLIVault()
        let result = try fixture.run(["status", "--json"], unlock: false)
        #expect(result.status == 0)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let slots = try #require(json["keyslots"] as? [[String: Any]])
        #expect(slots.count == 1)
        #expect(slots[0]["kind"] as? String == "passphrase")
        let kdf = try #require(slots[0]["kdf"] as? [String: Any], "the KDF is an object, not JSON inside a string")
        #expect(kdf["algorithm"] as? String == "argon2id" && kdf["memory_kib"] as? Int == 19456 && kdf["iterations"] as? Int == 2)
        #expect((json["kdf_policy"] as? [String: Any])?["algorithm"] as? String == "argon2id")
        #expect(json["schema_version"] as? Int == 13)
    }

    @Test("compartments: create, list, rotate, destroy (which needs --yes)")
    func compartments() throws {
        let fixture = try CLIVault()
        #expect(try fixture.run(["compartment", "create", "Session notes", "--register", "healthcare"]).status == 0)
        #expect(try fixture.run(["compartment", "create", "Blog", "--register", "marketing"]).status == 0)
        let duplicate = try fixture.run(["compartment", "create", "Blog", "--register", "marketing"])
        #expect(duplicate.status == 73)
        #expect(try fixture.run(["compartment", "rotate", "Session notes"]).stdout.contains("key version 2"))
        let list = try fixture.run(["compartment", "list", "--json"])
        let entries = try #require(try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [[String: Any]])
        #expect(entries.map { $0["name"] as? String } == ["Blog", "Session notes"])
        #expect(entries.map { $0["privileged"] as? Bool } == [false, true])
        let refused = try fixture.run(["compartment", "destroy", "Blog"])
        #expect(refused.status == 64 && refused.stderr.contains("--yes"))
        #expect(try fixture.run(["compartment", "destroy", "Blog", "--yes"]).status == 0)
        let missing = try fixture.run(["compartment", "rotate", "Blog"])
        #expect(missing.status == 66 && missing.stderr.contains("no compartment named 'Blog'"))
    }

    @Test("a recovery key is printed once and unlocks; a mistyped one is refused for its checksum")
    func recoveryKey() throws {
        let fixture = try CLIVault()
        let created = try fixture.run(["recovery", "create-key"])
        #expect(created.status == 0)
        let key = created.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(key.split(separator: "-").count == 6)
        try fixture.write(key + "\n", to: fixture.root + "/key")
        let unlocked = try CLI.run(["unlock", "--vault", fixture.directory, "--recovery-key-file", fixture.root + "/key"])
        #expect(unlocked.status == 0 && unlocked.stdout.contains("recovery-key"))
        var typo = Array(key)
        typo[3] = typo[3] == "7" ? "8" : "7"
        try fixture.write(String(typo) + "\n", to: fixture.root + "/typo")
        let refused = try CLI.run(["unlock", "--vault", fixture.directory, "--recovery-key-file", fixture.root + "/typo"])
        #expect(refused.status == 65)
        #expect(refused.stderr.contains("checksum"))
        #expect(!refused.stderr.contains(String(typo)))
    }

    @Test("recovery split writes one 0600 file per share; any threshold of them unlock, fewer do not")
    func recoverySplit() throws {
        let fixture = try CLIVault()
        let out = fixture.root + "/shares"
        let split = try fixture.run(["recovery", "split", "--shares", "3", "--threshold", "2", "--out", out])
        #expect(split.status == 0, "\(split.stderr)")
        let files = (1...3).map { "\(out)/share-\($0)-of-3.txt" }
        for file in files {
            let attributes = try FileManager.default.attributesOfItem(atPath: file)
            #expect((attributes[.posixPermissions] as? Int) == 0o600)
        }
        let two = try CLI.run(["unlock", "--vault", fixture.directory, "--share-file", files[2], "--share-file", files[0]])
        #expect(two.status == 0, "\(two.stderr)")
        let one = try CLI.run(["unlock", "--vault", fixture.directory, "--share-file", files[1]])
        #expect(one.status == 2)
        #expect(one.stderr.contains("needs 2 of 3"))
        let again = try fixture.run(["recovery", "split", "--shares", "3", "--threshold", "2", "--out", out, "--replace"])
        #expect(again.status == 73 && again.stderr.contains("already exists"), "\(again.stderr)")
    }

    @Test("passwd reads the current and new passphrases from stdin, one line each")
    func passwdFromStdin() throws {
        let fixture = try CLIVault()
        let changed = try CLI.run(["passwd", "--vault", fixture.directory, "--passphrase-file", "-", "--new-passphrase-file", "-"],
                                  stdin: "\(CLIVault.passphrase)\nthe new passphrase\n")
        #expect(changed.status == 0, "\(changed.stderr)")
        #expect(try fixture.run(["unlock"]).status == 2)
        let unlocked = try CLI.run(["unlock", "--vault", fixture.directory, "--passphrase-file", "-"], stdin: "the new passphrase\n")
        #expect(unlocked.status == 0)
        let short = try CLI.run(["passwd", "--vault", fixture.directory, "--passphrase-file", "-", "--new-passphrase-file", "-"],
                                stdin: "the new passphrase\nshort\n")
        #expect(short.status == 64 && short.stderr.contains("at least 8 bytes"))
    }

    @Test("on a terminal the passphrase is asked without echo, and never shown")
    func terminalPrompt() throws {
        let fixture = try CLIVault()
        let shown = try Terminal.run(["unlock", "--vault", fixture.directory], typing: [CLIVault.passphrase])
        #expect(shown.status == 0, "\(shown.stdout) \(shown.stderr)")
        #expect(shown.stdout.contains("Passphrase:"))
        #expect(shown.stdout.contains("Unlocked with passphrase slot"))
        #expect(!shown.stdout.contains(CLIVault.passphrase))
    }

    @Test("init on a terminal asks twice and refuses two different passphrases")
    func terminalInitMismatch() throws {
        let fixture = try CLIVault(create: false)
        let shown = try Terminal.run(["init", "--vault", fixture.directory] + CLI.fastKDF,
                                     typing: ["first passphrase", "second passphrase"])
        #expect(shown.stdout.contains("New passphrase:") && shown.stdout.contains("Repeat it:"))
        #expect(shown.stdout.contains("the two passphrases differ"))
        #expect(!FileManager.default.fileExists(atPath: fixture.directory + "/vault.db"))
    }

    @Test("the vault location comes from VAULTCTL_VAULT, else XDG_DATA_HOME")
    func defaultLocation() throws {
        let fixture = try CLIVault(create: false)
        let base = ["PATH": "/usr/bin:/bin", "HOME": fixture.root]
        let viaVariable = try CLI.run(["init", "--passphrase-file", fixture.passphraseFile] + CLI.fastKDF,
                                      environment: base.merging(["VAULTCTL_VAULT": fixture.directory]) { $1 })
        #expect(viaVariable.status == 0, "\(viaVariable.stderr)")
        #expect(FileManager.default.fileExists(atPath: fixture.directory + "/vault.db"))
        let viaXDG = try CLI.run(["init", "--passphrase-file", fixture.passphraseFile] + CLI.fastKDF,
                                 environment: base.merging(["XDG_DATA_HOME": fixture.root + "/data"]) { $1 })
        #expect(viaXDG.status == 0, "\(viaXDG.stderr)")
        #expect(FileManager.default.fileExists(atPath: fixture.root + "/data/vaultctl/vault/vault.db"))
    }

    @Test("init --kdf-target-ms calibrates: status shows parameters at or above the floor")
    func calibratedInit() throws {
        let fixture = try CLIVault(create: false)
        let created = try CLI.run(["init", "--vault", fixture.directory, "--passphrase-file", fixture.passphraseFile,
                                   "--kdf-target-ms", "150"])
        #expect(created.status == 0, "\(created.stderr)")
        #expect(created.stderr.contains("Calibrating Argon2id"))
        let status = try fixture.run(["status", "--json"], unlock: false)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any])
        let parameters = try #require((json["keyslots"] as? [[String: Any]])?.first?["kdf"] as? [String: Any])
        #expect((parameters["memory_kib"] as? Int ?? 0) >= 19_456)
        #expect((parameters["iterations"] as? Int ?? 0) >= 2)
        #expect(try fixture.run(["unlock"]).status == 0)
    }

    @Test("the demo runs to the end on a temporary vault and leaves nothing behind")
    func demo() throws {
        let result = try CLI.run(["demo"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("Tour complete"))
        #expect(result.stdout.contains("the old passphrase: refused"))
        // The clinician's part: the SOAP note written and snapshotted, the assistant's suggestion a branch
        // adopted then reverted byte for byte, and the audit entries that record it printed.
        let soap = try #require(result.stdout.range(of: "12. A clinician's SOAP note").map { String(result.stdout[$0.lowerBound...]) }, "\(result.stdout)")
        #expect(soap.contains("written from soap-note (12 blocks) and stored as version 1, \"Signed\""), "\(soap)")
        #expect(soap.contains("suggested as a branch of kind ai-suggestion, the note untouched"), "\(soap)")
        #expect(soap.contains("adopted as version 2: the plan now ends \"...") && soap.contains(" Add a two-week sleep diary.\"\n"), "\(soap)")
        #expect(soap.contains("reverted as version 3: the note is as signed, byte for byte: true"), "\(soap)")
        let audit = soap.components(separatedBy: "what the audit log recorded").last ?? ""
        for action in ["session.start", "writing.project-create", "writing.node-add", "writing.content-write", "writing.snapshot-create",
                       "writing.branch-create", "writing.branch-adopt", "writing.branch-revert", "writing.edit-session-start",
                       "writing.edit-session-end", "session.end"] {
            #expect(audit.contains("  \(action)"), "\(action) not printed: \(audit)")
        }
        #expect(!audit.contains("PHQ-9") && !audit.contains("sleep diary"), "no word of the note in the audit lines")
    }
}
