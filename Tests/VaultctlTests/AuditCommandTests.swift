import CryptoVault
import Foundation
import Testing
import TestSupport

/// vaultctl audit, run as a user and an auditor would: keys and exports, verification after tampering
/// with the database file, proofs and their checks, the log's filters, detail hashes, help.
@Suite("vaultctl audit: commands")
struct AuditCommandTests {
    static let emptyRoot = "47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU="

    @Test("audit key prints the vkey with which verify-export accepts this vault's export, and refuses another vault's")
    func keyVerifiesExport() throws {
        let fixture = try CLIVault()
        try expectSuccess(fixture.run(["compartment", "create", "Probate", "--register", "legal"]))
        let vkey = try expectSuccess(fixture.run(["audit", "key"], unlock: false)).stdout.trimmingCharacters(in: .newlines)
        let vkeyParts = vkey.split(separator: "+", maxSplits: 2)
        #expect(vkeyParts.count == 3 && vkeyParts[0].hasPrefix("vaultctl/") && vkeyParts[1].count == 8, "not a vkey: \(vkey)")
        let exportPath = fixture.root + "/audit.export"
        let exported = try expectSuccess(fixture.run(["audit", "export", "--out", exportPath], unlock: false))
        #expect(exported.stdout.contains("Exported 5 entries"), "\(exported.stdout)")

        let verified = try CLI.run(["audit", "verify-export", exportPath, "--key", vkey])
        #expect(verified.status == 0, "\(verified.stderr)")
        #expect(verified.stdout.contains("Export verified: 5 entries"), "\(verified.stdout)")
        // The genesis key does not change as the log grows.
        try expectSuccess(fixture.run(["compartment", "create", "Trusts", "--register", "legal"]))
        #expect(try fixture.run(["audit", "key"], unlock: false).stdout.trimmingCharacters(in: .newlines) == vkey)

        let other = try CLIVault()
        let otherKey = try expectSuccess(other.run(["audit", "key"], unlock: false)).stdout.trimmingCharacters(in: .newlines)
        #expect(otherKey != vkey)
        let refused = try CLI.run(["audit", "verify-export", exportPath, "--key", otherKey])
        #expect(refused.status == 1, "\(refused.stderr)")
        #expect(refused.stderr.contains("export verification FAILED"), "\(refused.stderr)")

        // One byte of entry 1 changed, the end line recomputed: refused, naming entry 1 (init's second
        // checkpoint, after its device.create, covers it first).
        var lines = try #require(String(data: try Data(contentsOf: URL(fileURLWithPath: exportPath)), encoding: .utf8))
            .split(separator: "\n").map(String.init)
        let entryLine = try #require(lines.indices.filter { lines[$0].hasPrefix("entry ") }.dropFirst(1).first)
        var entry = [UInt8](try #require(Data(base64Encoded: String(lines[entryLine].dropFirst(6)))))
        entry[12] ^= 0x01
        lines[entryLine] = "entry " + Data(entry).base64EncodedString()
        let body = Array(lines.dropLast().map { $0 + "\n" }.joined().utf8)
        let endLine = "end \(lines.filter { $0.hasPrefix("entry ") }.count) \(Data(SHA256.hash(body)).base64EncodedString())\n"
        let tampered = fixture.root + "/tampered.export"
        try Data(body + Array(endLine.utf8)).write(to: URL(fileURLWithPath: tampered))
        let detected = try CLI.run(["audit", "verify-export", tampered, "--key", vkey])
        #expect(detected.status == 1, "\(detected.stderr)")
        #expect(detected.stderr.contains("export verification FAILED: the checkpoint of 2 entries does not match them (an entry up to 1 was altered"), "\(detected.stderr)")
    }

    @Test("audit verify exits 0 on a healthy vault, and 1 naming the entry once one byte of it is changed with sqlite3")
    func verifyDetectsTampering() throws {
        let fixture = try CLIVault()
        try expectSuccess(fixture.run(["compartment", "create", "Audit target", "--register", "general"]))
        let input = fixture.root + "/memo.txt"
        try fixture.write("memo", to: input)
        try expectSuccess(fixture.run(["put", "--compartment", "Audit target", input]))
        let healthy = try expectSuccess(fixture.run(["audit", "verify"], unlock: false))
        #expect(healthy.stdout.contains("Audit log verified: 6 entries"), "\(healthy.stdout)")
        let report = try jsonObject(try expectSuccess(fixture.run(["audit", "verify", "--json"], unlock: false)).stdout) as? [String: Any]
        #expect(report?["verified"] as? Bool == true && report?["entries"] as? Int == 7 && report?["unsigned_entries"] as? Int == 0)

        let database = fixture.directory + "/vault.db"
        let original = try sqlite(database, "SELECT hex(entry) FROM audit_entries WHERE seq = 3")
        let bytes = try hex(original)
        // A byte of the time, then a byte of the previous hash (the link to entry 2).
        for offset in [16, bytes.count - 1] {
            var changed = bytes
            changed[offset] ^= 0x01
            _ = try sqlite(database, "DROP TRIGGER IF EXISTS audit_entries_no_update; UPDATE audit_entries SET entry = X'\(hexText(changed))' WHERE seq = 3")
            let failed = try fixture.run(["audit", "verify"], unlock: false)
            #expect(failed.status == 1, "byte \(offset): \(failed.stdout) \(failed.stderr)")
            #expect(failed.stderr.contains("audit log verification FAILED: entry 3 was altered"), "byte \(offset): \(failed.stderr)")
        }
        _ = try sqlite(database, "UPDATE audit_entries SET entry = X'\(original)' WHERE seq = 3")
        try expectSuccess(fixture.run(["audit", "verify"], unlock: false))
    }

    @Test("audit prove's output passes check-inclusion, as JSON and as the printed command; another index fails")
    func proveAndCheckInclusion() throws {
        let fixture = try CLIVault()
        for name in ["One", "Two", "Three"] { try expectSuccess(fixture.run(["compartment", "create", name, "--register", "general"])) }
        for (entry, size) in [(2, nil), (0, nil), (6, nil), (1, 3), (4, 5)] as [(Int, Int?)] {
            let sizeOption = size.map { ["--size", "\($0)"] } ?? []
            let proof = try #require(try jsonObject(try expectSuccess(fixture.run(["audit", "prove", "--entry", "\(entry)", "--json"] + sizeOption,
                                                                                  unlock: false)).stdout) as? [String: Any])
            let leaf = try #require(proof["leaf_hash"] as? String), root = try #require(proof["root"] as? String)
            let treeSize = try #require(proof["size"] as? Int), hashes = try #require(proof["proof"] as? [String])
            #expect(proof["index"] as? Int == entry && treeSize == size ?? 8)
            let check = { (index: Int) in
                try CLI.run(["audit", "check-inclusion", "--leaf-hash", leaf, "--index", "\(index)", "--size", "\(treeSize)", "--root", root,
                             "--proof", hashes.joined(separator: ",")])
            }
            let valid = try check(entry)
            #expect(valid.status == 0 && valid.stdout == "valid\n", "entry \(entry) of \(treeSize): \(valid.stderr)")
            let wrongIndex = try check(entry == 0 ? 1 : entry - 1)
            #expect(wrongIndex.status == 1 && wrongIndex.stderr.contains("invalid"), "entry \(entry): \(wrongIndex.stdout) \(wrongIndex.stderr)")

            let printed = try expectSuccess(fixture.run(["audit", "prove", "--entry", "\(entry)"] + sizeOption, unlock: false))
            let rerun = try CLI.run(try printedCommand(printed.stdout, "vaultctl audit check-inclusion"))
            #expect(rerun.status == 0 && rerun.stdout == "valid\n", "\(printed.stdout): \(rerun.stderr)")
        }
    }

    @Test("audit consistency --from an old checkpoint passes check-consistency; a changed root fails")
    func consistencyFromOldCheckpoint() throws {
        let fixture = try CLIVault()
        try expectSuccess(fixture.run(["compartment", "create", "Before", "--register", "general"]))
        let old = fixture.root + "/old-checkpoint"
        try fixture.write(try expectSuccess(fixture.run(["audit", "checkpoint"], unlock: false)).stdout, to: old)
        for name in ["After 1", "After 2", "After 3"] { try expectSuccess(fixture.run(["compartment", "create", name, "--register", "general"])) }

        let proof = try #require(try jsonObject(try expectSuccess(fixture.run(["audit", "consistency", "--from", old, "--json"], unlock: false)).stdout)
                                 as? [String: Any])
        let size1 = try #require(proof["size1"] as? Int), size2 = try #require(proof["size2"] as? Int)
        let root1 = try #require(proof["root1"] as? String), root2 = try #require(proof["root2"] as? String)
        let hashes = try #require(proof["proof"] as? [String])
        #expect(size1 == 4 && size2 == 10 && !hashes.isEmpty)
        let check = { (root1: String, root2: String) in
            try CLI.run(["audit", "check-consistency", "--size1", "\(size1)", "--size2", "\(size2)", "--root1", root1, "--root2", root2,
                         "--proof", hashes.joined(separator: ",")])
        }
        let valid = try check(root1, root2)
        #expect(valid.status == 0 && valid.stdout == "valid\n", "\(valid.stderr)")
        for (first, second) in [(root2, root2), (root1, root1), (Self.emptyRoot, root2)] {
            let invalid = try check(first, second)
            #expect(invalid.status == 1 && invalid.stderr.contains("invalid"), "\(invalid.stdout) \(invalid.stderr)")
        }
        let printed = try expectSuccess(fixture.run(["audit", "consistency", "--from", old], unlock: false))
        let rerun = try CLI.run(try printedCommand(printed.stdout, "vaultctl audit check-consistency"))
        #expect(rerun.status == 0 && rerun.stdout == "valid\n", "\(printed.stdout): \(rerun.stderr)")

        // A checkpoint whose text was edited is not one of this log's: refused.
        let edited = fixture.root + "/edited-checkpoint"
        let oldText = try String(contentsOfFile: old, encoding: .utf8)
        try fixture.write(oldText.replacingOccurrences(of: "\n4\n", with: "\n3\n"), to: edited)
        let refused = try fixture.run(["audit", "consistency", "--from", edited], unlock: false)
        #expect(refused.status == 1 && refused.stderr.contains("not a checkpoint of this log"), "\(refused.stderr)")
    }

    @Test("check-inclusion and check-consistency refuse a bad command line with exit 64", arguments: [
        ["check-inclusion", "--leaf-hash", "not base64!", "--index", "0", "--size", "1", "--root", emptyRoot, "--proof", ""],
        ["check-inclusion", "--leaf-hash", "AAAA", "--index", "0", "--size", "1", "--root", emptyRoot, "--proof", ""],
        ["check-inclusion", "--leaf-hash", emptyRoot, "--index", "0", "--size", "1", "--proof", ""],
        ["check-inclusion", "--leaf-hash", emptyRoot, "--index", "0", "--size", "1", "--root", emptyRoot],
        ["check-inclusion", "--leaf-hash", emptyRoot, "--size", "1", "--root", emptyRoot, "--proof", ""],
        ["check-inclusion", "--leaf-hash", emptyRoot, "--index", "zero", "--size", "1", "--root", emptyRoot, "--proof", ""],
        ["check-inclusion", "--leaf-hash", emptyRoot, "--index", "0", "--size", "2", "--root", emptyRoot, "--proof", emptyRoot + ",abc"],
        ["check-inclusion", "--leaf-hash", emptyRoot, "--index", "0", "--size", "1", "--root", emptyRoot, "--proof", "", "--frobnicate"],
        ["check-consistency", "--size2", "1", "--root1", emptyRoot, "--root2", emptyRoot, "--proof", ""],
        ["check-consistency", "--size1", "0", "--size2", "1", "--root1", emptyRoot, "--root2", "47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuF", "--proof", ""],
        ["check-consistency", "--size1", "0", "--size2", "1", "--root1", emptyRoot, "--root2", emptyRoot],
        ["check-consistency", "--size1", "0", "--size2", "1", "--root1", emptyRoot, "--root2", emptyRoot, "--proof", "", "extra"],
    ])
    func proofCheckUsageErrors(_ arguments: [String]) throws {
        let result = try CLI.run(["audit"] + arguments)
        #expect(result.status == 64, "\(result.stdout) \(result.stderr)")
        #expect(result.stderr.hasPrefix("vaultctl: error: "), "\(result.stderr)")
    }

    @Test("size1 0 is the empty tree: between two empty trees it is checked; against a non-empty tree it is refused as bad usage, since ROOT2 could not be checked")
    func consistencyFromTheEmptyTree() throws {
        let someRoot = Data(SHA256.hash(Array("any tree".utf8))).base64EncodedString()
        let check = { (size2: Int, root1: String, root2: String, proof: String) in
            try CLI.run(["audit", "check-consistency", "--size1", "0", "--size2", "\(size2)", "--root1", root1, "--root2", root2, "--proof", proof])
        }
        let valid = try check(0, Self.emptyRoot, Self.emptyRoot, "")
        #expect(valid.status == 0 && valid.stdout == "valid\n", "\(valid.stderr)")
        for (root1, root2, proof) in [(Self.emptyRoot, someRoot, ""), (someRoot, Self.emptyRoot, ""), (Self.emptyRoot, Self.emptyRoot, someRoot)] {
            let invalid = try check(0, root1, root2, proof)
            #expect(invalid.status == 1 && invalid.stderr.contains("invalid"), "size2 0, proof '\(proof)': \(invalid.stdout) \(invalid.stderr)")
        }
        // Before, these all printed "valid", whatever --root2 was: now none answers.
        for (size2, root1, root2, proof) in [(5, Self.emptyRoot, someRoot, ""), (1, Self.emptyRoot, Self.emptyRoot, ""), (5, someRoot, someRoot, ""),
                                             (5, Self.emptyRoot, someRoot, someRoot)] {
            let refused = try check(size2, root1, root2, proof)
            #expect(refused.status == 64 && refused.stdout.isEmpty && refused.stderr.contains("--size1 0 proves nothing about --root2"),
                    "size2 \(size2): \(refused.stdout) \(refused.stderr)")
        }
        let help = try CLI.run(["audit", "check-consistency", "--help"])
        #expect(help.status == 0 && help.stdout.contains("accepted only with SIZE2 0"), "\(help.stdout)")
    }

    @Test("audit log --json filters by action, time and compartment")
    func logFilters() throws {
        let fixture = try CLIVault()
        try expectSuccess(fixture.run(["compartment", "create", "Alpha", "--register", "legal"]))
        try expectSuccess(fixture.run(["compartment", "create", "Beta", "--register", "general"]))
        let input = fixture.root + "/alpha.txt"
        try fixture.write("alpha", to: input)
        try expectSuccess(fixture.run(["put", "--compartment", "Alpha", input]))
        // A second boundary between the two phases, so --since and --until have something to split.
        let boundary = Int64(Date().timeIntervalSince1970) + 1
        Thread.sleep(until: Date(timeIntervalSince1970: TimeInterval(boundary) + 0.05))
        try expectSuccess(fixture.run(["compartment", "rotate", "Beta"]))

        let all = try log(fixture)
        let early = all.filter { time($0) < boundary }.map(seq)
        #expect(early == Array(0..<8) && all.count > 8, "\(all.map(action))")
        let rotate = try #require(all.first { action($0) == "compartment.rotate" })
        #expect(rotate["subject"] as? String == "00000002", "the rotation names the key version it added: \(rotate)")

        #expect(try log(fixture, ["--action", "compartment.create"]).map { $0["compartment"] as? String } == ["Alpha", "Beta"])
        let compartmentEntries = try log(fixture, ["--action", "compartment"])
        #expect(compartmentEntries.map(action) == ["compartment.create", "compartment.create", "compartment.rotate"])
        #expect(try log(fixture, ["--action", "compart"]).isEmpty, "--action matches whole dot-separated parts")
        #expect(try log(fixture, ["--action", "bundle.put"]).map { $0["compartment"] as? String } == ["Alpha"])

        let alpha = try log(fixture, ["--compartment", "Alpha"])
        #expect(alpha.map(action) == ["compartment.create", "bundle.put"] && alpha.allSatisfy { $0["compartment"] as? String == "Alpha" })
        #expect(try log(fixture, ["--compartment", "Beta", "--action", "compartment.rotate"]).map(seq) == [seq(rotate)])

        let iso = { (seconds: Int64) in ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: TimeInterval(seconds))) }
        for until in ["\(boundary - 1)", iso(boundary - 1)] {
            #expect(try log(fixture, ["--until", until]).map(seq) == early, "--until \(until)")
        }
        for since in ["\(boundary)", iso(boundary)] {
            let late = try log(fixture, ["--since", since])
            #expect(late.allSatisfy { time($0) >= boundary } && late.contains { seq($0) == seq(rotate) } && !late.contains { early.contains(seq($0)) })
        }
        #expect(try log(fixture, ["--since", "2100-01-01T00:00:00Z"]).isEmpty)
        #expect(try log(fixture, ["--since", "\(boundary)", "--until", "\(boundary)"]).allSatisfy { time($0) == boundary })
        let badTime = try fixture.run(["audit", "log", "--json", "--since", "yesterday"])
        #expect(badTime.status == 64, "\(badTime.stderr)")
    }

    @Test("audit log refuses a malformed, repeated or misplaced option with exit 64 and says which", arguments: [
        (["--since", "2026-11-29"], "--since '2026-11-29' is not a time"),
        (["--since", "2026-11-29T10:00:00+01:00"], "is not a time"),
        (["--since", "2026-11-29 10:00:00Z"], "is not a time"),
        (["--until", "+5"], "--until '+5' is not a time"),
        (["--until", "0012"], "is not a time"),
        (["--until", " 12"], "is not a time"),
        (["--since", "20", "--until", "10"], "--since (20) is after --until (10)"),
        (["--action", "Bundle.put"], "--action 'Bundle.put' is not an action"),
        (["--action", ""], "is not an action"),
        (["--action", "bundle."], "is not an action"),
        (["--action", String(repeating: "a", count: 65)], "is not an action"),
        (["--action", "--details"], "--action needs a value, but the next argument is the option --details"),
        (["--compartment", "--json"], "--compartment needs a value, but the next argument is the option --json"),
        (["--details", "--details"], "--details was given twice"),
        (["--json"], "--json was given twice"),
        (["--action", "bundle", "--action", "vault"], "--action was given twice"),
        (["--details=yes"], "--details takes no value"),
        (["--detail"], "unknown option --detail"),
        (["--since"], "--since needs a value"),
    ] as [([String], String)])
    func logRefusesBadOptions(_ options: [String], _ reason: String) throws {
        let fixture = try CLIVault()
        let result = try fixture.run(["audit", "log", "--json"] + options)
        #expect(result.status == 64 && result.stdout.isEmpty, "\(options): exit \(result.status), \(result.stdout)")
        #expect(result.stderr.hasPrefix("vaultctl: error: ") && result.stderr.contains(reason), "\(options): \(result.stderr)")
    }

    @Test("audit hash gives, from a value on standard input, the detail hash that audit log --json shows")
    func hashMatchesTheLog() throws {
        let fixture = try CLIVault()
        let name = "Estate of M. Kowalczyk"
        try expectSuccess(fixture.run(["compartment", "create", name, "--register", "legal"]))
        let input = fixture.root + "/will-draft.pdf"
        try fixture.write("draft", to: input)
        try expectSuccess(fixture.run(["put", "--compartment", name, input]))
        let entries = try log(fixture)
        let created = try #require(entries.first { action($0) == "compartment.create" }?["detail_hashes"] as? [String: String])
        let put = try #require(entries.first { action($0) == "bundle.put" }?["detail_hashes"] as? [String: String])
        #expect(Set(created.keys) == ["name", "register", "privileged"] && Set(put.keys) == ["bytes", "file"])

        let hash = { (field: String, value: String) in
            try expectSuccess(fixture.run(["audit", "hash", "--field", field], stdin: value + "\n")).stdout.trimmingCharacters(in: .newlines)
        }
        #expect(try hash("name", name) == created["name"])
        #expect(try hash("register", "legal") == created["register"])
        #expect(try hash("file", "will-draft.pdf") == put["file"])
        #expect(try hash("bytes", "5") == put["bytes"], "the byte count of the put, as a decimal")
        #expect(try hash("name", "Estate of M. Kowalczik") != created["name"])
        #expect(try hash("file", name) != created["name"], "the field name is part of the hashed message")
    }

    @Test("every audit subcommand prints its usage for --help", arguments: [
        "log", "verify", "export", "verify-export", "key", "checkpoint", "prove", "consistency", "check-inclusion", "check-consistency", "hash",
    ])
    func help(_ subcommand: String) throws {
        let result = try CLI.run(["audit", subcommand, "--help"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasPrefix("Usage: vaultctl audit \(subcommand) "), "\(result.stdout)")
        #expect(result.stdout.contains("--help"), "the common options are listed")
    }

    @Test("a failed unlock appends vault.unlock-failed, checkpointed although the vault stayed locked")
    func failedUnlockIsRecorded() throws {
        let fixture = try CLIVault()
        let wrong = try CLI.run(["audit", "log", "--vault", fixture.directory, "--passphrase-file", "-"], stdin: "not the passphrase\n")
        #expect(wrong.status == 2, "\(wrong.stderr)")
        let report = try jsonObject(try expectSuccess(fixture.run(["audit", "verify", "--json"], unlock: false)).stdout) as? [String: Any]
        #expect(report?["entries"] as? Int == 3 && report?["unsigned_entries"] as? Int == 0, "\(String(describing: report))")
        let entries = try log(fixture)
        #expect(entries.map(action) == ["vault.init", "device.create", "vault.unlock-failed", "audit.verify", "vault.unlock"])
        let failed = entries[2]
        #expect(failed["compartment"] == nil && failed["subject"] == nil && failed["detail_hashes"] == nil)
    }
}

// MARK: - Helpers

@discardableResult
func expectSuccess(_ result: CLI.Result, sourceLocation: SourceLocation = #_sourceLocation) throws -> CLI.Result {
    try #require(result.status == 0, "exit \(result.status): \(result.stderr)", sourceLocation: sourceLocation)
    return result
}

func jsonObject(_ text: String) throws -> Any {
    try JSONSerialization.jsonObject(with: Data(text.utf8))
}

/// `audit log --json` with `options`, unlocking with the passphrase file (which records an unlock).
private func log(_ fixture: CLIVault, _ options: [String] = []) throws -> [[String: Any]] {
    let result = try expectSuccess(fixture.run(["audit", "log", "--json"] + options))
    return try #require(try jsonObject(result.stdout) as? [[String: Any]])
}

private func action(_ row: [String: Any]) -> String { row["action"] as? String ?? "" }
private func seq(_ row: [String: Any]) -> Int { row["seq"] as? Int ?? -1 }

private func time(_ row: [String: Any]) -> Int64 {
    (row["time"] as? String).flatMap { ISO8601DateFormatter().date(from: $0) }.map { Int64($0.timeIntervalSince1970) } ?? -1
}

/// The arguments of a command line printed as "vaultctl audit check-...": words split at spaces, the
/// single quotes around the proof removed (base64 holds no space or quote).
private func printedCommand(_ line: String, _ prefix: String) throws -> [String] {
    let text = line.trimmingCharacters(in: .newlines)
    try #require(text.hasPrefix(prefix + " "), "printed: \(text)")
    return text.split(separator: " ").dropFirst().map { $0.replacingOccurrences(of: "'", with: "") }
}

/// Runs SQL with the sqlite3 program, as someone editing the vault file by hand would.
func sqlite(_ database: String, _ sql: String) throws -> String {
    let running = try CLI.start([database, sql], executable: "/usr/bin/sqlite3")
    running.process.waitUntilExit()
    let result = running.result()
    try #require(result.status == 0, "sqlite3: \(result.stderr)")
    return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
}

private func hexText(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02X", $0) }.joined() }
