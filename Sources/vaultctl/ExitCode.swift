import Appliance
import CryptoVault
import PeerChannel
import PrivilegedSession
import Writing

/// vaultctl's exit codes (documented in README.md and `vaultctl --help`).
enum ExitCode: Int32 {
    case success = 0
    case failure = 1            // anything not listed below
    case authenticationFailed = 2  // wrong passphrase, recovery key or shares
    case redacted = 3           // egress allowed only redacted
    case refused = 4            // egress or sharing refused by policy (a privileged compartment)
    case usage = 64             // bad command line
    case dataError = 65         // damaged vault or input file, schema too new, hostile parameters
    case noInput = 66           // not a vault, a file or compartment that does not exist
    case unavailable = 69       // no daemon serves the vault; a paused or busy sync
    case cannotCreate = 73      // the vault or compartment already exists
    case ioError = 74           // a read or write failed
    case partial = 75           // sync now completed, but a project did not wholly sync
    case permissionDenied = 77  // a privileged compartment read outside a session
    case readerGone = 141       // the output's reader went away (| head -1): 128 + SIGPIPE, as a shell reports for git or cat

    static let documentation = """
        Exit codes:
          0   success
          1   failure not listed below
          2   authentication failed (wrong passphrase, recovery key or shares; wrong, expired
              or used-up pairing code; a peer whose key is not the pinned one, or that does not
              know this device)
          3   egress check: the payload may leave only redacted
          4   refused by policy (egress check, sharing a privileged compartment, a bundle over
              the size a peer keeps for this device)
          64  usage error (unknown option, missing argument, an invalid name or sealed-record
              location)
          65  bad data (damaged or truncated vault, newer schema, an older schema that a
              read-only command does not upgrade, invalid share or key file, KDF parameters
              outside the allowed range, a sealed record that is damaged or was moved from
              another vault, compartment, row or field; a command refused in in-memory mode,
              where the writing store cannot be opened; 'sync now' with a device that refuses
              every sync because its own sync state is damaged: 'vaultctl repair' there mends it)
          66  not found (not a vault, missing file, no such compartment or sealed record)
          69  unavailable: no daemon ('vaultctl serve') answers for this vault; a sync with a
              device paused here or on it (its words say which, and where 'vaultctl sync
              resume' resumes it), or one that refuses for now (too many requests, too slow)
          73  already exists (vault or compartment, a sealed record of another compartment at
              that place), or an output path that cannot be written (a directory, socket, block
              device or dangling symbolic link)
          74  input/output error (also: a peer that cannot be reached, whose host name does not
              resolve, that goes silent, hangs up or breaks the channel's framing)
          75  partial: 'sync now' completed, but a project did not wholly sync (left for the
              run, its offer refused, or records refused either way); each is named (an offer
              declined by your standing choice, e.g. a privileged project with a device not
              yours, is named but not counted)
          77  permission denied (a privileged compartment read without a session or --purpose;
              the daemon's socket reached by another user; a seal into a compartment shared with
              this device as viewer; a change to a project shared with this device to view only)
          141 the output's reader went away before all of it was written ('... | head -1'):
              the command did its work, the rest of its output was dropped and nothing is
              said, as when a shell reports git or cat ended there by SIGPIPE (128 + 13)
        """

    init(for error: CryptoVaultError) {
        switch error.code {
        case .wrongPassphrase, .wrongRecoveryKey, .insufficientShares: self = .authenticationFailed
        case .corruptVault, .inconsistentCopy, .corruptBackup, .newerSchema, .olderSchema, .missingAssets, .invalidRecoveryKey, .invalidShare,
             .kdfParametersOutOfRange, .invalidPublicKey, .authenticationFailure, .invalidInput,
             .corruptBundle, .truncatedBundle, .foreignBundle, .notRegularFile: self = .dataError
        case .notAVault, .compartmentNotFound, .keyslotNotFound, .unknownKeyVersion, .bundleNotFound, .fileNotFound, .pairingNotFound: self = .noInput
        case .vaultExists, .compartmentExists, .fileExists, .notWritableOutput: self = .cannotCreate
        case .invalidName: self = .usage
        case .io: self = .ioError
        case .privilegedSessionRequired, .sharedCompartmentReadOnly: self = .permissionDenied
        case .malformedShareGrant, .shareGrantMisaddressed, .shareGrantBadSignature, .shareGrantKeyRejected, .staleShareGrant: self = .dataError
        case .unpairedDevice: self = .noInput
        // Sealed records (SECURITY.md §4.8), as their bundle counterparts: a location outside the
        // allowed forms is a bad argument, a missing record is not found, a place holding another
        // compartment's record already exists, and a record that fails to open (altered, or moved
        // from another vault, compartment, row or field) is bad data.
        case .invalidRecordLocation: self = .usage
        case .recordNotFound: self = .noInput
        case .recordLocationTaken: self = .cannotCreate
        case .malformedRecord, .corruptRecord, .recordFromAnotherVault, .recordFromAnotherCompartment, .recordFromAnotherRow,
             .recordFromAnotherField: self = .dataError
        // An id of the wrong length comes only from stored data (a bundle header, a row): bad data.
        case .invalidIdentifier: self = .dataError
        default: self = .failure
        }
    }
}

extension ExitCode {
    init(for error: PrivilegedSessionError) {
        switch error.code {
        case .notPrivileged, .invalidSessionText, .invalidSessionLimits, .invalidDestination, .invalidEgressRequest: self = .usage
        case .sessionExpired, .sessionEnded: self = .permissionDenied
        case .sharingRefused, .egressRefused: self = .refused
        case .inMemoryMode: self = .dataError
        default: self = .failure
        }
    }
}

extension ExitCode {
    init(for error: PeerChannelError) {
        switch error.code {
        case .wrongPairingCode, .pairingCodeExpired, .pairingCodeExhausted: self = .authenticationFailed
        case .invalidPairingCode, .invalidConfiguration: self = .usage
        case .shareNameTaken: self = .cannotCreate
        case .shareSenderNotPaired: self = .noInput
        // A peer whose stream breaks the framing is a peer that failed, as one that hangs up is; 65
        // is this vault's own data (F17-8).
        case .timedOut, .connectionClosed, .connectionFailed, .channelBusy, .frameTooLarge, .truncatedFrame: self = .ioError
        case .unpinnedPeer, .unknownToPeer, .replicationSourceUnpaired: self = .authenticationFailed
        case .replicaTooLarge, .replicaQuotaExceeded, .egressNotCleared: self = .refused
        case .replicaNotFound, .vaultCopyNotFound: self = .noInput
        case .vaultCopyRollback, .vaultCopyTooLarge: self = .refused
        case .pairingRefused, .pairingCancelled, .primitiveFailure, .nonceExhausted, .handshakeOutOfOrder: self = .failure
        // A witness refused the log (a rollback, a fork, another log) or its cosignature does not verify.
        case .checkpointRollback, .checkpointFork, .inconsistentCheckpoint, .keyChainBroken, .checkpointSignatureInvalid,
             .unknownLog, .oldSizeMismatch, .cosignatureInvalid: self = .failure
        case .peerNotPaired: self = .noInput
        default: self = .dataError  // a malformed, oversized, reflected or mismatched message
        }
    }
}

extension ExitCode {
    /// The writing model's refusals: a bad argument is a usage error, a missing project or document
    /// not found, hostile or damaged text bad data, a privileged project read outside a session denied.
    init(for error: WritingError) {
        switch error.code {
        case .documentTooLarge, .tooManyBlocks, .blockTooLarge, .invalidText, .damagedRecord, .invalidIdentifier: self = .dataError
        case .projectNotFound, .nodeNotFound, .snapshotNotFound: self = .noInput
        case .notInProject, .moveIntoItself, .nestingTooDeep, .invalidName, .ambiguousName, .wrongNodeKind, .folderNotEmpty,
             .projectArchived, .invalidQuery: self = .usage
        // As a seal into a compartment shared with this device as viewer (CryptoVault's sharedCompartmentReadOnly).
        case .privilegedSessionRequired, .viewOnly: self = .permissionDenied
        case .diffDoesNotApply: self = .failure
        case .branchNotFound: self = .noInput
        case .branchNotOpen: self = .usage
        // Overlapping changes: nothing was written, a person must settle them.
        case .branchConflict: self = .failure
        // A program to install, or one that failed: nothing was written.
        case .exportToolMissing, .exportFailed: self = .failure
        }
    }

    static func hint(for error: WritingError) -> String? {
        switch error.code {
        case .privilegedSessionRequired:
            return "add --purpose TEXT (why you read it) to read it in a one-command session, or start a session in the daemon"
        case .ambiguousName: return "give the id instead"
        case .projectArchived: return "'vaultctl project archive PROJECT --undo' brings it back"
        case .viewOnly: return "its owner can make this device an editor ('vaultctl share ... --role editor' on the owner's device), or copy the text into a project of your own"
        case .branchConflict: return "edit the document or make a new branch against its latest version, then adopt that"
        default: return nil
        }
    }
}

/// An error raised by vaultctl itself (not by a library), with its exit code and an optional hint.
struct CommandError: Error {
    let message: String
    let exitCode: ExitCode
    var hint: String? = nil
}

extension ExitCode {
    init(for error: ApplianceError) {
        switch error.code {
        case .noDaemon: self = .unavailable
        case .notOwner, .noSession: self = .permissionDenied
        case .daemonAlreadyRunning: self = .cannotCreate
        case .socketPathTooLong, .invalidRequest: self = .usage
        case .malformedMessage, .messageTooLarge: self = .dataError
        case .connectionClosed, .timedOut, .socketFailed: self = .ioError
        }
    }

    static func hint(for error: ApplianceError) -> String? {
        switch error.code {
        case .noDaemon: return "start one with 'vaultctl serve', or add --purpose TEXT to read in a one-command session"
        case .noSession: return "start one with 'vaultctl session start --compartment NAME --purpose TEXT'"
        case .socketPathTooLong: return "give a shorter path with --socket"
        default: return nil
        }
    }
}
