import CryptoVault
import Foundation
import Testing
import TestSupport
import Writing

/// One flipped bit in a core table under one project (reviewer15's R15-7 to R15-10): its sealed
/// name record, a sealed record's key version, its compartment's register, id or key version. Each
/// failed the whole vault (exit 65 or 66 for every command, `audit verify` and `repair` among them,
/// and a backup made then did not restore) or lost the project silently. Now each is that project's
/// damage alone: the other project lists and reads, the log verifies, a backup restores, the damaged
/// project is named with what to do, and `repair` mends what the vault's own evidence says.
@Suite(.serialized)
struct DamagedCoreRowTests {
    enum Damage: String, CaseIterable, Sendable {
        /// R15-8: one bit of the project's sealed name (byte 37 ^ 0x10).
        case nameRecord
        /// R15-7: a title record's key_version column 0, past its CHECK.
        case recordKeyVersion
        /// R15-9: the compartment's register 'feneral'.
        case compartmentRegister
        /// R15-9: the compartment's only key version row says 3.
        case compartmentKeyVersion
        /// R15-10: one bit of the compartment's id.
        case compartmentID

        func damage(_ project: ProjectID, in vault: CLIVault) throws {
            let database = try Database(path: vault.directory + "/vault.db", create: false, readOnly: false)
            try database.execute("PRAGMA foreign_keys = OFF; PRAGMA ignore_check_constraints = ON")
            let compartment = try #require(try database.queryOne("SELECT compartment_uuid FROM writing_projects WHERE id = ?", [.blob(project.bytes)]))
                .blob("compartment_uuid")
            switch self {
            case .nameRecord:
                let row = try #require(try database.queryOne("""
                    SELECT id, sealed FROM sealed_records WHERE table_name = 'writing_projects' AND record_id = ? AND field = 'name'
                    """, [.blob(project.bytes)]))
                var sealed = try row.blob("sealed")
                sealed[37] ^= 0x10
                try database.query("UPDATE sealed_records SET sealed = ? WHERE id = ?", [.blob(sealed), .integer(try row.integer("id"))])
            case .recordKeyVersion:
                try database.query("""
                    UPDATE sealed_records SET key_version = 0 WHERE table_name = 'writing_nodes' AND field = 'title'
                    AND record_id IN (SELECT id FROM writing_nodes WHERE project_id = ?)
                    """, [.blob(project.bytes)])
            case .compartmentRegister:
                try database.query("UPDATE compartments SET register = 'feneral' WHERE uuid = ?", [.blob(compartment)])
            case .compartmentKeyVersion:
                try database.query("UPDATE compartment_keys SET version = 3 WHERE compartment_id = (SELECT id FROM compartments WHERE uuid = ?)",
                                   [.blob(compartment)])
            case .compartmentID:
                var flipped = compartment
                flipped[0] ^= 0x01
                try database.query("UPDATE compartments SET uuid = ? WHERE uuid = ?", [.blob(flipped), .blob(compartment)])
            }
        }

        /// What `repair` says it mended; nil for the name, which only its owner can give again.
        var mended: String? {
            switch self {
            case .nameRecord: nil
            case .compartmentKeyVersion: "in compartment_keys: it is version 1 again"
            case .recordKeyVersion: "Mended the key_version of sealed record writing/writing_nodes/"
            case .compartmentRegister: "in compartments (register) from its binding"
            case .compartmentID: "in compartments (uuid) from its binding"
            }
        }
    }

    @Test(arguments: Damage.allCases)
    func oneProjectsCoreDamageIsItsAloneAndRepairMendsWhatTheVaultSays(_ damage: Damage) throws {
        let (vault, ids) = try DamagedProjectRowTests.twoProjects()
        let damaged = try ProjectID(hex: ids[0])
        try damage.damage(damaged, in: vault)

        // The other project lists and reads; the damaged one is named: in every listing, or (a
        // title's record) by the command that opens it.
        let listed = try vault.run(["project", "list"])
        #expect(listed.status == 0 && listed.stdout.contains("Case memo") && (listed.stderr.contains(damaged.hex) || damage == .recordKeyVersion),
                "\(damage): \(listed.status) \(listed.stdout) \(listed.stderr)")
        if damage == .recordKeyVersion {
            let shown = try vault.run(["doc", "show", damaged.hex, "Draft"])
            #expect(shown.status == 65 && shown.stderr.contains("says key version 1, its row 0") && shown.stderr.contains("'vaultctl repair'"),
                    "\(shown.status) \(shown.stderr)")
        }
        let other = try vault.run(["doc", "show", "Case memo", "Draft"])
        #expect(other.status == 0 && other.stdout.contains("Words of Case memo."), "\(damage): \(other.status) \(other.stderr)")
        #expect(try vault.run(["audit", "verify"], unlock: false).status == 0, "\(damage)")

        // A backup made now restores, and the other project reads there.
        let restored = try vault.restoredFromBackup()
        let there = try restored.run(["doc", "show", "Case memo", "Draft"])
        #expect(there.status == 0 && there.stdout.contains("Words of Case memo."), "\(damage): \(there.status) \(there.stderr)")

        let repaired = try vault.run(["repair"])
        #expect(repaired.status == 0, "\(damage): \(repaired.status) \(repaired.stdout) \(repaired.stderr)")
        guard let said = damage.mended else { return }
        #expect(repaired.stdout.contains(said), "\(damage): \(repaired.stdout)")
        let mended = try vault.run(["doc", "show", "Field notes", "Draft"])
        #expect(mended.status == 0 && mended.stdout.contains("Words of Field notes.") && !mended.stderr.contains("damaged"),
                "\(damage): \(mended.status) \(mended.stderr)")
        #expect(try vault.run(["audit", "verify"], unlock: false).status == 0, "\(damage)")
    }

    /// R15-8: the damaged name is listed by id, a name typed for another project still finds it, the
    /// project is reached by its id, and a new name (rename by id) mends it.
    @Test func aDamagedNameIsListedByIdAndARenameByIdMendsIt() throws {
        let (vault, ids) = try DamagedProjectRowTests.twoProjects()
        let damaged = try ProjectID(hex: ids[0])
        try Damage.nameRecord.damage(damaged, in: vault)

        let listed = try vault.run(["project", "list"])
        #expect(listed.stdout.contains("\(damaged.hex)  (name damaged)"), "\(listed.stdout)")
        #expect(listed.stderr.contains("the name of project \(damaged.hex) does not open (corruptRecord)")
                && listed.stderr.contains("'vaultctl project rename \(damaged.hex) NEW-NAME'"), "\(listed.stderr)")
        let json = try DamagedProjectRowTests.rows(try vault.run(["project", "list", "--json"]))
        #expect(json.contains { $0["id"] as? String == damaged.hex && $0["name"] is NSNull && $0["name_damaged"] as? String == "corruptRecord" },
                "\(json)")
        let byID = try vault.run(["doc", "show", damaged.hex, "Draft"])
        #expect(byID.status == 0 && byID.stdout.contains("Words of Field notes."), "\(byID.status) \(byID.stderr)")

        #expect(try vault.run(["project", "rename", damaged.hex, "Field notes again"]).status == 0)
        let renamed = try vault.run(["project", "list"])
        #expect(renamed.stdout.contains("Field notes again") && !renamed.stderr.contains("does not open"), "\(renamed.stdout) \(renamed.stderr)")
    }

    /// R15-7 at unlock: the vault's open finds a sealed record's key_version past its CHECK, so every
    /// unlocking command (a listing that opens no title among them) says so once, with what mends it;
    /// after `repair` none does.
    @Test func aSealedRecordsDamagedKeyVersionIsWarnedAtEveryUnlock() throws {
        let (vault, ids) = try DamagedProjectRowTests.twoProjects()
        try Damage.recordKeyVersion.damage(try ProjectID(hex: ids[0]), in: vault)

        for command in [["project", "list"], ["doc", "show", "Case memo", "Draft"], ["unlock"]] {
            let ran = try vault.run(command)
            let warnings = ran.stderr.components(separatedBy: "\n").filter { $0.hasPrefix("vaultctl: warning: ") && $0.contains("sealed_records") }
            #expect(ran.status == 0 && warnings.count == 1 && warnings.first?.contains("1 sealed record(s)") == true
                    && warnings.first?.contains("'vaultctl repair'") == true, "\(command): \(ran.status) \(ran.stderr)")
        }
        #expect(try vault.run(["repair"]).status == 0)
        let listed = try vault.run(["project", "list"])
        #expect(listed.status == 0 && !listed.stderr.contains("sealed_records"), "\(listed.stderr)")
    }

    /// R15-9's key version: the project's records do not open under the keys its compartment has;
    /// that project's commands say so (66, the key version named), never the other's.
    @Test func aCompartmentsDamagedKeyVersionRefusesItsProjectAlone() throws {
        let (vault, ids) = try DamagedProjectRowTests.twoProjects()
        let damaged = try ProjectID(hex: ids[0])
        try Damage.compartmentKeyVersion.damage(damaged, in: vault)

        let shown = try vault.run(["doc", "show", damaged.hex, "Draft"])
        #expect(shown.status == 66 && shown.stderr.contains("has no active key version 1"), "\(shown.status) \(shown.stderr)")
        let listed = try vault.run(["project", "list"])
        #expect(listed.stdout.contains("\(damaged.hex)  (name damaged)")
                && listed.stderr.contains("does not open (unknownKeyVersion)") && listed.stderr.contains("'vaultctl repair --from DEVICE'"),
                "\(listed.stdout) \(listed.stderr)")
    }
}
