import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `audit log --details` and privileged compartments (issue 13, SECURITY.md §10): a privileged
/// entry's details (its file name, a session's purpose) are opened only inside a session of its
/// compartment, the daemon's or a one-command one; outside one they print as withheld.
@Suite("audit log --details withholds privileged details outside a session", .serialized)
struct AuditDetailsPrivacyTests {
    static let secretName = "JaneRoe-HIV-result.pdf"

    final class Fixture {
        let daemon: DaemonCommandTests.Fixture
        var cli: BundleCLI { daemon.cli }

        init() throws {
            daemon = try DaemonCommandTests.Fixture()
            try cli.write(Array("result: negative".utf8), to: AuditDetailsPrivacyTests.secretName)
            let put = try cli.run(["put", "--compartment", "chart", cli.file(AuditDetailsPrivacyTests.secretName)])
            guard put.status == 0 else { throw CLIError(message: put.stderr) }
            try cli.write(Array("newsletter".utf8), to: "newsletter.txt")
            guard try cli.run(["put", "--compartment", "files", cli.file("newsletter.txt")]).status == 0 else {
                throw CLIError(message: "put into files failed")
            }
        }

        func log(_ extra: [String] = []) throws -> (result: CLI.Result, rows: [[String: Any]]) {
            let result = try cli.run(["audit", "log", "--details", "--json"] + extra)
            let rows = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]] ?? []
            return (result, rows)
        }

        static func puts(_ rows: [[String: Any]], in compartment: String) -> [[String: Any]] {
            rows.filter { $0["action"] as? String == "bundle.put" && $0["compartment"] as? String == compartment }
        }
    }

    @Test("with no session, a privileged put's details are withheld (no file name anywhere in the output); an ordinary one's are shown")
    func withheldWithoutASession() throws {
        let fixture = try Fixture()
        let (result, rows) = try fixture.log()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.stdout.contains(Self.secretName))
        let privileged = Fixture.puts(rows, in: "chart")
        #expect(privileged.count == 2 && privileged.allSatisfy { $0["details"] == nil && $0["details_withheld"] as? Bool == true }, "\(privileged)")
        let ordinary = Fixture.puts(rows, in: "files")
        #expect((ordinary.first?["details"] as? [String: String])?["file"] == "newsletter.txt", "\(ordinary)")
        let text = try fixture.cli.run(["audit", "log", "--details"])
        #expect(text.status == 0 && !text.stdout.contains(Self.secretName) && text.stdout.contains("details withheld"), "\(text.stdout)")
        let usage = try fixture.cli.run(["audit", "log", "--purpose", "no details asked"])
        #expect(usage.status == 64 && usage.stderr.contains("needs --details"), "\(usage.stderr)")
    }

    @Test("--purpose opens them in a one-command session, recorded as session.start (with the purpose) and session.end")
    func openedWithAPurpose() throws {
        let fixture = try Fixture()
        let (result, rows) = try fixture.log(["--purpose", "quarterly audit"])
        #expect(result.status == 0, "\(result.stderr)")
        let files = Fixture.puts(rows, in: "chart").compactMap { ($0["details"] as? [String: String])?["file"] }
        #expect(files.contains(Self.secretName), "\(rows)")
        let (_, later) = try fixture.log(["--purpose", "second look", "--compartment", "chart"])
        let purposes = later.filter { $0["action"] as? String == "session.start" }.compactMap { ($0["details"] as? [String: String])?["purpose"] }
        #expect(purposes == ["quarterly audit", "second look"], "\(purposes)")
        #expect(later.filter { $0["action"] as? String == "session.end" }.count == 1, "the first listing's session ended")
    }

    @Test("while the daemon holds a session of the compartment its details are shown; before the session, and after it ends, withheld")
    func openedByTheDaemonsSession() throws {
        let fixture = try Fixture()
        _ = try fixture.daemon.serve()
        let before = try fixture.log()
        #expect(before.result.status == 0 && !before.result.stdout.contains(Self.secretName), "\(before.result.stderr)")
        let started = try fixture.daemon.client(["session", "start", "--compartment", "chart", "--purpose", "letter"])
        #expect(started.status == 0, "\(started.stderr)")
        let during = try fixture.log()
        #expect(during.result.stdout.contains(Self.secretName), "\(during.result.stderr)")
        #expect(try fixture.daemon.client(["session", "end", "all"]).status == 0)
        let after = try fixture.log()
        #expect(!after.result.stdout.contains(Self.secretName))
        #expect(try fixture.daemon.stopDaemon().status == 0)
    }
}
