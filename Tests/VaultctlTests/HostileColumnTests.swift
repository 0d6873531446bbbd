import CryptoVault
import Foundation
import Synchronization
import Testing

/// Issue 13's big test: a small vault (two compartments, one rotated; a bundle in each; audit entries
/// and checkpoints; a keyslot of each kind), and for every column of every table that has rows, one
/// hostile value at a time on a copy (bounds, signs, 0, -1, 2^63-1, wrong types, NULL, empty and
/// oversized blobs, a flipped byte), with the append-only triggers and the CHECK constraints out of
/// the way as an attacker editing the file would have them. On each copy the built binary runs
/// `status`, `unlock --passphrase-file`, `audit verify` and `get`: every run must end by itself
/// within its deadline with a documented exit code, never a signal.
@Suite("Every column of every table, mutated: clean errors and documented exit codes, never a signal or a hang")
struct HostileColumnTests {
    static let documentedExitCodes: Set<Int32> = [0, 1, 2, 3, 4, 64, 65, 66, 69, 73, 74, 77]
    static let deadline: TimeInterval = 30

    struct Mutation: Sendable, CustomStringConvertible {
        let table: String
        let column: String
        let value: String
        let rows: String
        var description: String { "\(table).\(column) = \(value.prefix(40)) \(rows)" }
    }

    struct Run: Sendable {
        let mutation: Mutation
        let command: String
        let status: Int32
        let signalled: Bool
        let timedOut: Bool
        let stderr: String
    }

    /// The vault every case starts from, made once through the CLI.
    final class Original: @unchecked Sendable {
        let fixture: CLIVault
        let bundleID: String
        let shares: String

        init() throws {
            fixture = try CLIVault()
            for (name, register, flag) in [("Newsletter", "general", "--not-privileged"), ("Session notes", "healthcare", "--privileged")] {
                let made = try fixture.run(["compartment", "create", name, "--register", register, flag])
                guard made.status == 0 else { throw CLIError(message: "compartment create: \(made.stderr)") }
            }
            try fixture.write("the spring newsletter", to: fixture.root + "/newsletter.txt")
            try fixture.write("the client said nothing that leaves this room, not one word of it ever", to: fixture.root + "/note.txt")
            let put = try fixture.run(["put", "--compartment", "Newsletter", fixture.root + "/newsletter.txt"])
            bundleID = put.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            guard put.status == 0, bundleID.count == 32 else { throw CLIError(message: "put: \(put.stderr)") }
            shares = fixture.root + "/shares"
            for arguments in [["put", "--compartment", "Session notes", fixture.root + "/note.txt"], ["compartment", "rotate", "Newsletter"],
                              ["recovery", "create-key"], ["recovery", "split", "--shares", "3", "--threshold", "2", "--out", shares]] {
                let result = try fixture.run(arguments)
                guard result.status == 0 else { throw CLIError(message: "\(arguments): \(result.stderr)") }
            }
        }
    }

    static func hostileValues(forType type: String, column: String) -> [String] {
        let integers = ["-1", "0", "9223372036854775807", "-9223372036854775808"]
        let blobs = ["x''", "zeroblob(70000)", "(x'ff' || substr(\(column), 2))"]
        let texts = ["''", "printf('%.*c', 70000, 'a')", "'{\"algorithm\":\"argon2id\",\"iterations\":-1}'"]
        switch type.uppercased() {
        case "INTEGER": return integers + ["NULL", "'text'"]
        case "BLOB": return blobs + ["NULL", "7"]
        case "TEXT": return texts + ["NULL", "x'ff00'"]
        default: return ["-1", "9223372036854775807", "x''", "x'00'", "'x'", "NULL", "zeroblob(70000)"]
        }
    }

    /// Every (table, column, value) of the tables that have rows: the last row by rowid (vault_meta:
    /// each of its rows, each a setting of its own; a WITHOUT ROWID table: every row).
    static func mutations(of database: Database) throws -> [Mutation] {
        var result: [Mutation] = []
        let tables = try database.query("SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
        for table in tables {
            let name = try table.text("name")
            guard try database.queryOne("SELECT count(*) AS n FROM \"\(name)\"")?.integer("n") ?? 0 > 0 else { continue }
            let withoutRowID = try table.text("sql").uppercased().contains("WITHOUT ROWID")
            var rowSets: [String] = withoutRowID ? [""] : ["WHERE rowid = (SELECT max(rowid) FROM \"\(name)\")"]
            if name == "vault_meta" {
                rowSets = try database.query("SELECT key FROM vault_meta ORDER BY key").map { "WHERE key = '\(try $0.text("key"))'" }
            }
            for column in try database.query("PRAGMA table_info(\"\(name)\")") {
                let columnName = try column.text("name")
                if name == "vault_meta" && columnName == "key" { continue }
                for value in hostileValues(forType: try column.text("type"), column: columnName) {
                    for rows in rowSets { result.append(Mutation(table: name, column: columnName, value: value, rows: rows)) }
                }
            }
        }
        return result
    }

    /// Copies the vault and applies `mutation` with the triggers dropped and CHECKs ignored; nil when
    /// SQLite itself refuses the value (a STRICT type, NOT NULL, a UNIQUE or PRIMARY KEY clash).
    static func mutatedCopy(of original: Original, _ mutation: Mutation, index: Int) throws -> String? {
        let copy = original.fixture.root + "/case-\(index)"
        try FileManager.default.copyItem(atPath: original.fixture.directory, toPath: copy)
        let database = try Database(path: copy + "/" + Vault.databaseName, create: false)
        let triggers = try database.query("SELECT name FROM sqlite_master WHERE type = 'trigger'").map { try $0.text("name") }
        for trigger in triggers { try database.execute("DROP TRIGGER \"\(trigger)\"") }
        try database.execute("PRAGMA ignore_check_constraints = ON; PRAGMA foreign_keys = OFF")
        do {
            try database.execute("UPDATE \"\(mutation.table)\" SET \"\(mutation.column)\" = \(mutation.value) \(mutation.rows)")
        } catch {
            try? FileManager.default.removeItem(atPath: copy)
            return nil
        }
        return copy
    }

    /// The runs that trapped, hung or exited with an undocumented code, each recorded as an issue
    /// (the first 20, so a systematic failure stays readable).
    static func misbehaving(_ runs: [Run]) -> [Run] {
        let bad = runs.filter { $0.signalled || $0.timedOut || !documentedExitCodes.contains($0.status) || $0.stderr.contains("Fatal error") }
        for run in bad.prefix(20) {
            Issue.record("\(run.mutation) → \(run.command): exit \(run.status)\(run.signalled ? " (signal)" : "")\(run.timedOut ? " (hang)" : ""): \(run.stderr.prefix(300))")
        }
        return bad
    }

    static func run(_ arguments: [String], label: String, mutation: Mutation, scratch: String) throws -> Run {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CLI.binary)
        process.arguments = arguments
        let errorPath = scratch + ".err"
        FileManager.default.createFile(atPath: errorPath, contents: nil)
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle(forWritingAtPath: errorPath)
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let start = Date()
        var timedOut = false
        while process.isRunning {
            if Date().timeIntervalSince(start) > deadline {
                timedOut = true
                kill(process.processIdentifier, SIGKILL)
                break
            }
            usleep(5_000)
        }
        process.waitUntilExit()
        let stderr = String(decoding: FileManager.default.contents(atPath: errorPath) ?? Data(), as: UTF8.self)
        try? FileManager.default.removeItem(atPath: errorPath)
        return Run(mutation: mutation, command: label, status: process.terminationStatus,
                   signalled: process.terminationReason == .uncaughtSignal && !timedOut, timedOut: timedOut, stderr: stderr)
    }

    @Test("status, unlock, audit verify and get on every single-column mutation: no signal, no hang, a documented exit code")
    func everyColumnOfEveryTable() throws {
        let original = try Original()
        let mutations = try Self.mutations(of: Database(path: original.fixture.directory + "/" + Vault.databaseName, create: false))
        #expect(mutations.count > 250, "\(mutations.count) cases")
        let results = Mutex<[Run]>([])
        let refusedBySQLite = Mutex(0)
        let failures = Mutex<[String]>([])
        let workers = 3
        DispatchQueue.concurrentPerform(iterations: workers) { worker in
            for index in stride(from: worker, to: mutations.count, by: workers) {
                let mutation = mutations[index]
                do {
                    guard let copy = try Self.mutatedCopy(of: original, mutation, index: index) else {
                        refusedBySQLite.withLock { $0 += 1 }
                        continue
                    }
                    defer { try? FileManager.default.removeItem(atPath: copy) }
                    let vault = ["--vault", copy]
                    let credential = ["--passphrase-file", original.fixture.passphraseFile]
                    let scratch = original.fixture.root + "/run-\(index)"
                    for (label, arguments) in [("status", ["status"] + vault), ("unlock", ["unlock"] + vault + credential),
                                               ("audit verify", ["audit", "verify"] + vault),
                                               ("get", ["get", original.bundleID, "-o", "-"] + vault + credential)] {
                        let run = try Self.run(arguments, label: label, mutation: mutation, scratch: scratch)
                        results.withLock { $0.append(run) }
                    }
                } catch {
                    failures.withLock { $0.append("\(mutation): \(error)") }
                }
            }
        }
        #expect(failures.withLock { $0 } == [], "the harness itself failed")
        let runs = results.withLock { $0 }
        let bad = Self.misbehaving(runs)
        #expect(bad.isEmpty, "\(bad.count) of \(runs.count) runs trapped, hung or exited with an undocumented code")
        #expect(runs.count >= 4 * 150, "\(runs.count) runs; \(refusedBySQLite.withLock { $0 }) mutations SQLite itself refused")
        #expect(runs.contains { $0.status != 0 }, "some mutation must be detected")
    }
}
