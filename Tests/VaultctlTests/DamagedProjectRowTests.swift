import CryptoVault
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
import TestSupport
import Writing

/// One flipped bit in a row of `writing_projects` (review 17 s14). In its register (N-s14-8) every
/// writing command, sync, `repair`, `repair --from` and the restore of every later backup exited 65
/// for the whole vault. In its compartment id (N-s14-9) the live project passed for shredded, and the
/// tool told the owner to destroy the last readable copy on the other device. Now such a row is that
/// project's damage alone: the other projects work and sync, every command and `sync status` name it,
/// nothing calls it destroyed, and `vaultctl repair` writes the row again from the audit log and the
/// compartment named for the project.
@Suite(.serialized)
struct DamagedProjectRowTests {
    enum Flip: String, CaseIterable, Sendable {
        case register, kind, compartment = "compartment_uuid", createdAt = "created_at", viewOnly = "view_only", nameLookup = "name_lookup"

        /// Damages the project's row as one flipped bit (or a value of another type) would; a kind
        /// or an id past the table's CHECK as well.
        func damage(_ project: ProjectID, in vault: CLIVault) throws {
            let database = try Database(path: vault.directory + "/vault.db", create: false, readOnly: false)
            let row = "WHERE id = X'\(project.hex)'"
            switch self {
            case .register: try database.execute("UPDATE writing_projects SET register = 'ganeral' \(row)")  // 'e' ^ 0x04
            case .kind: try database.execute("PRAGMA ignore_check_constraints = ON; UPDATE writing_projects SET kind = 'dncument' \(row)")
            case .compartment:
                var bytes = try #require(try database.queryOne("SELECT compartment_uuid FROM writing_projects \(row)")).blob("compartment_uuid")
                bytes[5] ^= 0x10
                try database.query("UPDATE writing_projects SET compartment_uuid = ? \(row)", [.blob(bytes)])
            case .createdAt: try database.execute("UPDATE writing_projects SET created_at = 'x' \(row)")
            case .viewOnly: try database.execute("PRAGMA ignore_check_constraints = ON; UPDATE writing_projects SET view_only = 3 \(row)")
            case .nameLookup: try database.execute("PRAGMA ignore_check_constraints = ON; UPDATE writing_projects SET name_lookup = X'00' \(row)")
            }
        }
    }

    /// The project's row as `project list --json` shows it.
    static func listed(_ project: ProjectID, on vault: CLIVault, _ hosts: TwoHosts) throws -> [String: Any]? {
        try rows(try hosts.run(.laptop, vault, ["project", "list", "--json"])).first { $0["id"] as? String == project.hex }
    }

    /// A vault of two projects, "Field notes" then "Case memo", each with a document "Draft" holding
    /// "Words of NAME."; and their ids, oldest first.
    static func twoProjects() throws -> (CLIVault, [String]) {
        let vault = try CLIVault()
        for name in ["Field notes", "Case memo"] {
            #expect(try vault.run(["project", "create", name, "--register", "general"]).status == 0)
            #expect(try vault.run(["doc", "add", name, "Draft"]).status == 0)
            #expect(try vault.run(["doc", "write", name, "Draft"], stdin: "Words of \(name).\n").status == 0)
        }
        return (vault, try rows(try vault.run(["project", "list", "--json"])).compactMap { $0["id"] as? String })
    }

    /// `project list --json`'s rows.
    static func rows(_ listed: CLI.Result) throws -> [[String: Any]] {
        try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]], "\(listed.stdout) \(listed.stderr)")
    }

    @Test(arguments: Flip.allCases)
    func aDamagedRowOnTheLaptopIsThatProjectsAloneAndRepairMendsIt(_ flip: Flip) throws {
        let f = try SyncOverNetworkFixture()
        let other = try f.addProject(named: "Case memo")
        try f.type("beforedamage", into: 1, on: f.laptop)
        try #require(try f.sync().status == 0)
        let before = try #require(try Self.listed(f.project, on: f.laptop, f.hosts), "the project is listed before the damage")
        try flip.damage(f.project, in: f.laptop)

        // The rest of the vault works; every command names the damaged row and what mends it.
        let listed = try f.hosts.run(.laptop, f.laptop, ["project", "list"])
        #expect(listed.status == 0 && listed.stdout.contains("Case memo"), "\(flip): \(listed.status) \(listed.stdout) \(listed.stderr)")
        #expect(listed.stderr.contains("the row of project \(f.project.hex) in writing_projects is damaged (\(flip.rawValue)")
                && listed.stderr.contains("'vaultctl repair' mends it"), "\(flip): \(listed.stderr)")
        #expect(!listed.stderr.contains("in-memory mode"), "\(flip): \(listed.stderr)")
        let shown = try f.hosts.run(.laptop, f.laptop, ["doc", "show", "Case memo", "Case memo"])
        #expect(shown.status == 0 && shown.stdout.contains("d1p0"), "\(flip): \(shown.status) \(shown.stderr)")

        // Local-only with the reason in `sync status`; never called destroyed or shredded.
        let status = try f.hosts.run(.laptop, f.laptop, ["sync", "status", "--json"])
        let projects = try #require(try RepairCommandTests.json(status)["projects"] as? [[String: Any]], "\(status.stdout)")
        #expect(projects.contains { $0["project"] as? String == f.project.hex && $0["state"] as? String == "local-only"
                                    && ($0["reason"] as? String)?.contains("writing_projects is damaged") == true }, "\(flip): \(projects)")
        #expect(projects.contains { $0["project"] as? String == f.documents[other].project.hex && $0["state"] as? String != "local-only" },
                "\(flip): \(projects)")
        // (`shredded_on` is every project's field since N-s14-5: empty here.)
        #expect(!status.stdout.contains("destroy") && projects.allSatisfy { ($0["shredded_on"] as? [Any])?.isEmpty ?? true },
                "\(flip): \(status.stdout)")

        // The other project syncs; nothing tells the owner to destroy anything; the desk keeps the project whole.
        try f.type([(document: other, paragraph: 0, words: "whiledamaged")], on: f.laptop)
        let synced = try f.sync()
        #expect(!(synced.stdout + synced.stderr).contains("destroy"), "\(flip): \(synced.stdout) \(synced.stderr)")
        #expect(try f.states(f.desk)[other].text.joined(separator: " ").contains("whiledamaged"), "\(flip): \(synced.stdout) \(synced.stderr)")
        #expect(try f.state(f.desk).text.joined(separator: " ").contains("beforedamage"), "\(flip)")

        // `repair` writes the row again as it was, recorded; the project reads and syncs again.
        let mended = try f.hosts.run(.laptop, f.laptop, ["repair"])
        #expect(mended.status == 0 && mended.stdout.contains("Mended the row of project \(f.project.hex) in writing_projects (\(flip.rawValue))"),
                "\(flip): \(mended.status) \(mended.stdout) \(mended.stderr)")
        let log = try f.laptop.run(["audit", "log", "--json", "--details", "--action", "writing.project-row-mended"])
        #expect(log.stdout.contains(flip.rawValue), "\(flip): \(log.stdout)")
        let after = try #require(try Self.listed(f.project, on: f.laptop, f.hosts), "\(flip): the project is listed after the repair")
        for key in ["register", "kind", "privileged", "compartment", "archived", "shared_by"] + (flip == .createdAt ? [] : ["created_at"]) {
            #expect("\(after[key] ?? "none")" == "\(before[key] ?? "none")", "\(flip): \(key) \(after) against \(before)")
        }
        let clean = try f.hosts.run(.laptop, f.laptop, ["doc", "show", "Field notes", "Day one"])
        #expect(clean.status == 0 && clean.stdout.contains("beforedamage") && !clean.stderr.contains("is damaged"), "\(flip): \(clean.stderr)")
        try f.type("afterrepair", into: 2, on: f.laptop)
        let again = try f.sync()
        #expect(again.status == 0, "\(flip): \(again.stdout) \(again.stderr)")
        #expect(try f.state(f.desk).text.joined(separator: " ").contains("afterrepair"), "\(flip)")
        #expect(try f.laptop.run(["audit", "verify"], unlock: false).status == 0)
    }

    /// N-s14-9 as found: the answering desk's row names no compartment; the laptop that asks is never
    /// told to destroy its copy, the desk says its project is damaged, and `repair` there mends it.
    @Test func aDamagedCompartmentIDOnTheAnsweringDeskIsDamageNeverAShred() throws {
        let f = try SyncOverNetworkFixture()
        let other = try f.addProject(named: "Case memo")
        try #require(try f.sync().status == 0)
        try Flip.compartment.damage(f.project, in: f.desk)
        try f.type("laptoponly", into: 1, on: f.laptop)
        try f.type([(document: other, paragraph: 0, words: "othersyncs")], on: f.laptop)

        let synced = try f.sync()
        let said = synced.stdout + synced.stderr
        #expect(!said.contains("destroy") && !said.contains("shredded"), "\(said)")
        let otherOnDesk = try f.edit(f.desk) { store in
            try store.documentContent(of: f.documents[other].document, in: f.documents[other].project).blocks.map(\.text)
        }
        #expect(otherOnDesk.joined(separator: " ").contains("othersyncs"), "\(said)")
        let status = try f.hosts.run(.laptop, f.laptop, ["sync", "status"])
        #expect(!status.stdout.contains("destroy") && !status.stdout.contains("shredded"), "\(status.stdout)")
        #expect(try f.state(f.laptop).text.joined(separator: " ").contains("laptoponly"))

        // On the desk: damaged, never shredded; repair (the daemon stopped) mends it; then it syncs.
        if let daemon = f.daemon { kill(daemon.process.processIdentifier, SIGKILL); daemon.process.waitUntilExit() }
        let deskStatus = try f.desk.run(["sync", "status", "--json"])
        let deskProjects = try #require(try RepairCommandTests.json(deskStatus)["projects"] as? [[String: Any]], "\(deskStatus.stdout)")
        #expect(deskStatus.stdout.contains("writing_projects is damaged") && !deskStatus.stdout.contains("destroy")
                && deskProjects.allSatisfy { ($0["shredded_on"] as? [Any])?.isEmpty ?? true }, "\(deskStatus.stdout)")
        let mended = try f.desk.run(["repair"])
        #expect(mended.status == 0 && mended.stdout.contains("Mended the row of project \(f.project.hex) in writing_projects (compartment_uuid)"),
                "\(mended.stdout) \(mended.stderr)")
        try f.startDaemon()
        let again = try f.sync()
        #expect(again.status == 0, "\(again.stdout) \(again.stderr)")
        #expect(try f.state(f.desk).text.joined(separator: " ").contains("laptoponly"))
        try f.checkConverged("after the desk's repair")
    }

    /// A backup made after the damage restores (before: exit 65 for every later backup), the
    /// restored vault names the damaged row, and `repair` mends it there.
    @Test(arguments: [Flip.register, Flip.kind, Flip.compartment])
    func aBackupOfAVaultWithADamagedRowRestoresAndRepairMendsIt(_ flip: Flip) throws {
        let (vault, ids) = try Self.twoProjects()
        let damaged = try ProjectID(hex: try #require(ids.first))
        try flip.damage(damaged, in: vault)

        let restored = try vault.restoredFromBackup()
        let shown = try restored.run(["doc", "show", "Case memo", "Draft"])
        #expect(shown.status == 0 && shown.stdout.contains("Words of Case memo."), "\(flip): \(shown.stderr)")
        #expect(shown.stderr.contains("the row of project \(damaged.hex) in writing_projects is damaged"), "\(flip): \(shown.stderr)")
        let mended = try restored.run(["repair"])
        #expect(mended.status == 0 && mended.stdout.contains("Mended the row of project \(damaged.hex)"), "\(flip): \(mended.stdout) \(mended.stderr)")
        let field = try restored.run(["doc", "show", "Field notes", "Draft"])
        #expect(field.status == 0 && field.stdout.contains("Words of Field notes."), "\(flip): \(field.stderr)")
        #expect(try restored.run(["audit", "verify"], unlock: false).status == 0)
    }

    /// reviewer15's V-7: the warning said "(COLUMN holds a value no writer stores, or no compartment
    /// of this vault)" without saying which; `doc show` of the damaged project exited 66 "no project"
    /// (by its id or its name), where its row is there and damaged (65); and `sync status` labelled a
    /// damaged general project "(privileged)" even when the compartment named for it says otherwise.
    @Test(arguments: [Flip.register, Flip.compartment])
    func aDamagedRowIsNamedForWhatItHoldsAndRefusedAsDamage(_ flip: Flip) throws {
        let (vault, ids) = try Self.twoProjects()
        let damaged = try ProjectID(hex: try #require(ids.first))
        try flip.damage(damaged, in: vault)

        let listed = try vault.run(["project", "list"])
        let said = flip == .register ? "(register holds a value no writer stores)" : "(compartment_uuid names no compartment of this vault)"
        #expect(listed.status == 0 && listed.stderr.contains("the row of project \(damaged.hex) in writing_projects is damaged \(said)")
                && !listed.stderr.contains(", or no compartment"), "\(flip): \(listed.stderr)")
        for project in [damaged.hex, "Field notes"] {
            let shown = try vault.run(["doc", "show", project, "Draft"])
            #expect(shown.status == 65 && shown.stderr.contains("writing_projects is damaged \(said)") && shown.stderr.contains("'vaultctl repair' mends it")
                    && !shown.stdout.contains("Words of Field notes."), "\(flip), \(project): \(shown.status) \(shown.stderr)")
        }
        let status = try vault.run(["sync", "status"])
        #expect(status.stdout.contains("project \(damaged.hex): LOCAL-ONLY") && !status.stdout.contains("privileged"), "\(flip): \(status.stdout)")
    }

    /// V-7's other half: when nothing here says the project's compartment (its row's compartment id
    /// flipped, and the compartment's own row damaged too), `sync status` treats it as privileged, the
    /// safe default, and says that this is why.
    @Test func aDamagedRowWhoseCompartmentIsUnknownIsTreatedAsPrivilegedAndSaysSo() throws {
        let (vault, ids) = try Self.twoProjects()
        let damaged = try ProjectID(hex: try #require(ids.first))
        let database = try Database(path: vault.directory + "/vault.db", create: false, readOnly: false)
        try database.execute("PRAGMA foreign_keys = OFF; PRAGMA ignore_check_constraints = ON")
        let uuid = try #require(try database.queryOne("SELECT compartment_uuid FROM writing_projects WHERE id = ?", [.blob(damaged.bytes)]))
            .blob("compartment_uuid")
        try database.query("UPDATE compartments SET register = 'feneral' WHERE uuid = ?", [.blob(uuid)])
        try Flip.compartment.damage(damaged, in: vault)

        let status = try vault.run(["sync", "status"])
        #expect(status.stdout.contains("project \(damaged.hex) (treated as privileged: its compartment is unknown): LOCAL-ONLY"), "\(status.stdout)")
    }

    enum WrongOwner: String, CaseIterable, Sendable {
        /// reviewer15's V-3: one bit of the id (a valid id of no project): every listing and name lookup failed.
        case idBit
        /// V-2: the row names the other project's compartment, whose own row's compartment id is flipped.
        case otherProjectsCompartment
        /// V-1: a compartment the owner made and named `project ID (synced)`; repair took it for the project's.
        case ownerNamedCompartment
        /// V-8: a damaged register beside a compartment id naming a compartment the owner made, and one
        /// flipped bit of the other project's compartment id: `repair` exited 65 and mended neither.
        case registerAndOwnersCompartment
        /// V-6: the row names a compartment the owner destroyed (a scratch one): it read as shredded,
        /// and `sync` told the owner to destroy the project on the other device too.
        case ownerDestroyedCompartment
    }

    /// A row whose id or compartment id names the wrong thing is damage (never every project's), and
    /// `repair` puts back the right id and compartment: the ones the project's sealed name opens in.
    @Test(arguments: WrongOwner.allCases)
    func aRowNamingTheWrongIdOrCompartmentIsDamageAndRepairFindsTheProjects(_ attack: WrongOwner) throws {
        let (vault, ids) = try Self.twoProjects()
        let (first, second) = (try ProjectID(hex: ids[0]), try ProjectID(hex: ids[1]))
        if attack == .ownerNamedCompartment {
            #expect(try vault.run(["compartment", "create", "project \(first.hex) (synced)", "--register", "general"]).status == 0)
        }
        if attack == .registerAndOwnersCompartment || attack == .ownerDestroyedCompartment {
            #expect(try vault.run(["compartment", "create", "Scratch", "--register", "general"]).status == 0)
        }
        if attack == .ownerDestroyedCompartment {
            #expect(try vault.run(["compartment", "destroy", "Scratch", "--yes"]).status == 0)
        }
        let database = try Database(path: vault.directory + "/vault.db", create: false, readOnly: false)
        try database.execute("PRAGMA foreign_keys = OFF")
        let uuid = { (id: ProjectID) in try #require(try database.queryOne("SELECT compartment_uuid FROM writing_projects WHERE id = ?", [.blob(id.bytes)])).blob("compartment_uuid") }
        let flipped = { (bytes: [UInt8]) in bytes.enumerated().map { $0.offset == 7 ? $0.element ^ 0x02 : $0.element } }
        switch attack {
        case .idBit:
            try database.query("UPDATE writing_projects SET id = ? WHERE id = ?", [.blob(flipped(first.bytes)), .blob(first.bytes)])
        case .otherProjectsCompartment:
            let secondsOwn = try uuid(second)
            try database.query("UPDATE writing_projects SET compartment_uuid = ? WHERE id = ?", [.blob(flipped(secondsOwn)), .blob(second.bytes)])
            try database.query("UPDATE writing_projects SET compartment_uuid = ? WHERE id = ?", [.blob(secondsOwn), .blob(first.bytes)])
        case .ownerNamedCompartment:
            try database.query("UPDATE writing_projects SET compartment_uuid = ? WHERE id = ?", [.blob(flipped(try uuid(first))), .blob(first.bytes)])
        case .registerAndOwnersCompartment:
            let scratch = try #require(try database.queryOne("""
                SELECT uuid FROM compartments WHERE uuid NOT IN (SELECT compartment_uuid FROM writing_projects) AND destroyed_at IS NULL
                """)).blob("uuid")
            try database.query("UPDATE writing_projects SET register = 'ganeral', compartment_uuid = ? WHERE id = ?", [.blob(scratch), .blob(first.bytes)])
            try database.query("UPDATE writing_projects SET compartment_uuid = ? WHERE id = ?", [.blob(flipped(try uuid(second))), .blob(second.bytes)])
        case .ownerDestroyedCompartment:
            let scratch = try #require(try database.queryOne("SELECT uuid FROM compartments WHERE destroyed_at IS NOT NULL")).blob("uuid")
            try database.query("UPDATE writing_projects SET compartment_uuid = ? WHERE id = ?", [.blob(scratch), .blob(first.bytes)])
        }

        let listed = try vault.run(["project", "list"])
        #expect(listed.status == 0 && listed.stderr.contains("in writing_projects is damaged"), "\(attack): \(listed.status) \(listed.stdout) \(listed.stderr)")
        let status = try vault.run(["sync", "status"])
        #expect(!status.stdout.contains("shredded") && !status.stdout.contains("destroy"), "\(attack): \(status.stdout)")
        if attack != .otherProjectsCompartment && attack != .registerAndOwnersCompartment {
            let other = try vault.run(["doc", "show", "Case memo", "Draft"])
            #expect(other.status == 0 && other.stdout.contains("Words of Case memo."), "\(attack): \(other.status) \(other.stderr)")
        }
        let mended = try vault.run(["repair"])
        #expect(mended.status == 0 && mended.stdout.contains("Mended the row of project"), "\(attack): \(mended.status) \(mended.stdout) \(mended.stderr)")
        #expect(!mended.stdout.contains("Could not mend"), "\(attack): \(mended.stdout)")
        for name in ["Field notes", "Case memo"] {
            let shown = try vault.run(["doc", "show", name, "Draft"])
            #expect(shown.status == 0 && shown.stdout.contains("Words of \(name).") && !shown.stderr.contains("is damaged"),
                    "\(attack), \(name): \(shown.status) \(shown.stdout) \(shown.stderr)")
        }
        let after = try Self.rows(try vault.run(["project", "list", "--json"]))
        #expect(after.compactMap { $0["id"] as? String }.sorted() == ids.sorted(), "\(attack): \(after)")
        #expect(after.allSatisfy { ($0["compartment"] as? String) == "project \($0["id"] as? String ?? "")" }, "\(attack): \(after)")
        #expect(try vault.run(["audit", "verify"], unlock: false).status == 0)
    }
}
