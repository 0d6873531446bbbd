import Foundation
import Testing

/// Commands that cannot be undone ask first: --yes or --replace for scripts, YES typed on a terminal,
/// and a usage error (exit 64, nothing changed) for a script that did not say.
@Suite("Guard rails")
struct GuardRailTests {
    @Test("recovery create-key over an existing key is refused without --replace (exit 64, the old key still unlocks); with it, the old key stops working and the log says recovery.replace-key")
    func recoveryKeyReplacement() throws {
        let fixture = try CLIVault()
        let first = try expectSuccess(fixture.run(["recovery", "create-key"])).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        try fixture.write(first + "\n", to: fixture.root + "/first")
        let refused = try fixture.run(["recovery", "create-key"])
        #expect(refused.status == 64, "\(refused.stderr)")
        #expect(refused.stderr.contains("already has a recovery key") && refused.stderr.contains("stops working")
                && refused.stderr.contains("--replace"), "\(refused.stderr)")
        #expect(refused.stdout.isEmpty, "no new key is shown")
        try expectSuccess(CLI.run(["unlock", "--vault", fixture.directory, "--recovery-key-file", fixture.root + "/first"]))

        let second = try expectSuccess(fixture.run(["recovery", "create-key", "--replace"])).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(second != first)
        let old = try CLI.run(["unlock", "--vault", fixture.directory, "--recovery-key-file", fixture.root + "/first"])
        #expect(old.status == 2, "the replaced key no longer unlocks: \(old.stderr)")
        #expect(try actions(fixture).filter { $0.hasPrefix("recovery.") } == ["recovery.create-key", "recovery.replace-key"])
    }

    @Test("recovery split over an existing split is refused without --replace (exit 64, the old shares still unlock); with it the log says recovery.replace-split")
    func recoverySplitReplacement() throws {
        let fixture = try CLIVault()
        let first = fixture.root + "/first", second = fixture.root + "/second"
        try expectSuccess(fixture.run(["recovery", "split", "--shares", "2", "--threshold", "2", "--out", first]))
        let refused = try fixture.run(["recovery", "split", "--shares", "2", "--threshold", "2", "--out", second])
        #expect(refused.status == 64 && refused.stderr.contains("already has a recovery split (2 of 2") && refused.stderr.contains("--replace"),
                "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: second), "no share was written")
        let oldShares = ["--share-file", first + "/share-1-of-2.txt", "--share-file", first + "/share-2-of-2.txt"]
        try expectSuccess(CLI.run(["unlock", "--vault", fixture.directory] + oldShares))
        try expectSuccess(fixture.run(["recovery", "split", "--shares", "2", "--threshold", "2", "--out", second, "--replace"]))
        #expect(try CLI.run(["unlock", "--vault", fixture.directory] + oldShares).status == 2)
        #expect(try actions(fixture).filter { $0.hasPrefix("recovery.") } == ["recovery.split", "recovery.replace-split"])
    }

    @Test("rm, compartment destroy and compartment retire without --yes and without a terminal are usage errors that change nothing", arguments: [
        ["rm", "BUNDLE"], ["compartment", "destroy", "Blog"], ["compartment", "retire", "Blog", "--version", "1"],
    ])
    func irreversibleCommandsNeedYes(_ command: [String]) throws {
        let fixture = try CLIVault()
        try expectSuccess(fixture.run(["compartment", "create", "Blog", "--register", "marketing"]))
        try expectSuccess(fixture.run(["compartment", "rotate", "Blog"]))
        try fixture.write("note", to: fixture.root + "/note.txt")
        let id = try expectSuccess(fixture.run(["put", "--compartment", "Blog", fixture.root + "/note.txt"])).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let before = try actions(fixture)
        let refused = try fixture.run(command.map { $0 == "BUNDLE" ? id : $0 })
        #expect(refused.status == 64 && refused.stderr.contains("add --yes to confirm"), "\(refused.stderr)")
        let after = try actions(fixture)
        #expect(after.count == before.count + 1, "only the listing's own unlock was recorded: \(after)")
        try expectSuccess(fixture.run(command.map { $0 == "BUNDLE" ? id : $0 } + ["--yes"]))
    }

    @Test("on a terminal, destroy asks for YES: another answer changes nothing, YES destroys")
    func typedConfirmation() throws {
        let fixture = try CLIVault()
        try expectSuccess(fixture.run(["compartment", "create", "Blog", "--register", "marketing"]))
        let arguments = ["compartment", "destroy", "Blog", "--vault", fixture.directory, "--passphrase-file", fixture.passphraseFile]
        let declined = try Terminal.run(arguments, typing: ["yes"])
        #expect(declined.status == 64 && declined.stdout.contains("Type YES") && declined.stdout.contains("not confirmed"), "\(declined.stdout)")
        #expect(try fixture.run(["compartment", "list"]).stdout.contains("Blog"))
        let confirmed = try Terminal.run(arguments, typing: ["YES"])
        #expect(confirmed.status == 0 && confirmed.stdout.contains("destroyed"), "\(confirmed.stdout)")
        #expect(!(try fixture.run(["compartment", "list"]).stdout.contains("Blog")))
    }

    private func actions(_ fixture: CLIVault) throws -> [String] {
        let listed = try expectSuccess(fixture.run(["audit", "log", "--json"]))
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])
        return rows.compactMap { $0["action"] as? String }
    }
}
