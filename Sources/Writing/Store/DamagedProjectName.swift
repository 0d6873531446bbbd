import CryptoVault

/// A project whose sealed name does not open here (reviewer15's R15-8: one flipped bit in its name
/// record made `project list`, the console's project list, and every command that takes any
/// project's name, fail for every project). The name is that project's alone (SECURITY.md §14.1):
/// listings show the project by its id as damaged, and it is reached by its id. Only the error's
/// code is said, never its message (which names what was being opened).
public struct DamagedProjectName: Error, Sendable {
    public let project: ProjectID
    /// The failure's code: `corruptRecord` for an altered record, `unknownKeyVersion` for keys that cannot open it.
    public let reason: String
    /// Whether the record itself is damaged (a new name mends it), rather than its compartment's keys.
    public let recordAlone: Bool

    /// The damage `error` says, met opening `project`'s name; nil when it is no damage of the name
    /// (a privileged project read without a session is refused, not damaged).
    public init?(_ project: ProjectID, _ error: Error) {
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

    /// `read` (a read of `project`'s name) for a listing: a name that does not open is handed back
    /// as this damage, so the listing goes on with the other projects; any other error is thrown.
    public static func listed(_ project: ProjectID, _ read: () throws -> String?) throws -> Result<String?, DamagedProjectName> {
        do {
            return .success(try read())
        } catch {
            guard let damage = DamagedProjectName(project, error) else { throw error }
            return .failure(damage)
        }
    }
}
