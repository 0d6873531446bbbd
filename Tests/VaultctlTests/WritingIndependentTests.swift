import CryptoVault
import Foundation
import Testing
import TestSupport
import Writing

/// testvectors/independent/writing_reader.py, written from SECURITY.md §14 alone, reads a vault
/// vaultctl wrote: it lists the projects (a privileged one too, from the passphrase alone), a
/// project's binder in reading order after a move, and prints a document as `doc show` does; and
/// from SECURITY.md §15.2-15.3, a document's snapshots and branches.
@Suite("The independent writing reader agrees with vaultctl", .serialized)
struct WritingIndependentTests {
    static let reader = IndependentImplementationTests.repositoryRoot
        .appendingPathComponent("testvectors/independent/writing_reader.py").path

    static func read(_ fixture: CLIVault, _ arguments: [String]) throws -> CLI.Result {
        try IndependentImplementationTests.run(IndependentImplementationTests.python,
                                               [reader, "--vault", fixture.directory, "--passphrase-file", fixture.passphraseFile] + arguments)
    }

    /// A vault with project Harbour holding an empty document Arrival.
    static func harbour() throws -> CLIVault {
        let fixture = try CLIVault()
        for command in [["project", "create", "Harbour", "--register", "fiction"], ["doc", "add", "Harbour", "Arrival"]] {
            try #require(try fixture.run(command).status == 0)
        }
        return fixture
    }

    @Test("projects, the binder and a document, from the vault files and the passphrase alone")
    func readsWhatVaultctlWrote() throws {
        try IndependentImplementationTests.requireReader()
        let fixture = try CLIVault()
        let purpose = ["--purpose", "independent reader test"]
        let text = "# Memo\n\n## Question presented\n\nWhether the clause binds.\nSecond line.\n\n- first\n- second\n\n> « quoted »\n"
        for command in [
            ["project", "create", "Smith v. Jones", "--register", "legal"],
            ["project", "create", "Harbour", "--register", "fiction", "--kind", "long-form"],
            ["doc", "add", "Smith v. Jones", "Facts", "--folder"] + purpose,
            ["doc", "add", "Smith v. Jones", "Memo", "--in", "Facts"] + purpose,
            ["doc", "add", "Smith v. Jones", "Letter"] + purpose,
            ["doc", "move", "Smith v. Jones", "Letter", "--in", "Facts", "--before", "Memo"] + purpose,
        ] {
            let result = try fixture.run(command)
            try #require(result.status == 0, "\(command): \(result.stderr)")
        }
        let written = try fixture.run(["doc", "write", "Smith v. Jones", "Memo"] + purpose, stdin: text)
        try #require(written.status == 0, "\(written.stderr)")

        let projects = try Self.read(fixture, [])
        #expect(projects.status == 0, "\(projects.stderr)")
        let lines = projects.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 2 && lines[0].hasSuffix("legal  document  Smith v. Jones privileged")
                && lines[1].hasSuffix("fiction  long-form  Harbour"), "\(projects.stdout)")

        let binder = try Self.read(fixture, ["--project", "Smith v. Jones"])
        let vaultctl = try fixture.run(["doc", "list", "Smith v. Jones", "--json"] + purpose)
        let nodes = try #require(try JSONSerialization.jsonObject(with: Data(vaultctl.stdout.utf8)) as? [[String: Any]])
        let expected = nodes.map { node in
            "\(node["id"]!)  \((node["kind"] as! String).padding(toLength: 7, withPad: " ", startingAt: 0)) "
                + String(repeating: "  ", count: (node["depth"] as! Int) - 1) + (node["title"] as! String)
        }
        #expect(binder.stdout.split(separator: "\n").map(String.init) == expected, "\(binder.stdout) \(binder.stderr)")
        #expect(nodes.map { $0["title"] as? String } == ["Facts", "Letter", "Memo"])

        let document = try Self.read(fixture, ["--project", "Smith v. Jones", "--document", "Memo"])
        #expect(document.status == 0 && document.stdout == text, "\(document.stdout) \(document.stderr)")
        let shown = try fixture.run(["doc", "show", "Smith v. Jones", "Memo"] + purpose)
        #expect(shown.stdout == document.stdout)
    }

    @Test("snapshots (a keyframe and a group of deltas) and branches, listed and printed from the vault files and the passphrase alone (§15.2, §15.3)")
    func readsVersionsVaultctlWrote() throws {
        try IndependentImplementationTests.requireReader()
        let fixture = try Self.harbour()
        let versions = ["# Arrival\n\nThe boat came in.\n", "# Arrival\n\nThe boat came in late.\n\n- rope\n", "# Arrival\n\nIt rained « hard ».\n\n- rope\n"]
        for (index, text) in versions.enumerated() {
            try #require(try fixture.run(["doc", "write", "Harbour", "Arrival"], stdin: text).status == 0)
            try #require(try fixture.run(["snapshot", "create", "Harbour", "Arrival"] + (index == 0 ? ["--title", "First draft"] : [])).status == 0)
        }
        let proposal = "# Arrival\n\nIt rained.\n"
        let created = try fixture.run(["branch", "create", "Harbour", "Arrival", "--by", "an editor", "--json"], stdin: proposal)
        let branchID = try #require((try JSONSerialization.jsonObject(with: Data(created.stdout.utf8)) as? [String: Any])?["id"] as? String,
                                    "\(created.stderr)")
        let listed = try #require(try JSONSerialization.jsonObject(with: Data(try fixture.run(["snapshot", "list", "Harbour", "Arrival", "--json"]).stdout.utf8))
                                  as? [[String: Any]])
        let snapshots = try Self.read(fixture, ["--project", "Harbour", "--document", "Arrival", "--snapshots"])
        let lines = snapshots.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 3 && lines.map { String($0.prefix(32)) } == listed.map { $0["id"] as? String ?? "" }, "\(snapshots.stdout) \(snapshots.stderr)")
        #expect(lines.first?.hasSuffix("  1  keyframe titled  First draft") == true && lines.dropFirst().first?.hasSuffix("  2  group    automatic") == true
                && lines.last?.hasSuffix("  3  grouped  automatic") == true,
                "\(snapshots.stdout)")
        for (index, text) in versions.enumerated() {
            let shown = try Self.read(fixture, ["--project", "Harbour", "--document", "Arrival", "--snapshot", "\(index + 1)"])
            #expect(shown.status == 0 && shown.stdout == text, "version \(index + 1): \(shown.stdout) \(shown.stderr)")
        }
        let branches = try Self.read(fixture, ["--project", "Harbour", "--document", "Arrival", "--branches"])
        #expect(branches.stdout == "\(branchID)  manual  open  \(listed.last?["id"] as? String ?? "")  an editor\n", "\(branches.stdout) \(branches.stderr)")
        let branch = try Self.read(fixture, ["--project", "Harbour", "--document", "Arrival", "--branch", branchID])
        #expect(branch.status == 0 && branch.stdout == proposal, "\(branch.stdout) \(branch.stderr)")
        // A delta's row moved onto another place in the chain is refused by the reader as damage.
        try Database(path: fixture.directory + "/" + Vault.databaseName, create: false)
            .execute("UPDATE writing_snapshots SET sequence = sequence + 10 WHERE sequence = 2")
        let moved = try Self.read(fixture, ["--project", "Harbour", "--document", "Arrival", "--snapshot", "3"])
        #expect(moved.status == 65 && moved.stderr.contains("chain"), "\(moved.status) \(moved.stderr)")
    }

    @Test("a block whose clear kind was edited in the file is refused as damage by both readers (the kind is sealed too)")
    func editedKindIsRefusedByBoth() throws {
        try IndependentImplementationTests.requireReader()
        let fixture = try Self.harbour()
        try #require(try fixture.run(["doc", "write", "Harbour", "Arrival"], stdin: "It rained.\n").status == 0)
        try Database(path: fixture.directory + "/" + Vault.databaseName, create: false)
            .execute("UPDATE writing_blocks SET kind = 'quote' WHERE kind = 'paragraph'")
        let python = try Self.read(fixture, ["--project", "Harbour", "--document", "Arrival"])
        #expect(python.status == 65 && python.stderr.contains("clear kind"), "\(python.status) \(python.stderr)")
        let swift = try fixture.run(["doc", "show", "Harbour", "Arrival"])
        #expect(swift.status == 65 && swift.stderr.contains("clear kind"), "\(swift.status) \(swift.stderr)")
    }

    @Test("a sync conflict's branch of one block (record version 2, a delta from its base) is read as its whole proposal, as `branch show` prints it (§15.3)")
    func readsAOneBlockBranch() throws {
        try IndependentImplementationTests.requireReader()
        let fixture = try Self.harbour()
        try #require(try fixture.run(["doc", "write", "Harbour", "Arrival"], stdin: "The boat came in.\n\nIt rained.\n\nThe quay was empty.\n").status == 0)
        let unlocked = try SyncOverNetworkFixture.open(fixture)
        defer { try? unlocked.vault.finishCommand() }
        let branch = try unlocked.transaction { tx in
            let store = WritingStore(tx)
            let project = try #require(try store.projects().first)
            let document = try #require(try store.nodes(in: project.id).first { $0.title == "Arrival" })
            let base = try store.createSnapshot(of: document.id, in: project.id)
            var blocks = try store.documentContent(of: document.id, in: project.id).blocks
            blocks[1].text = "It poured."
            return try store.createBranch(of: document.id, in: project.id, base: base.id, content: DocumentContent(blocks: blocks),
                                          kind: .syncConflict, provenance: WritingStore.conflictProvenance + blocks[1].id.hex, block: blocks[1].id)
        }
        let read = try Self.read(fixture, ["--project", "Harbour", "--document", "Arrival", "--branch", branch.id.hex])
        #expect(read.status == 0 && read.stdout == "The boat came in.\n\nIt poured.\n\nThe quay was empty.\n", "\(read.stdout) \(read.stderr)")
        #expect(read.stdout == (try fixture.run(["branch", "show", "Harbour", "Arrival", "1"]).stdout))
    }
}
