import Appliance
import CryptoVault
import Foundation
import Testing
import TestSupport

/// A vault made by the built vaultctl must be readable by the second, independent implementation in
/// testvectors/independent/vault_reader.py, written from SECURITY.md alone, with every kind of
/// credential: the proof that SECURITY.md specifies the on-disk formats completely.
///
/// The reader needs Debian's python3-nacl and python3-argon2, which `make test` installs. They live in
/// Debian's dist-packages, which only Debian's own interpreter sees, so the reader runs under
/// $VAULTCTL_PYTHON, else /usr/bin/python3, else the python3 on PATH. Missing modules fail the test.
@Suite("vaultctl vaults read by the independent implementation (testvectors/independent)")
struct IndependentImplementationTests {
    static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let reader = repositoryRoot.appendingPathComponent("testvectors/independent/vault_reader.py").path

    static let python: String = {
        if let path = ProcessInfo.processInfo.environment["VAULTCTL_PYTHON"], !path.isEmpty { return path }
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") { return "/usr/bin/python3" }
        return "python3"
    }()

    static let sessionNotes = "Session notes"
    static let nonASCII = "Müller v. Müller – 患者 田中"
    static let cafeNFC = "Caf\u{e9}"
    static let cafeNFD = "Cafe\u{301}"  // canonically equal to cafeNFC: vaultctl normalises names to NFC

    @Test("the Python reader lists the same compartments as vaultctl with the passphrase, the recovery key and 2 of 3 shares")
    func sameCompartmentsWithEveryCredential() throws {
        try Self.requireReader()
        let fixture = try CLIVault()
        try Self.populate(fixture)
        let created = try fixture.run(["recovery", "create-key"])
        try #require(created.status == 0, "recovery create-key: \(created.stderr)")
        let keyFile = fixture.root + "/recovery-key.txt"
        try fixture.write(created.stdout.trimmingCharacters(in: .whitespacesAndNewlines) + "\n", to: keyFile)
        let out = fixture.root + "/shares"
        let split = try fixture.run(["recovery", "split", "--shares", "3", "--threshold", "2", "--out", out])
        try #require(split.status == 0, "recovery split: \(split.stderr)")
        let shareFiles = (1...3).map { "\(out)/share-\($0)-of-3.txt" }

        let list = try fixture.run(["compartment", "list", "--json"])
        try #require(list.status == 0, "compartment list: \(list.stderr)")
        let expected = try Self.signatures(try #require(
            try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [[String: Any]], "vaultctl list JSON"))
        #expect(expected.count == 4, "vaultctl lists the 4 live compartments")
        #expect(Set(expected.values.map(\.nameUTF8)).count == 4)

        let credentials: [(kind: String, arguments: [String])] = [
            ("passphrase", ["--passphrase-file", fixture.passphraseFile]),
            ("recovery-key", ["--recovery-key-file", keyFile]),
            ("recovery-shares", ["--share-file", shareFiles[2], "--share-file", shareFiles[0]]),
        ]
        for credential in credentials {
            let result = try Self.runReader(["--vault", fixture.directory] + credential.arguments)
            try #require(result.status == 0, "vault_reader.py with \(credential.kind) exited \(result.status): \(result.stderr)")
            let output = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any],
                                      "vault_reader.py JSON with \(credential.kind)")
            let unlocked = output["unlocked_with"] as? [String: Any]
            #expect(unlocked?["kind"] as? String == credential.kind, "\(credential.kind): the slot that opened")
            let read = try Self.signatures(try #require(output["compartments"] as? [[String: Any]], "compartments"))
            #expect(read == expected, "\(credential.kind): the independent reader's compartments differ from vaultctl's")
        }
    }

    @Test("compartment keys derived by the Python reader equal this implementation's")
    func sameCompartmentKeys() throws {
        try Self.requireReader()
        let fixture = try CLIVault()
        try Self.populate(fixture)
        let vault = try Vault.open(at: fixture.directory, journal: RecordingJournal(), modules: VaultModules.all)
        let unlocked = try vault.unlock(with: .passphrase(try SecureBytes(copying: Array(CLIVault.passphrase.utf8))))
        for (name, version) in [(Self.sessionNotes, UInt32(1)), (Self.sessionNotes, 2), (Self.nonASCII, 1), (Self.cafeNFC, 1), ("Blog", 2)] {
            let compartment = try unlocked.compartment(named: name)
            let swiftKey = try unlocked.compartmentKey(for: compartment, version: version).exposedCopy()
                .map { String(format: "%02x", $0) }.joined()
            let result = try Self.runReader(["--vault", fixture.directory, "--passphrase-file", fixture.passphraseFile,
                                             "--compartment-key", "\(name):\(version)"])
            try #require(result.status == 0, "vault_reader.py --compartment-key '\(name):\(version)': \(result.stderr)")
            let output = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
            let pythonKey = (output?["compartment_key"] as? [String: Any])?["key"] as? String
            #expect(pythonKey == swiftKey, "compartment key of '\(name)' version \(version)")
        }
    }

    @Test("the Python reader opens a multi-lane Argon2id slot (vaultctl) and a scrypt slot (the library)")
    func otherKDFParameters() throws {
        try Self.requireReader()
        let fixture = try CLIVault(create: false)
        let initialised = try CLI.run(["init", "--vault", fixture.directory, "--passphrase-file", fixture.passphraseFile,
                                       "--kdf-memory-mib", "20", "--kdf-iterations", "3", "--kdf-parallelism", "2"])
        try #require(initialised.status == 0, "init: \(initialised.stderr)")
        try #require(try fixture.run(["compartment", "create", Self.nonASCII, "--register", "legal"]).status == 0)
        let argon = try Self.runReader(["--vault", fixture.directory, "--passphrase-file", fixture.passphraseFile])
        #expect(argon.status == 0 && argon.stdout.contains(Self.nonASCII), "Argon2id m=20 MiB, t=3, p=2: \(argon.stderr)")

        let scryptDirectory = fixture.root + "/scrypt-vault"
        let created = try Vault.create(at: scryptDirectory, passphrase: try SecureBytes(copying: Array(CLIVault.passphrase.utf8)),
                                       kdf: .scrypt(log2N: 15, r: 8, p: 1), journal: RecordingJournal())
        let compartment = try created.createCompartment(named: Self.sessionNotes, register: .healthcare)
        let key = try created.compartmentKey(for: compartment, version: 1).exposedCopy().map { String(format: "%02x", $0) }.joined()
        let slots = try created.vault.keyslots()
        try #require(slots.map(\.kdf.encoded) == ["{\"algorithm\":\"scrypt\",\"log2N\":15,\"p\":1,\"r\":8}"], "one scrypt slot")
        let scrypt = try Self.runReader(["--vault", scryptDirectory, "--passphrase-file", fixture.passphraseFile,
                                         "--compartment-key", "\(Self.sessionNotes):1"])
        try #require(scrypt.status == 0, "scrypt slot: \(scrypt.stderr)")
        let output = try JSONSerialization.jsonObject(with: Data(scrypt.stdout.utf8)) as? [String: Any]
        #expect((output?["compartment_key"] as? [String: Any])?["key"] as? String == key, "scrypt vault: compartment key")
    }

    @Test("the Python reader refuses what vaultctl refuses: wrong passphrase, mistyped key, altered share")
    func refusals() throws {
        try Self.requireReader()
        let fixture = try CLIVault()
        let created = try fixture.run(["recovery", "create-key"])
        try #require(created.status == 0, "recovery create-key: \(created.stderr)")
        let out = fixture.root + "/shares"
        try #require(try fixture.run(["recovery", "split", "--shares", "3", "--threshold", "2", "--out", out]).status == 0)

        let wrong = fixture.root + "/wrong"
        try fixture.write("not the passphrase\n", to: wrong)
        #expect(try Self.runReader(["--vault", fixture.directory, "--passphrase-file", wrong]).status == 2,
                "wrong passphrase: authentication failure")

        var typo = Array(created.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        typo[3] = typo[3] == "7" ? "8" : "7"
        try fixture.write(String(typo) + "\n", to: fixture.root + "/typo")
        let mistyped = try Self.runReader(["--vault", fixture.directory, "--recovery-key-file", fixture.root + "/typo"])
        #expect(mistyped.status == 65 && mistyped.stderr.contains("checksum"), "mistyped recovery key: \(mistyped.stderr)")

        var share = try String(contentsOfFile: "\(out)/share-1-of-3.txt", encoding: .utf8)
        let valueRange = try #require(share.range(of: "value: "))
        let digit = share.index(valueRange.upperBound, offsetBy: 10)
        share.replaceSubrange(digit...digit, with: share[digit] == "a" ? "b" : "a")
        try fixture.write(share, to: fixture.root + "/altered")
        let altered = try Self.runReader(["--vault", fixture.directory, "--share-file", fixture.root + "/altered",
                                          "--share-file", "\(out)/share-2-of-3.txt"])
        #expect(altered.status == 65 && altered.stderr.contains("check"), "altered share: \(altered.stderr)")
        let one = try Self.runReader(["--vault", fixture.directory, "--share-file", "\(out)/share-2-of-3.txt"])
        #expect(one.status == 65 && one.stderr.contains("too-few-shares"), "one share of 2: \(one.stderr)")
    }

    // MARK: Helpers

    /// Four live compartments (two rotated, one of them with version 1 retired, two non-ASCII) and one
    /// destroyed; the NFD spelling of "Café" is refused as the same name as the NFC one.
    static func populate(_ fixture: CLIVault) throws {
        let commands: [[String]] = [
            ["compartment", "create", sessionNotes, "--register", "healthcare"],
            ["compartment", "create", nonASCII, "--register", "legal"],
            ["compartment", "create", "Blog", "--register", "marketing"],
            ["compartment", "create", cafeNFC, "--register", "general"],
            ["compartment", "create", "Newsletter", "--register", "marketing"],
            ["compartment", "rotate", sessionNotes],
            ["compartment", "rotate", "Blog"],
            ["compartment", "retire", "Blog", "--version", "1", "--yes"],
            ["compartment", "destroy", "Newsletter", "--yes"],
        ]
        for command in commands {
            let result = try fixture.run(command)
            try #require(result.status == 0, "vaultctl \(command.joined(separator: " ")): \(result.stderr)")
        }
        let sameName = try fixture.run(["compartment", "create", cafeNFD, "--register", "fiction"])
        try #require(sameName.status == 73, "the NFD spelling of an existing NFC name must be refused: \(sameName.stderr)")
    }

    /// What both implementations must agree on for one compartment, keyed by its uuid.
    struct Signature: Hashable, CustomStringConvertible {
        let nameUTF8: [UInt8]
        let register: String
        let privileged: Bool
        let keyVersions: [String]
        let createdAt: String

        var description: String {
            "\(String(decoding: nameUTF8, as: UTF8.self)) \(register) privileged=\(privileged) \(keyVersions) \(createdAt)"
        }
    }

    static func signatures(_ entries: [[String: Any]]) throws -> [String: Signature] {
        var result: [String: Signature] = [:]
        for entry in entries {
            let id = try #require(entry["id"] as? String, "id in \(entry)")
            let versions = try #require(entry["key_versions"] as? [[String: Any]], "key_versions in \(entry)").map { version in
                "\(version["version"] as? Int ?? -1):\((version["active"] as? Bool).map { $0 ? "active" : "retired" } ?? "?")"
            }
            result[id] = Signature(nameUTF8: Array(try #require(entry["name"] as? String, "name in \(entry)").utf8),
                                   register: try #require(entry["register"] as? String, "register in \(entry)"),
                                   privileged: try #require(entry["privileged"] as? Bool, "privileged in \(entry)"),
                                   keyVersions: versions,
                                   createdAt: try #require(entry["created_at"] as? String, "created_at in \(entry)"))
        }
        #expect(result.count == entries.count, "compartment ids are unique")
        return result
    }

    struct ReaderUnavailable: Error, CustomStringConvertible { let description: String }

    /// Fails (never skips) when the reader's Python modules are missing.
    static func requireReader() throws {
        let hint = "run `make test`, which installs the Debian packages python3-nacl and python3-argon2"
        let probe: CLI.Result
        do {
            probe = try run(python, ["-c", "import nacl.bindings, argon2.low_level"])
        } catch {
            Issue.record("cannot run \(python) for the independent implementation (\(error)): \(hint)")
            throw ReaderUnavailable(description: "no \(python)")
        }
        guard probe.status == 0 else {
            Issue.record("\(python) cannot import python3-nacl / python3-argon2 for testvectors/independent/vault_reader.py: \(hint). \(probe.stderr)")
            throw ReaderUnavailable(description: "python modules missing")
        }
    }

    static func runReader(_ arguments: [String]) throws -> CLI.Result {
        try run(python, [reader] + arguments)
    }

    /// Runs `executable` (a path, or a name looked up on PATH) with output captured in files.
    static func run(_ executable: String, _ arguments: [String]) throws -> CLI.Result {
        let process = Process()
        if executable.contains("/") {
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
        } else {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = [executable] + arguments
        }
        let base = NSTemporaryDirectory() + "vault-reader-\(UUID().uuidString)"
        FileManager.default.createFile(atPath: base + ".out", contents: nil)
        FileManager.default.createFile(atPath: base + ".err", contents: nil)
        defer {
            try? FileManager.default.removeItem(atPath: base + ".out")
            try? FileManager.default.removeItem(atPath: base + ".err")
        }
        process.standardOutput = FileHandle(forWritingAtPath: base + ".out")
        process.standardError = FileHandle(forWritingAtPath: base + ".err")
        process.standardInput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        let read = { (path: String) in String(decoding: FileManager.default.contents(atPath: path) ?? Data(), as: UTF8.self) }
        return CLI.Result(status: process.terminationStatus, stdout: read(base + ".out"), stderr: read(base + ".err"))
    }
}
