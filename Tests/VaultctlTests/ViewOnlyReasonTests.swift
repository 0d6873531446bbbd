import Foundation
import Sync
import Testing
import TestSupport
import Writing

/// A refused change of a project held view-only says the one reason that holds (F17-8). Before, every
/// such refusal gave two ("shared with you to view only, or, after a repair, a restore-backup or a
/// recover, waits for this device's own records"), though the vault knows which. The viewer's case is
/// in ViewOnlyCommandTests, a restore's wait (naming the devices) in RestoredOwnRecordsCommandTests;
/// here a repair's wait for this device's own records, which names no devices.
@Suite struct ViewOnlyReasonTests {
    /// A project of one document whose own records a repair left awaited (`awaitOwnRecords`, what
    /// `repair --from` and the rows' mend call), as the library makes it.
    static func projectAwaitingOwnRecords() throws -> (vault: CLIVault, project: String) {
        let vault = try CLIVault()
        for arguments in [["project", "create", "Notes", "--register", "general"], ["doc", "add", "Notes", "Draft"]] {
            let made = try vault.run(arguments)
            try #require(made.status == 0, "\(arguments): \(made.stderr)")
        }
        let project = try #require((try RepairCommandTests.json(try vault.run(["project", "show", "Notes", "--json"])))["id"] as? String)
        let unlocked = try SyncOverNetworkFixture.open(vault)
        defer { try? unlocked.vault.finishCommand() }
        let keys = try unlocked.deviceKeys()
        try unlocked.transaction { tx in
            let sync = VaultSync(WritingStore(tx), author: SyncAuthor(device: keys.profile.deviceID, key: keys.signingKey), devices: [:])
            try sync.awaitOwnRecords(of: try ProjectID(hex: project), upTo: 5, at: 0)
        }
        return (vault, project)
    }

    @Test func aWriteWhileARepairWaitsForThisDevicesOwnRecordsSaysThatAloneAndTheWayOut() throws {
        let (vault, project) = try Self.projectAwaitingOwnRecords()
        let refused = try vault.run(["doc", "write", "Notes", "Draft"], stdin: "Mine.\n")
        #expect(refused.status == 77)
        #expect(refused.stderr == "vaultctl: error: project \(project) is view-only here until this device's own records of it come back from "
                + "one of your own devices: the store here was rebuilt without the latest of them, and a change now would reuse their numbers. "
                + "Nothing was changed\n"
                + "hint: 'vaultctl sync now --peer DEVICE' with your own device that holds them; if none does, "
                + "'vaultctl repair --write-anyway \(project)' lets it take changes now\n", "\(refused.stderr)")
        // A command that changes the project's row alone says the same (it gave the store's two reasons).
        let renamed = try vault.run(["project", "rename", "Notes", "Other"])
        #expect(renamed.status == 77 && renamed.stderr.hasPrefix("vaultctl: error: project \(project) is view-only here until"), "\(renamed.stderr)")
        // The way out the hint names works.
        #expect(try vault.run(["repair", "--write-anyway", project]).status == 0)
        #expect(try vault.run(["doc", "write", "Notes", "Draft"], stdin: "Mine.\n").status == 0)
    }
}
