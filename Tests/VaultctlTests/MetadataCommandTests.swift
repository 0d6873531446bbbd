import Appliance
import CryptoVault
import Foundation
import Testing
import TestSupport

@Suite("vaultctl: tampered metadata is refused, hostile rows are skipped, races fail cleanly")
struct MetadataCommandTests {
    var sqlitePath: String { "/usr/bin/sqlite3" }

    @Test("privileged flipped to 0 with sqlite3: get of a privileged bundle without a session is refused for the binding (65)")
    func flippedPrivilegedGet() throws {
        let fixture = try BundleCLI()
        #expect(try fixture.run(["compartment", "create", "Session notes", "--register", "healthcare"]).status == 0)
        try fixture.write(Array("diagnosis: confidential".utf8), to: "note.txt")
        let put = try fixture.run(["put", "--compartment", "Session notes", fixture.file("note.txt")])
        try #require(put.status == 0, "\(put.stderr)")
        let id = put.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        try SQLiteShell.run(fixture.directory + "/vault.db", "UPDATE compartments SET privileged = 0")
        let get = try fixture.run(["get", id, "-o", fixture.file("out.txt")])
        #expect(get.status == 65, "\(get.stderr)")
        #expect(get.stderr.contains("fails its binding"), "\(get.stderr)")
        #expect(!FileManager.default.fileExists(atPath: fixture.file("out.txt")))
    }

    @Test("one passphrase row over the work ceiling: unlock exits 0 with the right passphrase and warns about the row")
    func hostileRowUnlock() throws {
        let fixture = try CLIVault()
        try SQLiteShell.run(fixture.directory + "/vault.db", """
            INSERT INTO keyslots (uuid, kind, kdf, salt, nonce, wrapped_key, created_at, updated_at)
            SELECT randomblob(16), kind, '{"algorithm":"argon2id","iterations":64,"memoryKiB":2097152,"parallelism":4}',
                   salt, nonce, wrapped_key, created_at, updated_at FROM keyslots;
            """)
        let unlock = try fixture.run(["unlock"])
        #expect(unlock.status == 0, "\(unlock.stderr)")
        #expect(unlock.stderr.contains("warning: keyslot 2 is refused"), "\(unlock.stderr)")
        let passwd = try fixture.run(["passwd", "--new-passphrase-file", fixture.passphraseFile])
        #expect(passwd.status == 0, "\(passwd.stderr)")
    }

    @Test("a malformed kdf_policy does not make unlock fail")
    func malformedPolicyUnlock() throws {
        let fixture = try CLIVault()
        try SQLiteShell.run(fixture.directory + "/vault.db", "UPDATE vault_meta SET value = '{' WHERE key = 'kdf_policy'")
        let unlock = try fixture.run(["unlock"])
        #expect(unlock.status == 0, "\(unlock.stderr)")
        #expect(unlock.stderr.contains("KDF policy"), "\(unlock.stderr)")
    }

    /// Two `passwd` started together with the same old passphrase: never both exit 0; the one that
    /// does has its new passphrase working; the other names the conflict (or, if it unlocked after the
    /// first committed, finds the old passphrase wrong).
    @Test("two passwd at once: one wins, the other fails with a clear error, and the winner's passphrase works")
    func concurrentPasswd() throws {
        let fixture = try CLIVault()
        var current = CLIVault.passphrase
        var conflicts = 0
        for round in 0..<6 where conflicts == 0 || round < 2 {
            let next = ["first \(round) passphrase", "second \(round) passphrase"]
            let running = try next.map { new in
                try CLI.start(["passwd", "--vault", fixture.directory, "--passphrase-file", "-", "--new-passphrase-file", "-"],
                              stdin: "\(current)\n\(new)\n")
            }
            let results = running.map { $0.process.waitUntilExit(); return $0.result() }
            let winners = results.indices.filter { results[$0].status == 0 }
            #expect(winners.count == 1, "round \(round): \(results.map(\.status)) \(results.map(\.stderr))")
            guard let winner = winners.first else { return }
            let loser = results[1 - winner]
            #expect(loser.stderr.contains("changed by another command") || loser.status == 2, "\(loser.stderr)")
            if loser.stderr.contains("changed by another command") { conflicts += 1 }
            let vault = try Vault.open(at: fixture.directory, journal: RecordingJournal(), modules: VaultModules.all)
            #expect((try? vault.unlock(with: .passphrase(try SecureBytes(copying: Array(next[winner].utf8))))) != nil,
                    "round \(round): the winner's new passphrase must unlock")
            current = next[winner]
        }
        #expect(conflicts > 0, "the two passwd never overlapped")
    }

    @Test("put racing compartment destroy: afterwards neither a row nor a file of the destroyed compartment remains")
    func putRacingDestroy() throws {
        let fixture = try BundleCLI()
        #expect(try fixture.run(["compartment", "create", "doomed", "--register", "general"]).status == 0)
        // 96 MiB from /dev/urandom (quick), so sealing lasts long enough for destroy to land during it.
        #expect(try fixture.shell("head -c 100663296 /dev/urandom > \"$1\"", fixture.file("big.bin")).status == 0)
        let put = try CLI.start(["put", "--compartment", "doomed", fixture.file("big.bin"), "--vault", fixture.directory,
                                 "--passphrase-file", fixture.passphraseFile])
        // Destroy once the put is sealing (its .incoming- file exists).
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline, !(try fixture.assetNames()).contains(where: { $0.hasPrefix(".incoming-") }) { usleep(5_000) }
        let destroy = try fixture.run(["compartment", "destroy", "doomed", "--yes"])
        put.process.waitUntilExit()
        let putResult = put.result()
        #expect(destroy.status == 0, "\(destroy.stderr)")
        if putResult.status != 0 {
            #expect(putResult.stderr.contains("was destroyed while the file was being sealed"), "\(putResult.stderr)")
        }
        let rows = try sqlite(fixture.directory + "/vault.db", "SELECT count(*) FROM bundles")
        #expect(rows == "0")
        #expect(try fixture.assetNames().filter { $0.hasSuffix(".vbundle") } == [])
    }

    @Test("compartment retire refuses while bundles use the version; rewrap names what it skips and exits 65 after the rest")
    func retireAndRewrap() throws {
        let fixture = try BundleCLI()
        try fixture.write(Array("first".utf8), to: "a.txt")
        try fixture.write(Array("second".utf8), to: "b.txt")
        let first = try fixture.put("a.txt")
        let second = try fixture.put("b.txt")
        #expect(try fixture.run(["compartment", "rotate", "files"]).status == 0)
        let retire = try fixture.run(["compartment", "retire", "files", "--version", "1", "--yes"])
        #expect(retire.status != 0 && retire.stderr.contains(first) && retire.stderr.contains(second), "\(retire.stderr)")
        #expect(try fixture.run(["get", first, "-o", fixture.file("a.out")]).status == 0, "nothing was shredded")
        // Damage the first bundle's header: rewrap must skip it, name it, and still move the second.
        let path = fixture.directory + "/assets/\(first).vbundle"
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        bytes[75] ^= 0x01
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let rewrap = try fixture.run(["compartment", "rewrap", "files"])
        #expect(rewrap.status == 65, "\(rewrap.stderr)")
        #expect(rewrap.stderr.contains("bundle \(first) was not rewrapped"), "\(rewrap.stderr)")
        #expect(rewrap.stdout.contains("Rewrapped 1 bundle(s)"), "\(rewrap.stdout)")
        #expect(try sqlite(fixture.directory + "/vault.db", "SELECT key_version FROM bundles WHERE hex(bundle_id) = upper('\(second)')") == "2")
        #expect(try sqlite(fixture.directory + "/vault.db", "SELECT key_version FROM bundles WHERE hex(bundle_id) = upper('\(first)')") == "1")
    }
}
