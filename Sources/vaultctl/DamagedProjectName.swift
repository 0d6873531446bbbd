import CryptoVault
import Writing

/// A project whose sealed name does not open here (reviewer15's R15-8: one flipped bit in its name
/// record made `project list`, and every command that takes any project's name, exit 65 for every
/// project). The name is that project's alone (SECURITY.md §14.1): listings show the project by its
/// id as damaged, a name typed for another project still finds that one, and this one is reached by
/// its id. Only the error's code is said, never its message (which names what was being opened).
struct DamagedProjectName: Error, Sendable {
    let project: ProjectID
    /// The failure's code: `corruptRecord` for an altered record, `unknownKeyVersion` for keys that cannot open it.
    let reason: String
    /// Whether the record itself is damaged (a new name mends it), rather than its compartment's keys.
    let recordAlone: Bool

    /// The damage `error` says, met opening `project`'s name; nil when it is no damage of the name
    /// (a privileged project read without a session is refused, not damaged).
    init?(_ project: ProjectID, _ error: Error) {
        switch error {
        case let error as CryptoVaultError where error.code != .privilegedSessionRequired:
            (reason, recordAlone) = (error.code.rawValue, Self.recordCodes.contains(error.code))
        case let error as WritingError where error.code == .damagedRecord:
            (reason, recordAlone) = (error.code.rawValue, true)
        default:
            return nil
        }
        self.project = project
    }

    /// The codes of a record that does not open although its compartment's keys are whole.
    private static let recordCodes: Set<CryptoVaultErrorCode> = [
        .corruptRecord, .malformedRecord, .recordNotFound, .recordFromAnotherVault, .recordFromAnotherCompartment,
        .recordFromAnotherRow, .recordFromAnotherField,
    ]

    /// What is wrong and what the owner can do: a new name when the record alone is damaged (the
    /// project's documents are sealed apart from it), else the project from another device or a backup.
    var warning: String {
        let mend = recordAlone
            ? "'vaultctl project rename \(project.hex) NEW-NAME' gives it a name again (its documents are untouched)"
            : "'vaultctl repair' says what it mends; 'vaultctl repair --from DEVICE' takes the project from your own device that holds it"
        return "vaultctl: warning: the name of project \(project.hex) does not open (\(reason)): it is listed by its id, "
            + "and reached by its id; \(mend)"
    }
}
