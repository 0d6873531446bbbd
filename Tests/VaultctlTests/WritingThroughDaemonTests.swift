import Foundation
import Testing
import TestSupport

/// Issue 15's command line through the daemon: while `vaultctl serve` runs, every writing command
/// that reads or changes a project runs in the daemon (SECURITY.md §10.8), so a privileged project is
/// read through the daemon's session of its compartment, with no passphrase and no --purpose; each
/// answers --json and says its labels in the project's register.
@Suite("vaultctl: the writing commands through the daemon", .serialized)
struct WritingThroughDaemonTests {
    typealias Fixture = DaemonCommandTests.Fixture

    /// The commands of issue 15's list (and the writing commands beside them) that need the vault.
    static let forwarded: Set<String> = [
        "project create", "project list", "project show", "project rename", "project archive", "project register",
        "doc add", "doc list", "doc show", "doc write", "doc move", "doc rm", "doc import",
        "history", "snapshot create", "snapshot list", "snapshot show", "snapshot restore", "snapshot diff",
        "branch create", "branch list", "branch show", "branch diff", "branch adopt", "branch discard", "branch revert",
        "search", "template use", "export", "activity", "project snapshot", "project versions", "project restore",
    ]

    @Test("in a healthcare project, with only the daemon's session: every writing command runs in the daemon, answers --json, and is recorded as a request")
    func everyWritingCommandRunsInTheDaemon() throws {
        let fixture = try Fixture()
        let vault = fixture.cli.vault
        try WritingCommandTests.intake(vault, purpose: ["--purpose", "write up the session"], text: "S: slept badly.\n\nP: review in a week.\n")
        _ = try fixture.serve()
        var ran: [String] = []
        /// Runs a command against the daemon (no credential, no --purpose) with --json, which must succeed and print JSON.
        func json(_ arguments: [String], stdin: String? = nil, sourceLocation: SourceLocation = #_sourceLocation) throws -> Any {
            let result = try vault.run(arguments + ["--json"], unlock: false, stdin: stdin)
            #expect(result.status == 0, "\(arguments.joined(separator: " ")): \(result.status) \(result.stderr)", sourceLocation: sourceLocation)
            let path = arguments.prefix(2).joined(separator: " ")
            ran.append(Self.forwarded.contains(path) ? path : arguments[0])
            return try JSONSerialization.jsonObject(with: Data(result.stdout.utf8))
        }
        let projects = try #require(try json(["project", "list"]) as? [[String: Any]])
        let id = try #require(projects.first?["id"] as? String)
        #expect(try fixture.client(["session", "start", "--compartment", "project \(id)", "--purpose", "review the notes"]).status == 0)

        _ = try json(["project", "show", id])
        _ = try json(["project", "rename", id, "Intake notes"])
        _ = try json(["doc", "add", id, "Session 2"])
        _ = try json(["doc", "write", id, "Session 2"], stdin: "S: better.\n")
        _ = try json(["doc", "move", id, "Session 2", "--top", "--before", "Session 1"])
        _ = try json(["doc", "import", id, "Imported", "-", "--format", "md"], stdin: "# Referral\n\nTo the *sleep* clinic.\n")
        let listed = try #require(try json(["doc", "list", id]) as? [[String: Any]])
        #expect(listed.compactMap { $0["label"] as? String } == ["note", "note", "note"], "\(listed)")
        _ = try json(["doc", "show", id, "Session 1"])
        _ = try json(["doc", "rm", id, "Imported", "--yes"])
        _ = try json(["snapshot", "create", id, "Session 1", "--title", "Signed"])
        _ = try json(["snapshot", "list", id, "Session 1"])
        _ = try json(["snapshot", "show", id, "Session 1", "1"])
        _ = try json(["doc", "write", id, "Session 1"], stdin: "S: slept badly.\n\nP: review in two weeks.\n")
        _ = try json(["snapshot", "diff", id, "Session 1", "1"])
        _ = try json(["snapshot", "restore", id, "Session 1", "1"])
        _ = try json(["history", id, "Session 1"])
        _ = try json(["branch", "create", id, "Session 1", "--by", "supervisor"], stdin: "S: slept badly.\n\nP: review tomorrow.\n")
        _ = try json(["branch", "list", id, "Session 1"])
        _ = try json(["branch", "show", id, "Session 1", "1"])
        _ = try json(["branch", "diff", id, "Session 1", "1"])
        _ = try json(["branch", "adopt", id, "Session 1", "1"])
        _ = try json(["branch", "revert", id, "Session 1", "1"])
        _ = try json(["branch", "create", id, "Session 1"], stdin: "S: slept well.\n")
        _ = try json(["branch", "discard", id, "Session 1", "2"])
        _ = try json(["search", id, "review"])
        _ = try json(["template", "use", id, "soap-note", "--title", "Session 3"])
        _ = try json(["export", id, "--format", "md", "-o", fixture.cli.file("notes.md")])
        _ = try json(["activity", id])
        _ = try json(["project", "snapshot", id, "--title", "Week one"])
        _ = try json(["project", "versions", id])
        _ = try json(["project", "restore", id, "1"])
        _ = try json(["project", "register", id, "healthcare"])
        _ = try json(["project", "create", "Old files", "--register", "general"])
        _ = try json(["project", "archive", "Old files"])
        // The register's words through the daemon: a healthcare project's branches are suggested changes.
        let branches = try fixture.client(["branch", "list", id, "Session 1"])
        #expect(branches.stdout.hasPrefix("2 suggested changes of Session 1\n"), "\(branches.stdout) \(branches.stderr)")
        let versions = try fixture.client(["project", "versions", id])
        #expect(versions.stdout.hasPrefix("2 chart versions\n"), "\(versions.stdout) \(versions.stderr)")
        _ = try fixture.stopDaemon()

        #expect(Set(ran) == Self.forwarded, "not run: \(Self.forwarded.subtracting(ran))")
        let requests = try fixture.auditEntries().filter { $0["action"] as? String == "appliance.request" }
            .compactMap { ($0["details"] as? [String: String])?["request"] }
        let commands = Set(requests.filter { $0.hasPrefix("command ") }.map { String($0.dropFirst("command ".count)) })
        #expect(commands == Self.forwarded, "not through the daemon: \(Self.forwarded.subtracting(commands))")
    }

    @Test("lexicon and template list need no vault: they answer --json while the daemon runs, without it and without a passphrase")
    func registerCommandsNeedNoVault() throws {
        let fixture = try Fixture()
        _ = try fixture.serve()
        for arguments in [["lexicon", "--register", "legal"], ["template", "list", "--register", "legal"]] {
            let result = try fixture.client(arguments + ["--json"])
            #expect(result.status == 0, "\(result.stderr)")
            #expect((try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8))) is [[String: Any]], "\(result.stdout)")
        }
        _ = try fixture.stopDaemon()
        let requests = try fixture.auditEntries().filter { $0["action"] as? String == "appliance.request" }
        #expect(requests.isEmpty, "they ran in their own process: \(requests)")
    }
}
