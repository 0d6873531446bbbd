import Foundation
import Testing

@Suite("vaultctl init: refusing early and a private folder")
struct InitCommandTests {
    @Test("init --kdf-target-ms on an existing vault refuses (exit 73) before it calibrates or asks for a passphrase")
    func existingVaultBeforeCalibrating() throws {
        let fixture = try CLIVault()
        // No --passphrase-file and no terminal: had it got as far as asking, it would exit 64 instead.
        let result = try CLI.run(["init", "--vault", fixture.directory, "--kdf-target-ms", "2000"])
        #expect(result.status == 73, "\(result.stderr)")
        #expect(result.stderr.contains("already holds a vault"), "\(result.stderr)")
        #expect(!result.stderr.contains("Calibrating"), "\(result.stderr)")
    }

    @Test("a too-short new passphrase is refused before it is asked a second time")
    func shortPassphraseBeforeRepeat() throws {
        let fixture = try CLIVault(create: false)
        let result = try Terminal.run(["init", "--vault", fixture.directory] + CLI.fastKDF, typing: ["short"])
        #expect(result.status == 64, "\(result.stdout)")
        #expect(result.stdout.contains("at least 8 bytes"), "\(result.stdout)")
        #expect(!result.stdout.contains("Repeat it"), "\(result.stdout)")
        #expect(!FileManager.default.fileExists(atPath: fixture.directory + "/vault.db"))
    }

    @Test("init into an existing 0755 folder makes it 0700")
    func existingFolderMadePrivate() throws {
        let fixture = try CLIVault(create: false)
        try FileManager.default.createDirectory(atPath: fixture.directory, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o755])
        let result = try CLI.run(["init", "--vault", fixture.directory, "--passphrase-file", fixture.passphraseFile] + CLI.fastKDF)
        #expect(result.status == 0, "\(result.stderr)")
        let mode = try FileManager.default.attributesOfItem(atPath: fixture.directory)[.posixPermissions] as? Int
        #expect(mode == 0o700, "mode \(String(mode ?? -1, radix: 8))")
    }
}
