import Appliance
import CryptoVault
import PrivilegedSession
import Writing

/// What the page is told of a library error: a status and the library's message (messages never
/// hold plaintext, keys or tokens; see each module's error type).
enum ErrorMapping {
    static func consoleError(for error: Error) -> ConsoleError {
        switch error {
        case let writing as WritingError: ConsoleError(code(for: writing.code), writing.message)
        case let appliance as ApplianceError: ConsoleError(appliance.code == .noSession ? .sessionRequired : .invalidBody, appliance.message)
        case let session as PrivilegedSessionError: ConsoleError(.sessionRequired, session.message)
        case let vault as CryptoVaultError: ConsoleError(.invalidBody, vault.message)
        default: ConsoleError(.invalidBody, "the request failed")
        }
    }

    static func code(for code: WritingErrorCode) -> ConsoleErrorCode {
        switch code {
        case .projectNotFound, .nodeNotFound, .snapshotNotFound, .branchNotFound, .notInProject: .notFound
        case .privilegedSessionRequired: .sessionRequired
        case .branchConflict, .branchNotOpen: .conflict
        case .viewOnly: .viewOnly
        default: .invalidBody
        }
    }
}
