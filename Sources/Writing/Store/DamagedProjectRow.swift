import CryptoVault

/// A row of `writing_projects` that makes no project (review 17 s14, N-s14-8 and N-s14-9): a column
/// holding a value no writer stores (one flipped bit in the register, the kind, a flag, a time or an
/// id), or a compartment id that names no compartment of this vault, live or destroyed. It is that
/// project's damage alone (SECURITY.md §14.1): the project is left out of every listing, name lookup,
/// exchange and restore, every unlocking command names it, `sync status` shows it local-only, and
/// `vaultctl repair` mends the row (`ProjectRowMend`). The vault's other projects work as ever.
///
/// A project whose compartment was destroyed here is shredded, not damaged, whatever else of its row
/// is: only the `compartments` row says so (its `destroyed_at`), never a compartment id that is not
/// found, which one flipped bit makes of any live project's.
public struct DamagedProjectRow: Sendable, Equatable {
    /// The table whose rows these are.
    public static let table = "writing_projects"

    /// The project, when its id column is whole.
    public let id: ProjectID?
    /// Its compartment, when that column is whole (it may still name no compartment here).
    public let compartmentID: CompartmentID?
    /// The columns that hold what no writer stores, in the table's order; `compartment_uuid` also
    /// when it is whole but names no compartment of this vault.
    public let columns: [String]
    /// The row's rowid: a row whose id is damaged has no other name.
    public let rowid: Int64
    /// Of `columns`, those whose value is whole but names the wrong thing, with what it names (V-7:
    /// the warning says which, rather than "a value no writer stores, or no compartment").
    public internal(set) var misnamed: [String: String] = [:]
    /// The row's name lookup hash when that column is whole: a name typed for this project finds its
    /// damage (65) rather than "no project" (V-7).
    var nameLookup: [UInt8]? = nil

    /// Said in `columns` when what is damaged is the project's compartment's own row in
    /// `compartments` (its register, id, binding or name hash; reviewer15's R15-9): CryptoVault's
    /// row, which `vaultctl repair` writes again where its binding says what it held.
    public static let compartmentRow = "compartments"

    /// What is wrong, for warnings, `sync status` and errors: the project id and column names only.
    public var problem: String {
        if columns == [Self.compartmentRow] {
            return "the compartment of project \(id?.hex ?? "(row \(rowid))") is damaged (its row in compartments fails its checks)"
        }
        return "the row of project \(id?.hex ?? "(id damaged, row \(rowid))") in writing_projects is damaged (\(said.joined(separator: "; ")))"
    }

    /// Each damaged column with what is wrong with it, in the table's order: a value no writer stores,
    /// or (`misnamed`) what a whole value wrongly names.
    private var said: [String] {
        let unstored = columns.filter { misnamed[$0] == nil && $0 != Self.compartmentRow }
        return (unstored.isEmpty ? [] : ["\(unstored.joined(separator: ", ")) \(unstored.count == 1 ? "holds" : "hold") a value no writer stores"])
            + columns.compactMap { column in misnamed[column].map { "\(column) names \($0)" } }
            + (columns.contains(Self.compartmentRow) ? ["its compartment's row in compartments fails its checks"] : [])
    }

    /// `problem`, with what it means for the project and what mends it.
    public var warning: String {
        problem + ": the project is left out of every listing and of sync until 'vaultctl repair' mends it"
    }
}
