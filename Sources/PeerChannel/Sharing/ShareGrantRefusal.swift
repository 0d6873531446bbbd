import CryptoVault

/// Why a recipient refused a grant, as the channel carries it back: each reason the vault gives
/// (`CryptoVaultError`) has its own `PeerChannelError` code, so the sender can say what went wrong.
enum ShareGrantRefusal {
    static let codes: [CryptoVaultErrorCode: PeerChannelErrorCode] = [
        .malformedShareGrant: .shareGrantMalformed,
        .shareGrantMisaddressed: .shareGrantMisaddressed,
        .unpairedDevice: .shareSenderNotPaired,
        .shareGrantBadSignature: .shareGrantBadSignature,
        .shareGrantKeyRejected: .shareGrantKeyRejected,
        .staleShareGrant: .shareGrantStale,
        .compartmentExists: .shareNameTaken,
    ]

    static func refusal(for error: any Error) -> PeerChannelError {
        switch error {
        case let error as PeerChannelError:
            return error
        case let error as CryptoVaultError:
            return PeerChannelError(codes[error.code] ?? .shareGrantRefused, error.message)
        default:
            return PeerChannelError(.shareGrantRefused, "the recipient could not store the grant")
        }
    }
}
