import Foundation
import Testing

/// `open` and `get` of a privileged compartment's bundle: refused without a session (exit 77, nothing
/// written), read in a one-command session with --purpose, and accounted for in the audit log.
@Suite("vaultctl: privileged bundles are read only in a session")
struct PrivilegedReadTests {
    private final class Fixture {
        let cli: BundleCLI
        let bundleID: String
        let plaintext: String

        init() throws {
            cli = try BundleCLI()
            let created = try cli.run(["compartment", "create", "chart", "--register", "healthcare"])
            guard created.status == 0 else { throw CLIError(message: created.stderr) }
            plaintext = try cli.randomFile("visit.txt", count: 100_000)
            let put = try cli.run(["put", "--compartment", "chart", plaintext])
            guard put.status == 0 else { throw CLIError(message: put.stderr) }
            bundleID = put.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }

        func actions() throws -> [String] {
            let log = try cli.run(["audit", "log", "--json"])
            let entries = try JSONSerialization.jsonObject(with: Data(log.stdout.utf8)) as? [[String: Any]] ?? []
            return entries.compactMap { $0["action"] as? String }
        }
    }

    @Test("get and open without --purpose exit 77, say why and how, and write nothing")
    func refusedWithoutPurpose() throws {
        let fixture = try Fixture()
        let cli = fixture.cli
        let got = try cli.run(["get", fixture.bundleID, "-o", cli.file("out.txt")])
        #expect(got.status == 77)
        #expect(got.stderr.contains("compartment 'chart' is privileged") && got.stderr.contains("--purpose"), "\(got.stderr)")
        #expect(!FileManager.default.fileExists(atPath: cli.file("out.txt")))

        let sealed = try cli.run(["seal", "--compartment", "chart", fixture.plaintext, "-o", cli.file("visit.vbundle")])
        #expect(sealed.status == 0, "\(sealed.stderr)")
        let opened = try cli.run(["open", cli.file("visit.vbundle")])
        #expect(opened.status == 77 && opened.stdout.isEmpty, "\(opened.stderr)")
        #expect(!(try fixture.actions()).contains("session.start"))
    }

    @Test("with --purpose, get and open read the whole bundle or a range in a recorded one-command session")
    func oneCommandSession() throws {
        let fixture = try Fixture()
        let cli = fixture.cli
        let got = try cli.run(["get", fixture.bundleID, "--purpose", "follow-up letter", "-o", cli.file("out.txt")])
        #expect(got.status == 0, "\(got.stderr)")
        #expect(try cli.bytes("out.txt") == cli.bytes("visit.txt"))

        _ = try cli.run(["seal", "--compartment", "chart", fixture.plaintext, "-o", cli.file("visit.vbundle")])
        let range = try cli.runCapturingBytes(["open", cli.file("visit.vbundle"), "--range", "10:20", "--purpose", "check one line", "-o", "-"])
        #expect(range.status == 0, "\(range.stderr)")
        #expect(range.stdout == Array(try cli.bytes("visit.txt")[10..<20]))

        let actions = try fixture.actions()
        let sessionActions = actions.filter { $0.hasPrefix("session.") }
        #expect(sessionActions == ["session.start", "session.read", "session.end", "session.start", "session.read", "session.end"])
        #expect(!actions.contains("bundle.get") && !actions.contains("bundle.open"), "a privileged read is recorded as the session's")
    }

    @Test("ls --purpose shows a privileged bundle's name, in a session that records the read of the name")
    func listingInASession() throws {
        let fixture = try Fixture()
        let listed = try fixture.cli.run(["ls", "--purpose", "find the visit notes"])
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(listed.stdout.contains("\(fixture.bundleID)  chart") && listed.stdout.contains("visit.txt"), "\(listed.stdout)")
        #expect(!listed.stdout.contains("(privileged)"), "\(listed.stdout)")
        #expect(try fixture.actions().filter { $0.hasPrefix("session.") } == ["session.start", "session.read", "session.end"])
        let empty = try fixture.cli.run(["ls", "--purpose", " "])
        #expect(empty.status == 64 && empty.stderr.contains("purpose is empty"), "\(empty.stderr)")
    }

    @Test("ls hides a privileged bundle's name; an empty purpose is a usage error")
    func listingAndUsage() throws {
        let fixture = try Fixture()
        let listed = try fixture.cli.run(["ls"])
        #expect(listed.status == 0 && listed.stdout.contains("(privileged)") && !listed.stdout.contains("visit.txt"), "\(listed.stdout)")
        let empty = try fixture.cli.run(["get", fixture.bundleID, "--purpose", " ", "-o", fixture.cli.file("out.txt")])
        #expect(empty.status == 64 && empty.stderr.contains("purpose is empty"), "\(empty.stderr)")
        #expect(!FileManager.default.fileExists(atPath: fixture.cli.file("out.txt")))
    }
}
