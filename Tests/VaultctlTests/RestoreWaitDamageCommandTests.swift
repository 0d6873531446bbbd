import CryptoVault
import Foundation
import Testing
import TestSupport

/// A damaged row of `sync_restore_waits` (restore14's "left open": one flipped bit in any of its
/// columns, or a value no writer makes). The row names a device a restored project waits for before
/// it takes changes (SECURITY.md §19.5, §19.10). Before, a kind or a device id of another type sent
/// the whole writing store to the in-memory mode (the vault's damage, not the project's); a flipped
/// bit in a device id made a well-formed id of no paired device, which stopped counting, so the wait
/// ended with the desk's pull while the tablet held the laptop's later record (the next write forked
/// with it); a flipped bit in the project id left the project with no row, so any own device's pull
/// ended it; and `vaultctl repair` mended none of them. Now each is the project's damage (named, the
/// project local-only; a row naming no project keeps every waiting project waiting), the project
/// keeps waiting, and `repair` writes the row again or, when the device it named cannot be known,
/// makes the project wait for every device that may hold its later records: never a lifted wait.
@Suite(.serialized)
struct RestoreWaitDamageCommandTests {
    enum Damage: String, CaseIterable, Sendable {
        /// 'own' → 'owo' (one bit): past the kind's CHECK.
        case kindBit
        /// One bit of the tablet's device id: a well-formed id of no paired device.
        case deviceBit
        /// The device id of another type (text): past its CHECK.
        case deviceType
        /// The time's sign bit: a value no writer stores.
        case setAtSign
        /// One bit of the project id: the row names no project here.
        case projectBit

        func sql(project: [UInt8], device: [UInt8]) -> String {
            let row = "project_id = X'\(Self.hex(project))' AND device_id = X'\(Self.hex(device))'"
            switch self {
            case .kindBit: return "UPDATE sync_restore_waits SET kind = 'owo' WHERE \(row)"
            case .deviceBit: return "UPDATE sync_restore_waits SET device_id = X'\(Self.hex(Self.flip(device)))' WHERE \(row)"
            case .deviceType: return "UPDATE sync_restore_waits SET device_id = 'tablet' WHERE \(row)"
            case .setAtSign: return "UPDATE sync_restore_waits SET set_at = -set_at - 1 WHERE \(row)"
            case .projectBit: return "UPDATE sync_restore_waits SET project_id = X'\(Self.hex(Self.flip(project)))' WHERE \(row)"
            }
        }

        static func flip(_ bytes: [UInt8]) -> [UInt8] { [bytes[0] ^ 0x04] + bytes.dropFirst() }
        static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }
    }

    /// The restored laptop's rows, read as stored.
    static func rows(_ vault: CLIVault) throws -> [(project: [UInt8], device: [UInt8])] {
        try Database(path: vault.directory + "/vault.db", create: false, readOnly: true)
            .query("SELECT project_id, device_id FROM sync_restore_waits ORDER BY rowid").map { (try $0.blob("project_id"), try $0.blob("device_id")) }
    }

    /// A write to "Memo" is refused (77) and nothing is written; twice, so that no refusal lifts the
    /// wait for the next command.
    static func expectStillWaits(_ restored: CLIVault, _ damage: Damage, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let before = try RestoreWaitsForEveryDeviceCommandTests.show(restored, "Memo", "Draft")
        for _ in 0..<2 {
            let refused = try restored.run(["doc", "write", "Memo", "Draft"], stdin: RestoreWaitsForEveryDeviceCommandTests.restoredWords)
            #expect(refused.status == 77 && !refused.stderr.contains("takes changes again"),
                    "\(damage): \(refused.status): \(refused.stderr)", sourceLocation: sourceLocation)
        }
        #expect(try RestoreWaitsForEveryDeviceCommandTests.show(restored, "Memo", "Draft") == before, "\(damage): nothing was written",
                sourceLocation: sourceLocation)
    }

    @Test(arguments: Damage.allCases)
    func aDamagedRestoreWaitRowKeepsTheProjectWaitingAndRepairMendsIt(_ damage: Damage) throws {
        let setup = try RestoreWaitsForEveryDeviceCommandTests.threeOwnDevices()
        let restored = setup.restored, desk = setup.desk, tablet = setup.tablet
        // After the desk's pull the tablet alone is awaited: one row.
        let row = try #require(try Self.rows(restored).first)
        try #require(try Self.rows(restored).count == 1)
        try Database(path: restored.directory + "/vault.db", create: false, readOnly: false)
            .execute("PRAGMA ignore_check_constraints = ON; " + damage.sql(project: row.project, device: row.device))

        // The vault opens as ever (no in-memory mode), the damage named.
        let shown = try restored.run(["doc", "show", "Memo", "Draft"])
        #expect(shown.status == 0 && !shown.stderr.contains("in-memory mode"), "\(damage): \(shown.stderr)")
        #expect(shown.stderr.contains("sync_restore_waits") && shown.stderr.contains("'vaultctl repair'"), "\(damage): \(shown.stderr)")
        // Still waiting, even after another pull from the desk (never the tablet's row lifted).
        _ = try SyncNotInSyncCommandTests.sync(restored, with: desk)
        try Self.expectStillWaits(restored, damage)

        let repaired = try restored.run(["repair"])
        #expect(repaired.status == 0 && repaired.stdout.contains("sync_restore_waits"), "\(damage): \(repaired.stdout) \(repaired.stderr)")
        let log = try restored.run(["audit", "log", "--json", "--details", "--action", "sync.rows-mended"])
        #expect(log.stdout.contains("sync_restore_waits"), "\(damage): \(log.stdout)")
        let clean = try restored.run(["doc", "show", "Memo", "Draft"])
        #expect(!clean.stderr.contains("sync_restore_waits"), "\(damage): \(clean.stderr)")

        // Still waiting for the tablet after the repair (and, when the row's device could not be
        // known, for every own device again); a pull from each ends it, and all three converge.
        try RestoreWaitsForEveryDeviceCommandTests.expectRefusedNaming(restored, "Memo", "Draft", device: tablet,
                                                                       words: RestoreWaitsForEveryDeviceCommandTests.restoredWords)
        try ForkedColleagueCommandTests.synced(restored, with: tablet)
        try ForkedColleagueCommandTests.synced(restored, with: desk)
        let written = try restored.run(["doc", "write", "Memo", "Draft"], stdin: RestoreWaitsForEveryDeviceCommandTests.restoredWords)
        #expect(written.status == 0, "\(damage): \(written.status): \(written.stderr)")
        for device in [tablet, desk] { try ForkedColleagueCommandTests.synced(restored, with: device) }
        let shows = try [restored, tablet, desk].map { try RestoreWaitsForEveryDeviceCommandTests.show($0, "Memo", "Draft") }
        #expect(shows.allSatisfy { $0 == RestoreWaitsForEveryDeviceCommandTests.restoredWords }, "\(damage): \(shows)")
        try RestoreWaitsForEveryDeviceCommandTests.expectNoFork([restored, tablet, desk])
    }
}
