import CryptoVault
import Foundation
import Testing
import TestSupport

/// The copy `vaultctl repair --from` keeps in VAULT/damaged/ is the whole vault as it was (attack
/// review s8, F2: a destroyed privileged compartment stayed readable there, and the old passphrase
/// opened it after `passwd`). It is read-only, vaultctl refuses to open it read-write, `compartment
/// destroy` and `passwd` name it and are refused until `--remove-kept-copies` removes it (recorded),
/// and a partial copy a killed repair left is removed by the next repair.
@Suite(.serialized)
struct KeptCopyTests {
    static func mode(_ path: String) throws -> Int {
        try #require(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
    }

    @Test func theKeptCopyIsReadOnlyAndDestroyAndPasswdNameItUntilTheyRemoveIt() throws {
        let f = try RepairFromDeviceTests.syncedFixture()
        let created = try f.laptop.run(["compartment", "create", "Patient B", "--register", "healthcare"])
        try #require(created.status == 0, "\(created.stderr)")
        try RepairFromDeviceTests.damage(f.laptop, .droppedTable)
        // A copy a repair killed while copying left behind.
        let damaged = f.laptop.directory + "/damaged"
        let partial = damaged + "/.partial-20261206T040000Z-99999"
        try FileManager.default.createDirectory(atPath: partial, withIntermediateDirectories: true)
        try Data("half a database".utf8).write(to: URL(fileURLWithPath: partial + "/vault.db"))

        let repaired = try f.hosts.run(.laptop, f.laptop, ["repair", "--from", f.deskFingerprint, "--address", f.channelAddress, "--json"])
        try #require(repaired.status == 0, "\(repaired.stderr)")
        let kept = try #require(try RepairCommandTests.json(repaired)["kept"] as? String)
        #expect(!FileManager.default.fileExists(atPath: partial), "the partial copy is still there")
        #expect(try FileManager.default.contentsOfDirectory(atPath: damaged) == [(kept as NSString).lastPathComponent])
        #expect(try Self.mode(kept) == 0o500)
        for file in try FileManager.default.contentsOfDirectory(atPath: kept) { #expect(try Self.mode(kept + "/" + file) == 0o400, "\(file)") }

        // Opened read-write it would change and be a second instance of this device: refused, unchanged.
        let before = InMemoryModeTests.tree(kept)
        let opened = try CLI.run(["compartment", "list", "--vault", kept, "--passphrase-file", f.laptop.passphraseFile])
        #expect(opened.status == 1 && opened.stderr.contains("is a copy 'vaultctl repair' kept for inspection"), "\(opened.stderr)")
        #expect(opened.stderr.contains("audit verify --read-only --vault \(kept)"), "\(opened.stderr)")
        #expect(InMemoryModeTests.tree(kept) == before, "the refused open changed the kept copy")

        // The command the refusal names reads it (F17-14: it said the assets/ folder was missing) and changes nothing.
        let verified = try CLI.run(["audit", "verify", "--read-only", "--vault", kept, "--json"])
        #expect(verified.status == 0, "\(verified.stderr)")
        #expect(try RepairCommandTests.json(verified)["verified"] as? Bool == true, "\(verified.stdout)")
        #expect(InMemoryModeTests.tree(kept) == before, "audit verify --read-only changed the kept copy")

        // Destroy and passwd name the copy and are refused until told to remove it.
        let destroy = try f.laptop.run(["compartment", "destroy", "Patient B", "--yes"])
        #expect(destroy.status == 1 && destroy.stderr.contains(kept) && destroy.stderr.contains("--remove-kept-copies"), "\(destroy.stderr)")
        #expect(try f.laptop.run(["compartment", "list"]).stdout.contains("Patient B"), "refused, yet destroyed")
        let newPassphrase = f.laptop.root + "/new-passphrase"
        try f.laptop.write("a new passphrase for the laptop\n", to: newPassphrase)
        let passwd = try f.laptop.run(["passwd", "--new-passphrase-file", newPassphrase])
        #expect(passwd.status == 1 && passwd.stderr.contains(kept) && passwd.stderr.contains("opens with the passphrase"), "\(passwd.stderr)")

        let removed = try f.laptop.run(["compartment", "destroy", "Patient B", "--yes", "--remove-kept-copies", "--json"])
        #expect(removed.status == 0, "\(removed.stderr)")
        #expect(try RepairCommandTests.json(removed)["kept_copies_removed"] as? [String] == [kept], "\(removed.stdout)")
        #expect(!FileManager.default.fileExists(atPath: kept))
        #expect(!(try f.laptop.run(["compartment", "list"]).stdout.contains("Patient B")))
        let log = try f.laptop.run(["audit", "log", "--json", "--details", "--action", "sync.repair-kept-remove"])
        let entries = try #require(try JSONSerialization.jsonObject(with: Data(log.stdout.utf8)) as? [[String: Any]], "\(log.stderr)")
        #expect(entries.compactMap { $0["details"] as? [String: String] }
            == [["kept": (kept as NSString).lastPathComponent, "because": "compartment destroy"]], "\(entries)")
        // Nothing kept any more: passwd runs.
        #expect(try f.laptop.run(["passwd", "--new-passphrase-file", newPassphrase]).status == 0)
        #expect(try f.laptop.run(["audit", "verify"], unlock: false).status == 0)
    }
}
