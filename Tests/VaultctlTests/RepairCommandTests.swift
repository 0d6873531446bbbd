import Appliance
import AuditChain
import CryptoVault
import Foundation
import Testing
import TestSupport
import Writing

/// It always launches (issue 17): a project whose sync state is damaged is shown local-only with
/// its reason by `vaultctl sync status` and skipped with that reason by `vaultctl sync now`, over the
/// real channel between two hosts (network namespaces where the machine allows them).
@Suite(.serialized)
struct RepairCommandTests {
    static func json(_ result: CLI.Result) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(result.stderr)")
    }

    /// Every sealed part of the laptop's stored change records zeroed: none opens any more.
    static func damageSyncState(_ vault: CLIVault) throws {
        try Database(path: vault.directory + "/vault.db", create: false)
            .execute("UPDATE sealed_records SET sealed = zeroblob(length(sealed)) WHERE module = 'sync'")
    }

    @Test func aDamagedSyncStateIsShownLocalOnlyWithItsReasonAndSyncNowSaysWhyItSkipped() throws {
        let f = try SyncOverNetworkFixture()
        let ready = try Self.json(try f.hosts.run(.laptop, f.laptop, ["sync", "status", "--json"]))
        let before = try #require((ready["projects"] as? [[String: Any]])?.first)
        #expect(before["state"] as? String == "ready" && before["records"] as? Int == 1, "\(before)")

        try Self.damageSyncState(f.laptop)
        let status = try f.hosts.run(.laptop, f.laptop, ["sync", "status"])
        #expect(status.status == 0, "\(status.stderr)")
        #expect(status.stdout.contains("project \(f.project.hex): LOCAL-ONLY: the sync state of project"), "\(status.stdout)")
        #expect(status.stdout.contains("does not open"), "\(status.stdout)")
        let listed = try Self.json(try f.hosts.run(.laptop, f.laptop, ["sync", "status", "--json"]))
        let project = try #require((listed["projects"] as? [[String: Any]])?.first)
        #expect(project["project"] as? String == f.project.hex && project["state"] as? String == "local-only")
        #expect((project["reason"] as? String)?.contains("does not open") == true, "\(project)")

        // Sync goes on without the project, and says why it was skipped: the run completed, the
        // project did not sync, and the exit (75) names it (attack review s8, F20).
        let synced = try f.sync()
        #expect(synced.status == 75, "\(synced.status): \(synced.stderr)")
        #expect(synced.stderr.contains("project \(f.project.hex) with ") && synced.stderr.contains("local-only:"), "\(synced.stderr)")
        #expect(synced.stdout.contains("Skipped project \(f.project.hex), local-only:") && synced.stdout.contains("does not open"),
                "\(synced.stdout)")
        #expect(synced.stdout.contains("repair --from"))
        let report = try Self.json(try f.hosts.run(.laptop, f.laptop, f.syncArguments() + ["--json"]))
        let projects = try #require(((report["peers"] as? [[String: Any]])?.first?["projects"]) as? [[String: Any]], "\(report)")
        #expect(projects.contains { $0["project"] as? String == f.project.hex && ($0["local_only"] as? String)?.contains("does not open") == true },
                "\(projects)")
    }
}

/// `vaultctl repair --from DEVICE` (issue 17, SECURITY.md §19.10): the laptop's writing store,
/// damaged three ways, rebuilt from the desk over the real channel between two hosts; every document
/// back byte-identical, the damaged files kept aside as they were, the audit log verifying.
@Suite(.serialized)
struct RepairFromDeviceTests {
    enum Damage: String, CaseIterable, Sendable {
        /// One byte flipped in the database file, inside a block's sealed record.
        case flippedByte
        /// The table of blocks dropped.
        case droppedTable
        /// Every sealed part of the stored change records cut short (the sync state cannot rebuild).
        case truncatedRecords
        /// One block's position made negative past its CHECK, as a flipped sign bit would (attack
        /// review s8, F18: the whole vault then refused to open, `repair` and `audit verify` too).
        case negativeBlockPosition
        /// One stored record's counter made negative past its CHECK (F18 likewise).
        case negativeRecordCounter

        /// The table whose row breaks a CHECK: its project's damage (R15-1; a damaged row of stored
        /// records is its project's sync state instead: review 17 s9, N-s9-6).
        var brokenCheck: String? {
            switch self {
            case .negativeBlockPosition: "writing_blocks"
            default: nil
            }
        }
    }

    /// Every node (id, kind, parent, order key, title) and every block (id, kind, text) of the project.
    static func contents(_ f: SyncOverNetworkFixture, _ vault: CLIVault) throws -> [String] {
        try f.edit(vault) { store in
            try store.nodes(in: f.project).flatMap { node in
                ["\(node.id.hex) \(node.kind) \(node.parent?.hex ?? "-") \(node.orderKey) \(node.title)"]
                    + (node.kind == .scene ? try store.documentContent(of: node.id, in: f.project).blocks.map { "  \($0.id.hex) \($0.kind) \($0.text)" } : [])
            }
        }
    }

    /// Two documents and edits on both devices, synced: both hold the same project.
    static func syncedFixture() throws -> SyncOverNetworkFixture {
        let f = try SyncOverNetworkFixture()
        try f.edit(f.laptop) { store in
            let node = try store.addNode(.scene, titled: "Day two", in: f.project)
            try store.replaceDocumentContent(of: node.id, in: f.project, with: DocumentContent(blocks: [
                Block(id: try BlockID.random(), kind: .heading(level: 1), text: "Morning"),
                Block(id: try BlockID.random(), kind: .paragraph, text: "The tide came in at six; é, ß, 日本."),
            ]))
        }
        try f.type("laptop words", into: 0, on: f.laptop)
        try f.type("desk words", into: 2, on: f.desk)
        for _ in 0..<2 { try #require(try f.sync().status == 0) }
        try #require(try contents(f, f.laptop) == contents(f, f.desk))
        return f
    }

    static func damage(_ vault: CLIVault, _ damage: Damage) throws {
        let path = vault.directory + "/vault.db"
        let database = try Database(path: path, create: false, readOnly: false)
        switch damage {
        case .flippedByte:
            let sealed = try #require(try database.query("""
                SELECT sealed FROM sealed_records WHERE module = 'writing' AND table_name = 'writing_blocks' ORDER BY id LIMIT 1
                """).first?.blob("sealed"))
            try database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            var bytes = [UInt8](try #require(FileManager.default.contents(atPath: path)))
            let needle = Array(sealed[30..<60])
            let at = try #require(bytes.indices.dropLast(needle.count).first { bytes[$0] == needle[0] && Array(bytes[$0..<$0 + needle.count]) == needle },
                                  "the sealed block is not in the file")
            bytes[at + 5] ^= 0x01
            try Data(bytes).write(to: URL(fileURLWithPath: path))
        case .droppedTable:
            try database.execute("DROP TABLE writing_blocks")
        case .truncatedRecords:
            try database.execute("UPDATE sealed_records SET sealed = substr(sealed, 1, 61) WHERE module = 'sync'")
        case .negativeBlockPosition:
            try database.execute("PRAGMA ignore_check_constraints = ON; UPDATE writing_blocks SET position = -1 WHERE rowid = (SELECT min(rowid) FROM writing_blocks)")
        case .negativeRecordCounter:
            try database.execute("PRAGMA ignore_check_constraints = ON; UPDATE sync_records SET counter = -5 WHERE rowid = (SELECT min(rowid) FROM sync_records)")
        }
    }

    /// Throws unless `sync status` says the project syncs.
    static func requireReady(_ f: SyncOverNetworkFixture) throws {
        let status = try RepairCommandTests.json(try f.hosts.run(.laptop, f.laptop, ["sync", "status", "--json"]))
        guard (status["projects"] as? [[String: Any]])?.first?["state"] as? String == "ready" else { throw CLIError(message: "not ready: \(status)") }
    }

    /// F17-11 (reviewer s17): the laptop trusts the desk as its own, but the desk counts the laptop
    /// as someone else's. The desk offers it nothing, so the rebuild used to drop every project of
    /// the laptop's, exit 0, leaving a kept copy that then blocked `passwd`. Now it is refused
    /// before anything changes: exit 4, naming the desk and what to run there.
    @Test func aDeviceThatDoesNotCountThisOneAsItsOwnIsNotRebuiltFrom() throws {
        let f = try Self.syncedFixture()
        let laptopFingerprint = try PeersCommandTests.fingerprint(f.laptop)
        let demoted = try f.desk.run(["peers", "trust", "--peer", laptopFingerprint, "other"])
        try #require(demoted.status == 0, "\(demoted.stderr)")
        let before = try Self.contents(f, f.laptop)

        let refused = try f.hosts.run(.laptop, f.laptop, ["repair", "--from", f.deskFingerprint, "--address", f.channelAddress])
        #expect(refused.status == 4, "\(refused.stdout) \(refused.stderr)")
        #expect(refused.stderr.contains("does not count this device as its own") && refused.stderr.contains("nothing was changed")
                && refused.stderr.contains("'vaultctl peers trust --peer THIS-DEVICE mine'"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: f.laptop.directory + "/damaged"), "a refused repair kept a copy")
        #expect(try Self.repairActions(f) == ["sync.repair-refused"])
        #expect(try Self.contents(f, f.laptop) == before, "the refused repair changed the laptop's documents")
    }

    static func repairActions(_ f: SyncOverNetworkFixture) throws -> [String] {
        let log = try f.hosts.run(.laptop, f.laptop, ["audit", "log", "--json", "--action", "sync"])
        return try #require(try JSONSerialization.jsonObject(with: Data(log.stdout.utf8)) as? [[String: Any]], "\(log.stderr)")
            .compactMap { $0["action"] as? String }.filter { $0.hasPrefix("sync.repair") }
    }

    /// The tables of a copy of the database files in `folder` (copied first, so nothing is written
    /// there) and a digest of every sealed record of the writing store, in row order.
    static func facts(ofCopy folder: String) throws -> [String] {
        let scratch = NSTemporaryDirectory() + "repair-facts-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        for suffix in ["", "-wal"] where FileManager.default.fileExists(atPath: folder + "/vault.db" + suffix) {
            try FileManager.default.copyItem(atPath: folder + "/vault.db" + suffix, toPath: scratch + "/vault.db" + suffix)
        }
        let database = try Database(path: scratch + "/vault.db", create: false, readOnly: false)
        let tables = try database.query("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").map { try $0.text("name") }
        let sealed = try database.query("SELECT sealed FROM sealed_records WHERE module IN ('writing', 'sync') ORDER BY id").map {
            ByteEncoding.hex(SHA256.hash(try $0.blob("sealed")))
        }
        return tables + sealed
    }

    static func files(_ vault: CLIVault) -> [String: Data] {
        var found: [String: Data] = [:]
        for suffix in ["", "-wal"] { found[suffix] = FileManager.default.contents(atPath: vault.directory + "/vault.db" + suffix) }
        return found
    }

    @Test(arguments: Damage.allCases)
    func aDamagedWritingStoreIsRebuiltFromAnOwnDeviceWithTheDamagedCopyKept(_ damage: Damage) throws {
        let f = try Self.syncedFixture()
        let expected = try Self.contents(f, f.desk)
        try Self.damage(f.laptop, damage)
        if let table = damage.brokenCheck {
            // The vault opens, and the row is its project's damage alone (reviewer15's R15-1; before, the
            // whole store worked in memory): every command says so; the audit log still verifies.
            let listed = try f.hosts.run(.laptop, f.laptop, ["project", "list"])
            #expect(listed.status == 0, "\(damage): \(listed.stderr)")
            #expect(!listed.stderr.contains(InMemoryModeTests.notice) && listed.stderr.contains("is damaged: 1 row(s) of \(table)")
                    && listed.stderr.contains("'vaultctl repair' mends it"), "\(damage): \(listed.stderr)")
            let status = try RepairCommandTests.json(try f.hosts.run(.laptop, f.laptop, ["sync", "status", "--json"]))
            #expect(status["in_memory"] == nil, "\(damage): \(status)")
            let verified = try f.laptop.run(["audit", "verify"], unlock: false)
            #expect(verified.status == 0, "\(damage): \(verified.stdout) \(verified.stderr)")
        } else {
            #expect(throws: (any Error).self, "\(damage): the damage did not show") {
                // A damaged row of stored records is its project's sync state (review 17 s9, N-s9-6): local-only.
                if damage == .truncatedRecords || damage == .negativeRecordCounter { try Self.requireReady(f) } else { _ = try Self.contents(f, f.laptop) }
            }
        }
        let damaged = try Self.facts(ofCopy: f.laptop.directory)

        let repaired = try f.hosts.run(.laptop, f.laptop, ["repair", "--from", f.deskFingerprint, "--address", f.channelAddress, "--json"])
        try #require(repaired.status == 0, "\(damage): \(repaired.stderr)")
        let report = try RepairCommandTests.json(repaired)
        let kept = try #require(report["kept"] as? String)
        #expect(kept.hasPrefix(f.laptop.directory + "/damaged/"))
        #expect(try Self.contents(f, f.laptop) == expected, "\(damage): the documents are not back")
        // The damaged store is kept as it was: the same tables and the same sealed bytes, damage included.
        #expect(try Self.facts(ofCopy: kept) == damaged, "\(damage): the kept copy is not the damaged store")
        #expect((report["records"] as? Int ?? 0) > 0 && (report["checked"] as? Int ?? 0) > 0, "\(report)")

        let verified = try f.laptop.run(["audit", "verify"], unlock: false)
        #expect(verified.status == 0, "\(damage): \(verified.stdout) \(verified.stderr)")
        #expect(try Self.repairActions(f) == ["sync.repair-kept", "sync.repair-reset", "sync.repair"])

        // Honest sync goes on after: an edit on each side reaches the other.
        try f.type("after repair", into: 1, on: f.laptop)
        try f.type("desk after", into: 3, on: f.desk)
        let synced = try f.sync()
        #expect(synced.status == 0, "\(synced.stderr)")
        #expect(try Self.contents(f, f.laptop) == Self.contents(f, f.desk))
        try f.checkVaults("\(damage) after repair")
    }

    @Test func someoneElsesDeviceIsRefusedWithTheReasonAndNothingChanges() throws {
        let f = try Self.syncedFixture()
        #expect(try f.hosts.run(.laptop, f.laptop, ["peers", "trust", "--peer", f.deskFingerprint, "other"]).status == 0)
        let before = Self.files(f.laptop)[""]
        let refused = try f.hosts.run(.laptop, f.laptop, ["repair", "--from", f.deskFingerprint, "--address", f.channelAddress])
        #expect(refused.status == 4, "\(refused.stderr)")
        #expect(refused.stderr.contains("not trusted as your own"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: f.laptop.directory + "/damaged"))
        #expect(try Self.repairActions(f) == ["sync.repair-refused"])
        #expect(Self.files(f.laptop)[""] != nil && before != nil)
    }
}

/// It always launches (issue 17, SECURITY.md §19.10): a vault whose writing store cannot be opened
/// (a table of it dropped) works in memory: every command says so (stderr, and `in_memory` in its
/// JSON object), reads and writes a copy in memory, syncs what an own device holds into that copy,
/// and the vault's files stay byte for byte as they were, until `repair --from` rebuilds the store.
@Suite(.serialized)
struct InMemoryModeTests {
    /// Every regular file under `root`, by path, with its bytes.
    static func tree(_ root: String) -> [String: Data] {
        var files: [String: Data] = [:]
        for path in FileManager.default.subpaths(atPath: root) ?? [] {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: root + "/" + path, isDirectory: &isDirectory), !isDirectory.boolValue else { continue }
            files[path] = FileManager.default.contents(atPath: root + "/" + path) ?? Data("unreadable".utf8)
        }
        return files
    }

    static let notice = "vaultctl: in-memory mode: the writing store of "

    @Test func aVaultWhoseWritingStoreCannotBeOpenedWorksInMemoryWritesNothingAndIsRepaired() throws {
        let f = try RepairFromDeviceTests.syncedFixture()
        let expected = try RepairFromDeviceTests.contents(f, f.desk)
        try RepairFromDeviceTests.damage(f.laptop, .droppedTable)
        let before = Self.tree(f.laptop.directory)
        #expect(before.keys.contains("vault.db"))

        let listed = try f.hosts.run(.laptop, f.laptop, ["project", "list"])
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(listed.stderr.contains(Self.notice) && listed.stderr.contains("the table writing_blocks is missing"), "\(listed.stderr)")
        // A write is refused in this mode (it would be lost with the copy), with the reason and what to run.
        let created = try f.hosts.run(.laptop, f.laptop, ["project", "create", "Scratch", "--register", "fiction", "--json"])
        #expect(created.status == 65 && created.stderr.contains("'project create' is refused in in-memory mode (the writing store cannot be opened: "
                                                               + "the table writing_blocks is missing)"), "\(created.stderr)")
        #expect(created.stderr.contains("hint: 'vaultctl repair --from DEVICE' rebuilds the writing store") && created.stdout.isEmpty, "\(created.stderr)")
        // What the desk holds is read into memory.
        let synced = try f.sync()
        #expect(synced.status == 0 && synced.stderr.contains(Self.notice), "\(synced.stderr)")
        #expect(synced.stdout.contains("Synced 1 project(s)") && !synced.stdout.contains("received 0"), "\(synced.stdout)")
        let status = try RepairCommandTests.json(try f.hosts.run(.laptop, f.laptop, ["sync", "status", "--json"]))
        #expect(status["in_memory"] is String, "\(status)")
        // A backup of the copy would hold an empty store: refused, with the reason.
        let backup = try f.hosts.run(.laptop, f.laptop, ["backup", "-o", f.laptop.root + "/copy.vaultbackup"])
        #expect(backup.status == 65 && backup.stderr.contains("'backup' is refused in in-memory mode"), "\(backup.stderr)")
        #expect(Self.tree(f.laptop.directory) == before, "a command in in-memory mode changed the vault's files")
        #expect(try RepairFromDeviceTests.contents(f, f.desk) == expected, "the in-memory sync changed the desk")

        // Repair works on the vault itself; then the notice is gone and the documents are back.
        let repaired = try f.hosts.run(.laptop, f.laptop, ["repair", "--from", f.deskFingerprint, "--address", f.channelAddress])
        #expect(repaired.status == 0 && !repaired.stderr.contains(Self.notice), "\(repaired.stderr)")
        let after = try f.hosts.run(.laptop, f.laptop, ["project", "list"])
        #expect(after.status == 0 && !after.stderr.contains("in-memory mode"), "\(after.stderr)")
        #expect(try RepairFromDeviceTests.contents(f, f.laptop) == expected)
        #expect(try f.laptop.run(["audit", "verify"], unlock: false).status == 0)
    }
}
