import CryptoVault
import PrivilegedSession

/// How a `WritingStore` opens a project's sealed records: an ordinary project's with the vault's
/// own access, a privileged one's only through a live session of its compartment (the daemon's, or
/// a one-command session opened with a purpose). Sealing needs neither.
public enum RecordAccess: Sendable {
    case vault
    case session(PrivilegedProcessingSession)

    /// The session, if it is one of `compartment`'s.
    public func session(of compartment: VaultCompartment) -> PrivilegedProcessingSession? {
        guard case .session(let session) = self, session.compartment.id == compartment.id else { return nil }
        return session
    }
}

/// Where each sealed value of the writing model lives (SECURITY.md §14.3): module `writing`, the
/// record's table, its 16-byte id, and one field per table.
enum WritingRecord {
    static let module = "writing"

    static func projectName(_ id: ProjectID) throws -> SealedRecordLocation {
        try SealedRecordLocation(module: module, table: "writing_projects", record: id, field: "name")
    }

    static func nodeTitle(_ id: NodeID) throws -> SealedRecordLocation {
        try SealedRecordLocation(module: module, table: "writing_nodes", record: id, field: "title")
    }

    static func block(_ id: BlockID) throws -> SealedRecordLocation {
        try SealedRecordLocation(module: module, table: "writing_blocks", record: id, field: "block")
    }

    static func entry(_ id: EntryID) throws -> SealedRecordLocation {
        try SealedRecordLocation(module: module, table: "writing_entries", record: id, field: "entry")
    }

    /// Piece `index` of a snapshot's sealed value (`SnapshotRecord.parts`).
    static func snapshotPart(_ id: SnapshotID, _ index: Int) throws -> SealedRecordLocation {
        try SealedRecordLocation(module: module, table: "writing_snapshots", record: id, field: "part-\(index)")
    }

    /// Piece `index` of a branch's sealed value (`BranchRecord.parts`).
    static func branchPart(_ id: BranchID, _ index: Int) throws -> SealedRecordLocation {
        try SealedRecordLocation(module: module, table: "writing_branches", record: id, field: "part-\(index)")
    }

    static func branchProvenance(_ id: BranchID) throws -> SealedRecordLocation {
        try SealedRecordLocation(module: module, table: "writing_branches", record: id, field: "provenance")
    }

    static func snapshotTitle(_ id: SnapshotID) throws -> SealedRecordLocation {
        try SealedRecordLocation(module: module, table: "writing_snapshots", record: id, field: "title")
    }
}

extension WritingStore {
    /// Opens records of `project`, all or none, in order: the one place the store reads plaintext.
    /// A privileged project without a session of its compartment is refused before anything opens.
    ///
    /// Each record is handed to `decode` (with its index in `locations`) where the vault opened it,
    /// in the transaction's locked scratch buffer, which is wiped after the call (SECURITY.md §4.8):
    /// no copy of a whole record is made in ordinary memory. The values `decode` makes (the model's
    /// strings) are ordinary memory, neither locked nor wiped (SECURITY.md §5). A record `decode`
    /// refuses ends the open there, and the transaction with it.
    func open<Value>(_ locations: [SealedRecordLocation], of project: WritingProject,
                     as decode: (_ index: Int, _ plaintext: UnsafeRawBufferPointer) throws -> Value) throws -> [Value] {
        guard !locations.isEmpty else { return [] }
        var values: [Value] = []
        values.reserveCapacity(locations.count)
        guard project.isPrivileged else {
            try transaction.openRecords(at: locations, in: project.compartment) { index, plaintext in
                values.append(try decode(index, plaintext))
            }
            return values
        }
        try readingSession(of: project).openRecords(at: locations, in: transaction) { index, plaintext in
            values.append(try decode(index, plaintext))
        }
        return values
    }

    /// Refuses a privileged project without a session of its compartment: the check every read
    /// makes, also made where a read might open nothing (a search of an empty project).
    func checkReadable(_ project: WritingProject) throws {
        if project.isPrivileged { _ = try readingSession(of: project) }
    }

    /// The session that reads a privileged project's records, or the refusal.
    func readingSession(of project: WritingProject) throws -> PrivilegedProcessingSession {
        guard let session = access.session(of: project.compartment) else {
            throw WritingError(.privilegedSessionRequired,
                               "project \(project.id) is privileged: its records are read only in a privileged processing session of its compartment")
        }
        return session
    }

    func openText(_ locations: [SealedRecordLocation], of project: WritingProject) throws -> [String] {
        try open(locations, of: project) { _, plaintext in
            guard let text = String(validating: plaintext, as: UTF8.self) else {
                throw WritingError(.damagedRecord, "a sealed name or title is not UTF-8")
            }
            return text
        }
    }

    /// Whether the record at `location` holds exactly `bytes`, told by its digest without opening it
    /// (a privileged project's only in a session, as a read).
    func holds(_ bytes: [UInt8], at location: SealedRecordLocation, of project: WritingProject) throws -> Bool {
        guard project.isPrivileged else { return try transaction.recordHolds(bytes, at: location, in: project.compartment) }
        return try readingSession(of: project).recordHolds(bytes, at: location, in: transaction)
    }

    func seal(_ bytes: [UInt8], at location: SealedRecordLocation, of project: WritingProject) throws {
        try transaction.sealRecord(bytes, at: location, in: project.compartment)
    }

    func remove(_ location: SealedRecordLocation, of project: WritingProject) throws {
        try transaction.removeRecord(at: location, in: project.compartment)
    }
}
