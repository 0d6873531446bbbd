import CryptoVault
import Foundation
import Synchronization
import Testing
import TestSupport

/// HostileColumnTests for the writing tables: a vault with a healthcare project (not privileged, so
/// no one-command session ends its writing session: the open session's row is read by the next
/// write), a document written twice (so the automatic-snapshot counters, that open writing session,
/// a snapshot and blocks are rows), then every column of every `writing_` table mutated one value at a time on a copy, and a
/// writing command run on each: `doc write` (the automatic-snapshot policy's and the session
/// rule's arithmetic on the damaged row) and `doc list`. Each must end with a documented exit code,
/// never a signal (a counter at 2^63-1 once trapped the next write).
@Suite("Every column of the writing tables, mutated: a writing command gives a clean error, never a trap")
struct HostileWritingColumnTests {
    @Test("doc write and doc list on every single-column mutation of a writing table: no signal, no hang, a documented exit code")
    func everyColumnOfTheWritingTables() throws {
        let fixture = try CLIVault()
        let purpose = ["--purpose", "write up the session"]
        for (arguments, stdin) in [(["project", "create", "Intake", "--register", "healthcare", "--not-privileged"], nil),
                                   (["doc", "add", "Intake", "Session 1"] + purpose, nil),
                                   (["doc", "write", "Intake", "Session 1"] + purpose, "S: slept badly.\n"),
                                   (["snapshot", "create", "Intake", "Session 1", "--title", "First"] + purpose, nil),
                                   (["doc", "write", "Intake", "Session 1"] + purpose, "S: slept badly.\n\nO: calm.\n")] as [([String], String?)] {
            let result = try fixture.run(arguments, stdin: stdin)
            try #require(result.status == 0, "\(arguments): \(result.stderr)")
        }
        let text = fixture.root + "/next.txt"
        try fixture.write("S: slept badly.\n\nO: calm, engaged.\n", to: text)
        let database = try Database(path: fixture.directory + "/" + Vault.databaseName, create: false)
        let mutations = try HostileColumnTests.mutations(of: database).filter { $0.table.hasPrefix("writing_") }
        #expect(Set(mutations.map(\.table)).isSuperset(of: ["writing_auto_snapshots", "writing_edit_events", "writing_blocks", "writing_snapshots"]))
        let results = Mutex<[HostileColumnTests.Run]>([])
        let failures = Mutex<[String]>([])
        let root = fixture.root, directory = fixture.directory, passphraseFile = fixture.passphraseFile
        DispatchQueue.concurrentPerform(iterations: 2) { worker in
            for index in stride(from: worker, to: mutations.count, by: 2) {
                let mutation = mutations[index]
                do {
                    guard let copy = try Self.mutatedCopy(of: directory, root: root, mutation, index: index) else { continue }
                    defer { try? FileManager.default.removeItem(atPath: copy) }
                    let common = ["--vault", copy, "--passphrase-file", passphraseFile] + purpose
                    for (label, arguments) in [("doc write", ["doc", "write", "Intake", "Session 1", text] + common),
                                               ("doc list", ["doc", "list", "Intake"] + common)] {
                        let run = try HostileColumnTests.run(arguments, label: label, mutation: mutation, scratch: root + "/run-\(index)")
                        results.withLock { $0.append(run) }
                    }
                } catch {
                    failures.withLock { $0.append("\(mutation): \(error)") }
                }
            }
        }
        #expect(failures.withLock { $0 } == [], "the harness itself failed")
        let runs = results.withLock { $0 }
        let bad = HostileColumnTests.misbehaving(runs)
        #expect(bad.isEmpty, "\(bad.count) of \(runs.count) runs trapped, hung or exited with an undocumented code")
        #expect(runs.count >= 2 * 100, "\(runs.count) runs")
        // The counters and times the arithmetic once trapped on are refused as damage, and said so.
        for (table, column) in [("writing_auto_snapshots", "characters"), ("writing_auto_snapshots", "active_ms"), ("writing_auto_snapshots", "edits"),
                                ("writing_auto_snapshots", "last_edit_ms"), ("writing_edit_events", "last_edit_at")] {
            for value in ["9223372036854775807", "-9223372036854775808"] where !(value.hasPrefix("-") && column != "last_edit_ms" && column != "last_edit_at") {
                let write = runs.first { $0.mutation.table == table && $0.mutation.column == column && $0.mutation.value == value && $0.command == "doc write" }
                #expect(write?.status == 65 && write?.stderr.contains("out of range") == true,
                        "\(table).\(column) = \(value): \(write?.status ?? -1) \(write?.stderr.prefix(200) ?? "not run")")
            }
        }
    }

    /// A copy of the vault at `directory` with `mutation` applied, triggers dropped and CHECKs ignored; nil when SQLite refuses the value.
    static func mutatedCopy(of directory: String, root: String, _ mutation: HostileColumnTests.Mutation, index: Int) throws -> String? {
        let copy = root + "/case-\(index)"
        try FileManager.default.copyItem(atPath: directory, toPath: copy)
        let database = try Database(path: copy + "/" + Vault.databaseName, create: false)
        for trigger in try database.query("SELECT name FROM sqlite_master WHERE type = 'trigger'").map({ try $0.text("name") }) {
            try database.execute("DROP TRIGGER \"\(trigger)\"")
        }
        try database.execute("PRAGMA ignore_check_constraints = ON; PRAGMA foreign_keys = OFF")
        do {
            try database.execute("UPDATE \"\(mutation.table)\" SET \"\(mutation.column)\" = \(mutation.value) \(mutation.rows)")
        } catch {
            try? FileManager.default.removeItem(atPath: copy)
            return nil
        }
        return copy
    }
}
