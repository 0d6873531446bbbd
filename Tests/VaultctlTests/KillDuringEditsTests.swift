import Appliance
import AuditChain
@testable import CryptoVault
import Foundation
import Testing
import TestSupport
import Writing

/// kill -9 at random moments of a stream of edits (issue 15's robustness): a shell loop writes one
/// document again and again with `vaultctl doc write`, printing `ack N` after each write that exited
/// 0 (exit 0 promises the edit is durable). Each round kills the loop and the vaultctl in flight at a
/// random moment up to three writes long, so kills land before, inside and after a write's
/// transaction, and between the commit and its acknowledgement. Afterwards, in this process, the
/// vault opens, the document is the last acknowledged edit or the one in flight after it (never an
/// older one, never a mix of two), every acknowledged edit's audit entry is in the log, and the log
/// verifies. Each round's edits are whole documents of four blocks, one of them never changing, so
/// a torn write would show as blocks of two edits.
@Suite("vaultctl: kill -9 during a stream of doc writes", .serialized)
struct KillDuringEditsTests {
    static let rounds = 200
    /// More than a round's kill window holds, so the loop never runs out before it is killed.
    static let editsPerRound = 12

    @Test("kill -9 at random moments of a stream of doc writes, 200 rounds: every acknowledged edit survives whole and the audit log verifies")
    func everyAcknowledgedEditSurvives() throws {
        let fixture = try CLIVault()
        let document = try StreamedDocument(fixture)
        let writeDuration = try document.typicalWriteDuration()
        var latest = EditMark(round: 0, edit: 0)
        var tally = (acknowledged: 1, roundsWithoutAck: 0, inFlightLanded: 0)
        for round in 1...Self.rounds {
            let stream = try EditStream(fixture, document, round: round, edits: Self.editsPerRound)
            usleep(UInt32.random(in: 0...UInt32(writeDuration * 3 * 1_000_000)))
            let acknowledged = try stream.killAndCountAcknowledgements()
            try #require(acknowledged < Self.editsPerRound, "round \(round): the loop ran out of edits before the kill")
            let floor = acknowledged > 0 ? EditMark(round: round, edit: acknowledged) : latest
            let found = try document.currentMark(candidates: [latest] + (1...(acknowledged + 1)).map { EditMark(round: round, edit: $0) })
            let mark = try #require(found, "round \(round): the document is none of the edits it could be (\(acknowledged) acknowledged)")
            #expect(mark >= floor, "round \(round): edit \(floor) was acknowledged, the document is \(mark)")
            tally.acknowledged += acknowledged
            if acknowledged == 0 { tally.roundsWithoutAck += 1 }
            if mark > floor { tally.inFlightLanded += 1 }
            latest = mark
            let writes = try document.verifiedAuditLog()
            #expect(writes >= tally.acknowledged, "round \(round): \(tally.acknowledged) writes acknowledged, \(writes) in the audit log")
        }
        print("KillDuringEdits: \(Self.rounds) rounds, write \(writeDuration) s, \(tally.acknowledged) edits acknowledged, "
              + "\(tally.roundsWithoutAck) rounds killed before any acknowledgement, \(tally.inFlightLanded) kills after a commit but before its acknowledgement")
        // Kills landed both before the first acknowledgement and after some, or they were not at random moments.
        #expect(tally.roundsWithoutAck > 0 && tally.acknowledged > Self.rounds / 2, "\(tally)")
    }
}

/// Which edit a document holds: edit `edit` of round `round` (round 0 is the first text).
struct EditMark: Comparable, CustomStringConvertible {
    let round: Int
    let edit: Int

    static func < (lhs: Self, rhs: Self) -> Bool { (lhs.round, lhs.edit) < (rhs.round, rhs.edit) }
    var description: String { "\(edit) of round \(round)" }

    /// Four blocks: a heading and three paragraphs, the third the same in every edit.
    var text: String {
        "# Round \(round), edit \(edit)\n\nThe boat came in for edit \(edit) of round \(round).\n\n"
            + "A paragraph that never changes.\n\nIt rained, edit \(edit).\n"
    }
}

/// The project "Harbour" and its document "Arrival", written through vaultctl, read back here.
struct StreamedDocument {
    let fixture: CLIVault
    let project: ProjectID
    let node: NodeID

    init(_ fixture: CLIVault) throws {
        self.fixture = fixture
        let created = try fixture.run(["project", "create", "Harbour", "--register", "fiction", "--json"])
        let added = try fixture.run(["doc", "add", "Harbour", "Arrival", "--json"])
        project = try ProjectID(hex: try Self.id(created))
        node = try NodeID(hex: try Self.id(added))
        try write(EditMark(round: 0, edit: 0))
    }

    private static func id(_ result: CLI.Result) throws -> String {
        guard result.status == 0, let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any],
              let id = object["id"] as? String else { throw CLIError(message: "no id: \(result.stderr)") }
        return id
    }

    func write(_ mark: EditMark) throws {
        let result = try fixture.run(["doc", "write", "Harbour", "Arrival"], stdin: mark.text)
        guard result.status == 0 else { throw CLIError(message: "doc write failed: \(result.stderr)") }
    }

    /// The longer of two writes (round 0's text written again), for the kill window.
    func typicalWriteDuration() throws -> Double {
        try (0..<2).map { _ in
            let start = Date()
            try write(EditMark(round: 0, edit: 0))
            return Date().timeIntervalSince(start)
        }.max()!
    }

    /// The candidate the document holds block for block, or nil if it holds none of them.
    func currentMark(candidates: [EditMark]) throws -> EditMark? {
        let vault = try Vault.open(at: fixture.directory, journal: RecordingJournal(), modules: VaultModules.all)
        let unlocked = try vault.unlock(with: .passphrase(try SecureBytes(copying: Array(CLIVault.passphrase.utf8))))
        let content = try unlocked.transaction { tx in try WritingStore(tx, access: .vault).documentContent(of: node, in: project) }
        let blocks = content.blocks.map { [BlockEncoding.name(of: $0.kind), $0.text] }
        return try candidates.first { candidate in
            try PlainText.parse(Array(candidate.text.utf8)).blocks.map { [BlockEncoding.name(of: $0.kind), $0.text] } == blocks
        }
    }

    /// Verifies the whole audit log (as `vaultctl audit verify` does) and returns how many document
    /// writes it holds.
    func verifiedAuditLog() throws -> Int {
        let vault = try Vault.open(at: fixture.directory, journal: RecordingJournal(), modules: VaultModules.all)
        let reader = AuditLogReader(vault: vault)
        _ = try reader.verify()
        return try reader.entries().filter { $0.action == AuditAction.writingContentWrite.name }.count
    }
}

/// One round's child: a shell loop of `vaultctl doc write`, each edit's text in a file of its own,
/// `ack N` printed after each write that exited 0. It runs in a process group of its own, so one
/// SIGKILL to the group ends the loop and the vaultctl in flight at the same moment.
struct EditStream {
    let running: CLI.Running

    init(_ fixture: CLIVault, _ document: StreamedDocument, round: Int, edits: Int) throws {
        var script = "set -e\n"
        for edit in 1...edits {
            let file = fixture.root + "/edit-\(edit).txt"
            try fixture.write(EditMark(round: round, edit: edit).text, to: file)
            script += "'\(CLI.binary)' doc write Harbour Arrival '\(file)' --vault '\(fixture.directory)' "
                + "--passphrase-file '\(fixture.passphraseFile)' >/dev/null\necho ack \(edit)\n"
        }
        running = try CLI.start(["-c", script], executable: "/bin/sh")
    }

    /// Kills the loop's group, waits for it and returns how many edits it acknowledged.
    func killAndCountAcknowledgements() throws -> Int {
        let pid = running.process.processIdentifier
        // Foundation starts each child as the leader of a new process group; if it ever did not,
        // killing "the group" would kill this test, so check first.
        try #require(getpgid(pid) == pid || !running.process.isRunning, "the edit loop is not a process group of its own")
        kill(-pid, SIGKILL)
        running.process.waitUntilExit()
        let result = running.result()
        if running.process.terminationReason == .exit {
            Issue.record("the edit loop ended by itself (exit \(result.status)): \(result.stderr)")
        }
        // Only whole lines: a line cut by the kill was not yet an acknowledgement.
        return result.stdout.split(separator: "\n", omittingEmptySubsequences: true)
            .filter { $0.hasPrefix("ack ") && result.stdout.contains($0 + "\n") }.count
    }
}
