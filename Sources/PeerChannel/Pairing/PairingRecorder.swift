import CryptoVault
import Foundation

/// What both sides do with the outcome: record failures in the audit log and stamp pairings.
public enum PairingRecorder {
    public static let wallClock: @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970) }

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
