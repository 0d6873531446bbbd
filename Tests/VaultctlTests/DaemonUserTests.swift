import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The daemon answers only its owner. Needs root, to run processes as another user (`nobody`
/// through util-linux setpriv); elsewhere the kernel-credential check is covered by
/// ApplianceTests' LocalServerTests, which make the server believe it belongs to another uid.
@Suite("vaultctl serve: other users are refused", .serialized,
       .enabled(if: getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"), "needs root and setpriv"))
struct DaemonUserTests {
    static let nobody: uid_t = 65534

    /// A world-readable folder holding a copy of vaultctl that `nobody` can run.
    final class SharedFolder {
        let root: String
        let binary: String

        init() throws {
            root = NSTemporaryDirectory() + "vaultctl-users-\(UUID().uuidString)"
            try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
            binary = root + "/vaultctl"
            try FileManager.default.copyItem(atPath: CLI.binary, toPath: binary)
            chmod(binary, 0o755)
        }

        deinit { try? FileManager.default.removeItem(atPath: root) }

        /// A folder owned by `nobody`, with a passphrase file in it.
        func nobodyFolder() throws -> String {
            let folder = root + "/nobody"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            try Data((CLIVault.passphrase + "\n").utf8).write(to: URL(fileURLWithPath: folder + "/passphrase"))
            for path in [folder, folder + "/passphrase"] { chown(path, DaemonUserTests.nobody, gid_t(DaemonUserTests.nobody)) }
            return folder
        }

        func startAsNobody(_ arguments: [String]) throws -> CLI.Running {
            try CLI.start(["--reuid=\(nobody)", "--regid=\(nobody)", "--clear-groups", binary] + arguments, executable: "/usr/bin/setpriv")
        }

        func runAsNobody(_ arguments: [String]) throws -> CLI.Result {
            let running = try startAsNobody(arguments)
            running.process.waitUntilExit()
            return running.result()
        }
    }

    @Test("a root client of nobody's daemon is refused by its kernel credentials, and the refusal is audited")
    func credentialsAreChecked() throws {
        let shared = try SharedFolder()
        let folder = try shared.nobodyFolder()
        let vault = ["--vault", folder + "/vault"]
        let created = try shared.runAsNobody(["init"] + vault + ["--passphrase-file", folder + "/passphrase"] + CLI.fastKDF)
        #expect(created.status == 0, "\(created.stderr)")
        let daemon = try shared.startAsNobody(["serve"] + vault + ["--passphrase-file", folder + "/passphrase"])
        defer { if daemon.process.isRunning { kill(daemon.process.processIdentifier, SIGKILL) } }
        try DaemonCommandTests.Fixture.waitForListening(daemon)

        // Root passes the socket's file permissions; only the credential check stops it.
        let refused = try CLI.run(["session", "list"] + vault)
        #expect(refused.status == 77, "\(refused.stderr)")
        #expect(refused.stderr.contains("serves only its owner (uid \(Self.nobody)); you are uid 0"), "\(refused.stderr)")
        let owner = try shared.runAsNobody(["session", "list"] + vault)
        #expect(owner.status == 0 && owner.stdout.contains("No live sessions."), "\(owner.stderr)")

        kill(daemon.process.processIdentifier, SIGTERM)
        daemon.process.waitUntilExit()
        let log = try shared.runAsNobody(["audit", "log", "--json", "--details"] + vault + ["--passphrase-file", folder + "/passphrase"])
        let entries = try JSONSerialization.jsonObject(with: Data(log.stdout.utf8)) as? [[String: Any]] ?? []
        let refusals = entries.filter { $0["action"] as? String == "daemon.refused" }
        #expect(refusals.count == 1, "\(entries)")
        #expect((refusals.first?["details"] as? [String: String])?["uid"] == "0", "\(refusals)")
    }

    @Test("another user cannot even connect to the owner's socket: it is mode 0600")
    func socketModeKeepsOthersOut() throws {
        let shared = try SharedFolder()
        let fixture = try DaemonCommandTests.Fixture()
        // The socket in a folder everyone can enter, so that only the socket's own mode protects it.
        let socket = shared.root + "/daemon.sock"
        _ = try fixture.serve(["--socket", socket])
        let outsider = try shared.runAsNobody(["session", "list", "--vault", fixture.cli.directory, "--socket", socket])
        #expect(outsider.status == 77, "\(outsider.stderr)")
        #expect(outsider.stderr.contains("belongs to another user"), "\(outsider.stderr)")
        let owner = try fixture.client(["session", "list", "--socket", socket])
        #expect(owner.status == 0, "\(owner.stderr)")
        _ = try fixture.stopDaemon()
    }
}
