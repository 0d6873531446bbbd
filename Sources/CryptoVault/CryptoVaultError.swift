/// The one error type of CryptoVault: a code that tests and callers match on, and a message for
/// people. Messages never contain secret material; equality compares codes only.
public struct CryptoVaultError: Error, Equatable, CustomStringConvertible, Sendable {
    public enum Code: String, Sendable {
        case libraryUnavailable
        case outOfMemory
        case invalidKeySize
        case invalidNonceSize
        case invalidInput
        case authenticationFailure
        case invalidPublicKey
        case kdfParametersOutOfRange
        case kdfFailed
        case wrongPassphrase
        case wrongRecoveryKey
        case invalidRecoveryKey
        case invalidShare
        case insufficientShares
        case notAVault
        case vaultExists
        case newerSchema
        case corruptVault
        case missingAssets
        case database
        case io
        case compartmentExists
        case compartmentNotFound
        case invalidName
        case unknownKeyVersion
        case keyslotNotFound
        case lastKeyslot
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }

    public static func == (lhs: CryptoVaultError, rhs: CryptoVaultError) -> Bool { lhs.code == rhs.code }
}
