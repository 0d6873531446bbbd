import Foundation
import Testing

@Suite("vaultctl: commands, usage errors and exit codes")
struct CommandLineTests {
    static let commands = ["init", "status", "unlock", "passwd", "recovery create-key", "recovery split",
                           "compartment create", "compartment list", "compartment rotate", "compartment retire", "compartment destroy", "demo"]

    @Test("every command answers --help with its usage and exit 0", arguments: commands)
    func help(_ command: String) throws {
        let result = try CLI.run(command.split(separator: " ").map(String.init) + ["--help"])
        #expect(result.status == 0)
        #expect(result.stdout.hasPrefix("Usage: vaultctl \(command)"))
    }

    @Test("the overview lists every command and the exit codes")
    func overview() throws {
        let result = try CLI.run(["--help"])
        #expect(result.status == 0)
        for command in Self.commands { #expect(result.stdout.contains("  \(command) ")) }
        #expect(result.stdout.contains("Exit codes:"))
    }

    @Test("usage errors exit 64 with a vaultctl: message on stderr and nothing on stdout",
          arguments: [
            (["status", "--bogus"], "unknown option --bogus"),
            (["compartment", "create", "--register", "legal"], "missing argument"),
            (["compartment", "create", "x"], "missing --register"),
            (["compartment", "create", "x", "--register", "poetry"], "unknown register 'poetry'"),
            (["recovery", "split", "--threshold", "2", "--out", "/tmp/x"], "missing --shares"),
            (["recovery", "split", "--shares", "3", "--threshold", "4", "--out", "/tmp/x"], "--threshold must be a whole number from 2 to 3"),
            (["init", "--kdf-memory-mib"], "--kdf-memory-mib needs a value"),
            (["init", "--kdf-memory-mib", "8"], "below the floor"),
            (["frobnicate"], "unknown command 'frobnicate'"),
            (["status", "extra"], "unexpected argument 'extra'"),
            (["status", "--vault", "a", "--vault", "b"], "--vault was given twice"),
          ])
    func usageErrors(_ arguments: [String], _ expected: String) throws {
        let result = try CLI.run(arguments)
        #expect(result.status == 64, "\(arguments): \(result.stderr)")
        #expect(result.stderr.hasPrefix("vaultctl: error: "))
        #expect(result.stderr.contains(expected), "\(result.stderr)")
        #expect(result.stdout.isEmpty)
    }

    @Test("a directory that is not a vault: exit 66 with the reason")
    func notAVault() throws {
        let fixture = try CLIVault(create: false)
        let result = try fixture.run(["status"], unlock: false)
        #expect(result.status == 66)
        #expect(result.stderr.contains("is not a vault"))
    }

    @Test("init on an existing vault refuses: exit 73, vault untouched")
    func initTwice() throws {
        let fixture = try CLIVault()
        let result = try fixture.run(["init"] + CLI.fastKDF)
        #expect(result.status == 73)
        #expect(result.stderr.contains("already holds a vault"))
        #expect(try fixture.run(["unlock"]).status == 0)
    }

    @Test("a wrong passphrase: exit 2, 'wrong passphrase', nothing on stdout, no secret echoed")
    func wrongPassphrase() throws {
        let fixture = try CLIVault()
        try fixture.write("hunter2-not-it\n", to: fixture.root + "/wrong")
        let result = try CLI.run(["unlock", "--vault", fixture.directory, "--passphrase-file", fixture.root + "/wrong"])
        #expect(result.status == 2)
        #expect(result.stderr == "vaultctl: error: wrong passphrase\n")
        #expect(result.stdout.isEmpty)
    }

    @Test("a passphrase file that does not exist: exit 66 naming the file")
    func missingPassphraseFile() throws {
        let fixture = try CLIVault()
        let result = try CLI.run(["unlock", "--vault", fixture.directory, "--passphrase-file", fixture.root + "/absent"])
        #expect(result.status == 66)
        #expect(result.stderr.contains("cannot read the passphrase file \(fixture.root)/absent"))
    }

    @Test("a newer schema, a damaged file and missing assets each exit 65 with their reason")
    func damagedVaults() throws {
        let newer = try CLIVault()
        try SQLiteShell.run(newer.directory + "/vault.db", "PRAGMA user_version = 99")
        let newerResult = try newer.run(["status"], unlock: false)
        #expect(newerResult.status == 65 && newerResult.stderr.contains("schema version 99"))

        let damaged = try CLIVault()
        try Data(repeating: 0x42, count: 4096).write(to: URL(fileURLWithPath: damaged.directory + "/vault.db"))
        try? FileManager.default.removeItem(atPath: damaged.directory + "/vault.db-wal")
        let damagedResult = try damaged.run(["status"], unlock: false)
        #expect(damagedResult.status == 65 && damagedResult.stderr.contains("damaged"), "\(damagedResult.stderr)")

        let noAssets = try CLIVault()
        try FileManager.default.removeItem(atPath: noAssets.directory + "/assets")
        let assetsResult = try noAssets.run(["status"], unlock: false)
        #expect(assetsResult.status == 65 && assetsResult.stderr.contains("assets/ folder is missing"))
    }

    @Test("a keyslot with KDF parameters above the ceiling is refused at once: exit 65")
    func hostileParameters() throws {
        let fixture = try CLIVault()
        try SQLiteShell.run(fixture.directory + "/vault.db",
            #"UPDATE keyslots SET kdf = '{"algorithm":"argon2id","iterations":3,"memoryKiB":67108864,"parallelism":4}'"#)
        let start = Date()
        let result = try fixture.run(["unlock"])
        #expect(result.status == 65)
        #expect(result.stderr.contains("exceeds the ceiling"), "\(result.stderr)")
        #expect(Date().timeIntervalSince(start) < 5)
    }
}

/// The sqlite3 command-line shell (Debian's sqlite3, installed by the Makefile), to edit a vault as
/// an attacker or a newer version of vaultctl would.
enum SQLiteShell {
    static func run(_ database: String, _ sql: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        process.arguments = [database, sql]
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw CLIError(message: "editing \(database) failed") }
    }
}
