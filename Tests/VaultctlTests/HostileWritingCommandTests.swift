import Appliance
import AuditChain
@testable import CryptoVault
import Foundation
import Testing
import TestSupport

/// Issue 15's hostile input through the command line (the library's cases are
/// Tests/WritingTests/HostileWritingInputTests): a 100 MB document, invalid UTF-8, a folder moved
/// under itself, and ids of another project's document, snapshot and branch given to this project's
/// commands. Each is refused with its exit code and its reason, and changes nothing: the audit log
/// gains only the unlock and the reads every command records (no write, seal or removal), and both
/// projects list and show what they did.
@Suite("vaultctl: hostile writing input is refused and changes nothing", .serialized)
struct HostileWritingCommandTests {
    /// Project Harbour (folder One holding folder Inner, document Arrival) and project Other
    /// (document Elsewhere with a snapshot and an open branch).
    final class Setting {
        let vault: CLIVault
        let elsewhere: String, snapshot: String, branch: String

        init() throws {
            vault = try CLIVault()
            for command in [["project", "create", "Harbour", "--register", "fiction"], ["project", "create", "Other", "--register", "fiction"],
                            ["doc", "add", "Harbour", "One", "--folder"], ["doc", "add", "Harbour", "Inner", "--folder", "--in", "One"],
                            ["doc", "add", "Harbour", "Arrival", "--in", "One"]] {
                try Self.ok(vault, command)
            }
            try Self.ok(vault, ["doc", "write", "Harbour", "Arrival"], stdin: "Kept.\n")
            elsewhere = try Self.id(try Self.ok(vault, ["doc", "add", "Other", "Elsewhere", "--json"]))
            try Self.ok(vault, ["doc", "write", "Other", "Elsewhere"], stdin: "Theirs.\n")
            snapshot = try Self.id(try Self.ok(vault, ["snapshot", "create", "Other", "Elsewhere", "--json"]))
            branch = try Self.id(try Self.ok(vault, ["branch", "create", "Other", "Elsewhere", "--json"], stdin: "Proposed.\n"))
        }

        @discardableResult
        static func ok(_ vault: CLIVault, _ arguments: [String], stdin: String? = nil) throws -> String {
            let result = try vault.run(arguments, stdin: stdin)
            guard result.status == 0 else { throw CLIError(message: "\(arguments.joined(separator: " ")): \(result.stderr)") }
            return result.stdout
        }

        static func id(_ json: String) throws -> String {
            guard let object = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any], let id = object["id"] as? String else {
                throw CLIError(message: "no id in \(json)")
            }
            return id
        }

        static let reads: Set<Substring> = ["vault.unlock", "record.open"]

        /// The audit log's entries, as sequence number and action.
        func auditEntries() throws -> [String] {
            let opened = try Vault.open(at: vault.directory, journal: RecordingJournal(), modules: VaultModules.all)
            return try AuditLogReader(vault: opened).entries().map { "\($0.seq) \($0.action)" }
        }

        /// Both projects' binders, texts and branches, as vaultctl prints them.
        func projects() throws -> [String] {
            try [["doc", "list", "Harbour", "--json"], ["doc", "list", "Other", "--json"], ["doc", "show", "Harbour", "Arrival"],
                 ["doc", "show", "Other", "Elsewhere"], ["branch", "list", "Other", "Elsewhere", "--json"]].map { try Self.ok(vault, $0) }
        }

        /// Runs the command, expects exit `status` with `reason` in its message, no audit entry but
        /// reads added, and both projects as they were.
        func expectRefused(_ arguments: [String], status: Int32, reason: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
            let projectsBefore = try projects()
            let entriesBefore = try auditEntries()
            let result = try vault.run(arguments)
            #expect(result.status == status && result.stderr.contains(reason), "\(arguments): \(result.status) \(result.stderr)",
                    sourceLocation: sourceLocation)
            // Unlocking and every record opened are audited whatever the command then does (the
            // project's name and titles are read to find what it names); nothing else may be.
            let added = try auditEntries().dropFirst(entriesBefore.count).filter { !Self.reads.contains($0.split(separator: " ")[1]) }
            #expect(added.isEmpty, "\(arguments) recorded \(Array(added))", sourceLocation: sourceLocation)
            #expect(try projects() == projectsBefore, "\(arguments) changed a project", sourceLocation: sourceLocation)
        }
    }
    @Test("a 100 MB document and invalid UTF-8 given to doc write are refused as bad data (65)")
    func hostileText() throws {
        let setting = try Setting()
        let big = setting.vault.root + "/big.txt"
        FileManager.default.createFile(atPath: big, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: big))
        let megabyte = Data(String(repeating: "word ", count: 1 << 18).utf8.prefix(1 << 20))
        for _ in 0..<100 { handle.write(megabyte) }
        try handle.close()
        try setting.expectRefused(["doc", "write", "Harbour", "Arrival", big], status: 65, reason: "the most one text may hold")
        try FileManager.default.removeItem(atPath: big)
        try Data([0x4B, 0x65, 0xC3, 0x28, 0x0A]).write(to: URL(fileURLWithPath: setting.vault.root + "/bad.txt"))
        try setting.expectRefused(["doc", "write", "Harbour", "Arrival", setting.vault.root + "/bad.txt"], status: 65, reason: "not valid UTF-8")
    }

    @Test("a folder moved under itself or its own descendant is refused (64)")
    func moveUnderItself() throws {
        let setting = try Setting()
        try setting.expectRefused(["doc", "move", "Harbour", "One", "--in", "One"], status: 64, reason: "cannot move under itself")
        try setting.expectRefused(["doc", "move", "Harbour", "One", "--in", "Inner"], status: 64, reason: "cannot move under itself")
    }

    @Test("another project's document, snapshot or branch id given to this project's commands is refused, naming the other project")
    func idsFromAnotherProject() throws {
        let setting = try Setting()
        for command in [["doc", "show", "Harbour", setting.elsewhere], ["doc", "move", "Harbour", setting.elsewhere, "--in", "One"],
                        ["doc", "rm", "Harbour", setting.elsewhere, "--yes"], ["doc", "move", "Harbour", "Arrival", "--in", setting.elsewhere]] {
            try setting.expectRefused(command, status: 64, reason: "another manuscript")
        }
        try setting.expectRefused(["snapshot", "restore", "Harbour", "Arrival", setting.snapshot], status: 64, reason: "another manuscript")
        for verb in ["adopt", "discard", "show"] {
            try setting.expectRefused(["branch", verb, "Harbour", "Arrival", setting.branch], status: 64, reason: "another manuscript")
        }
    }
}
