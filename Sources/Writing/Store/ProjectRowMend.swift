import AuditChain
import CryptoVault
import PrivilegedSession

/// `vaultctl repair` for a damaged row of `writing_projects` (`DamagedProjectRow`; review 17 s14,
/// N-s14-8 and N-s14-9): each damaged column written again from what says it elsewhere, in one
/// audited transaction (`writing.project-row-mended` per project: columns, from). Never from the
/// row itself, which is what is damaged:
/// - the compartment: the row's own when it is live, else the one named `project ID` or `project ID
///   (synced)`, as the project's makers name it, that no whole project row has and in which the
///   project's sealed name opens; when none, the project is not mended (nothing of it opens here);
/// - the id, when its column is damaged (or its compartment is named for an id no row has): from
///   that compartment's name;
/// - the register, the kind, the view-only mark, the archived time and the creation time: from
///   the audit log's entries for the project (the last `writing.project-create` or
///   `writing.project-register`, `writing.project-view-only`, `writing.project-archive`; the first
///   create's time), read in a session of the compartment when it is privileged (actor `repair`);
///   the register falls back to the compartment's own when no entry says it;
/// - the name's lookup hash: cleared (the project is found by its name as before the column held
///   one, and the hash is written again the next time the name is).
public enum ProjectRowMend {
    /// One project row written again, or why it was not.
    public struct Outcome: Sendable, Equatable {
        public let project: ProjectID?
        public let rowid: Int64
        /// The columns written again (empty when not mended).
        public let mended: [String]
        /// Why the row could not be mended (nil when it was).
        public let notMended: String?
    }

    public static func mend(_ vault: UnlockedVault) throws -> [Outcome] {
        let damaged = try vault.transaction { tx in try WritingStore(tx).damagedProjects() }
        // One row that cannot be written again is said, never every other row's mend with it
        // (reviewer15's V-8: one such row made `repair` exit 65 and mend nothing).
        return damaged.map { damage in
            do { return try mend(damage, in: vault) } catch {
                let code = (error as? WritingError)?.code.rawValue ?? (error as? CryptoVaultError)?.code.rawValue ?? "unreadable"
                return Outcome(project: damage.id, rowid: damage.rowid, mended: [],
                               notMended: "it could not be written again (\(code)); 'vaultctl repair --from DEVICE' rebuilds the store from your own device")
            }
        }
    }

    private static func mend(_ damage: DamagedProjectRow, in vault: UnlockedVault) throws -> Outcome {
        let unmended = { (why: String) in Outcome(project: damage.id, rowid: damage.rowid, mended: [], notMended: why) }
        // The compartment's own row (R15-9) is CryptoVault's, mended before this where its binding says how.
        if damage.columns == [DamagedProjectRow.compartmentRow] {
            return unmended("its compartment's row in compartments is damaged, and its binding verifies no register, flag or id this vault "
                            + "knows, so it cannot be written again here; 'vaultctl repair --from DEVICE' rebuilds the store from your own device")
        }
        guard let (id, compartment) = try owner(of: damage, in: vault) else {
            return unmended("no live compartment of this vault holds the project's name (one named for it, where its sealed name opens), "
                            + "so nothing of it can be opened here; 'vaultctl repair --from DEVICE' rebuilds the store from your own device that holds it")
        }
        let recorded = try RecordedProject(id, compartment: compartment, in: vault)
        var values: [(column: String, value: SQLValue)] = []
        // The id and compartment found are written whenever they differ from the row's, whatever
        // columns were found damaged (V-8: a damaged register beside a compartment id naming another
        // compartment).
        var columns = damage.columns
        if damage.compartmentID != compartment.id, !columns.contains("compartment_uuid") { columns.append("compartment_uuid") }
        if damage.id != id, !columns.contains("id") { columns.append("id") }
        for column in columns {
            switch column {
            case "id": values.append((column, .blob(id.bytes)))
            case "compartment_uuid": values.append((column, .blob(compartment.id.bytes)))
            case "register": values.append((column, .text((recorded.register ?? compartment.register).rawValue)))
            case "kind":
                guard let kind = recorded.kind else { return unmended("the audit log holds no readable entry that made it, so its kind is not known") }
                values.append((column, .text(kind.rawValue)))
            case "created_at": values.append((column, .integer(recorded.createdAt ?? VaultClock.system.now())))
            case "archived_at": values.append((column, recorded.archivedAt.map { .integer($0) } ?? .null))
            case "view_only": values.append((column, .integer(recorded.viewOnly ? 1 : 0)))
            case "name_lookup": values.append((column, .null))
            default: return unmended("its column \(column) is not one this repair knows")
            }
        }
        try vault.transaction { tx in
            try WritingStore(tx).rewriteProjectRow(damage.rowid, of: id, values, from: recorded.sources)
        }
        return Outcome(project: id, rowid: damage.rowid, mended: values.map(\.column), notMended: nil)
    }

    /// The project's id and its live compartment: of the row's own compartment (its id read from the
    /// compartment's name when the id column is what is damaged) and the compartments named `project
    /// ID` and `project ID (synced)`, the first that no whole project row has and in which the
    /// project's sealed name opens (reviewer15's V-1: `compartment create` can make a compartment
    /// with either name, which is then not the project's).
    private static func owner(of damage: DamagedProjectRow, in vault: UnlockedVault) throws -> (ProjectID, VaultCompartment)? {
        let (taken, candidates) = try vault.transaction { tx -> (Set<CompartmentID>, [(ProjectID, VaultCompartment)]) in
            var candidates: [(ProjectID, VaultCompartment)] = []
            if let compartmentID = damage.compartmentID, let compartment = try? tx.compartment(withID: compartmentID) {
                let idDamaged = damage.id == nil || damage.columns.contains("id")
                if let id = idDamaged ? projectID(namedIn: compartment.name) : damage.id { candidates.append((id, compartment)) }
            }
            if let id = damage.id, !damage.columns.contains("id") {
                for name in ["project \(id.hex)", "project \(id.hex) (synced)"] {
                    if let compartment = try? tx.vault.compartment(named: name) { candidates.append((id, compartment)) }
                }
            }
            return (try WritingStore(tx).compartmentsOfWholeProjects(), candidates)
        }
        for (id, compartment) in candidates where !taken.contains(compartment.id) && WritingStore.isMade(in: compartment, id) {
            if try nameOpens(of: id, in: compartment, vault) { return (id, compartment) }
        }
        return nil
    }

    /// Whether project `id`'s name opens in `compartment`: a privileged one's in a session (actor `repair`).
    private static func nameOpens(of id: ProjectID, in compartment: VaultCompartment, _ vault: UnlockedVault) throws -> Bool {
        let session = compartment.isPrivileged
            ? try PrivilegedProcessingSession.start(vault: vault, compartment: compartment, actor: "repair", purpose: "mend a damaged project row")
            : nil
        defer { try? session?.end() }
        let access: RecordAccess = session.map { .session($0) } ?? .vault
        return try vault.transaction { tx in WritingStore(tx, access: access).nameOpens(of: id, in: compartment) }
    }

    /// The project id a project's compartment name holds (`project ID`, `project ID (synced)`).
    public static func projectID(namedIn name: String) -> ProjectID? {
        let words = name.split(separator: " ")
        guard words.count >= 2, words[0] == "project", words.count == 2 || name.hasSuffix(" (synced)") else { return nil }
        return try? ProjectID(hex: String(words[1]))
    }
}

/// What the audit log says of a project's row (`ProjectRowMend`): each value from the last entry
/// that sets it, nil where no readable entry does.
struct RecordedProject {
    var register: Register?
    var kind: ProjectKind?
    var viewOnly = false
    var archivedAt: Int64?
    var createdAt: Int64?
    /// What the values came from, for the audit entry: `audit-log`, or `compartment` for a register
    /// no entry says.
    var sources: String { register == nil ? "audit-log,compartment" : "audit-log" }

    /// Reads the log's entries for `project`; a privileged compartment's only in a session of it.
    init(_ project: ProjectID, compartment: VaultCompartment, in vault: UnlockedVault) throws {
        let session = compartment.isPrivileged
            ? try PrivilegedProcessingSession.start(vault: vault, compartment: compartment, actor: "repair", purpose: "mend a damaged project row")
            : nil
        defer { try? session?.end() }
        let keys = try vault.auditKeys()
        let actions: Set<String> = [AuditAction.writingProjectCreate.name, AuditAction.writingProjectRegister.name,
                                    AuditAction.writingProjectViewOnly.name, AuditAction.writingProjectArchive.name]
        for entry in try AuditLogReader(vault: vault.vault).entries() where entry.subjectID == project.bytes && actions.contains(entry.action) {
            guard let opened = try? AuditLogReader.details(of: entry, vaultID: vault.vault.vaultID, keys: keys) else { continue }
            let details = Dictionary(opened.map { ($0.name, $0.value) }) { first, _ in first }
            switch entry.action {
            case AuditAction.writingProjectCreate.name:
                if createdAt == nil { createdAt = entry.time }
                kind = details["kind"].flatMap(ProjectKind.init(rawValue:)) ?? kind
                register = details["register"].flatMap(Register.init(rawValue:)) ?? register
            case AuditAction.writingProjectRegister.name:
                register = details["register"].flatMap(Register.init(rawValue:)) ?? register
            case AuditAction.writingProjectViewOnly.name:
                if let mark = details["view-only"] { viewOnly = mark == "yes" }
            default:
                if let archived = details["archived"] { archivedAt = archived == "yes" ? entry.time : nil }
            }
        }
    }
}
