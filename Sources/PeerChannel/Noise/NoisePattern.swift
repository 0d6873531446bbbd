/// The Noise handshake patterns PeerChannel speaks (Noise Protocol Framework revision 34, §7.5 and §9),
/// each with the cipher suite 25519 / ChaChaPoly / BLAKE2b:
///
///     XX:                     XXpsk3:
///       -> e                    -> e
///       <- e, ee, s, es         <- e, ee, s, es
///       -> s, se                -> s, se, psk
///
/// XX is the channel between paired devices, which authenticate each other's static keys by pinning.
/// XXpsk3 is pairing: the PSK comes from the CPace session key, so the static keys that XX exchanges
/// are bound to whoever knew the pairing code.
public enum NoisePattern: Sendable, CaseIterable {
    case xx
    case xxpsk3

    /// The full protocol name, which is hashed into the handshake, so peers with different patterns
    /// or suites never agree on a key.
    public var protocolName: String {
        switch self {
        case .xx: "Noise_XX_25519_ChaChaPoly_BLAKE2b"
        case .xxpsk3: "Noise_XXpsk3_25519_ChaChaPoly_BLAKE2b"
        }
    }

    /// Whether the pattern carries a `psk` token; then every `e` token also runs MixKey (§9.2).
    var usesPresharedKey: Bool { self == .xxpsk3 }

    /// The tokens of each handshake message, the initiator's first.
    var messages: [[NoiseToken]] {
        switch self {
        case .xx: [[.e], [.e, .ee, .s, .es], [.s, .se]]
        case .xxpsk3: [[.e], [.e, .ee, .s, .es], [.s, .se, .psk]]
        }
    }
}

/// One step of a handshake message (§7.1).
enum NoiseToken: Sendable {
    case e, s, ee, es, se, psk
}
