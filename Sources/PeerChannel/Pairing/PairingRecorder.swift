import CryptoVault
import Foundation

/// What both sides do with a failed pairing: record it in the audit log.
public enum PairingRecorder {
    /// Records `error` as a `peer.pair-failed` entry and returns it to throw. If the record itself
    /// fails, the returned error still names the pairing failure first.
    static func failure(_ error: PeerChannelError, in vault: UnlockedVault) throws -> PeerChannelError {
        do {
            try vault.recordPairingFailure(reason: error.code.rawValue)
            return error
        } catch let recordError {
            return PeerChannelError(error.code, "\(error.message) (and the failure could not be recorded in the audit log: \(recordError))")
        }
    }
}
