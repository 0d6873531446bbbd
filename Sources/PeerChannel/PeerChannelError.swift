import CryptoVault

/// The one error type of PeerChannel: a code that tests and callers match on, and a message for people.
/// Messages never contain frame contents; equality compares codes only.
public typealias PeerChannelError = CodedError<PeerChannelErrorCode>

/// What went wrong, for callers and tests to match on.
public enum PeerChannelErrorCode: String, Sendable {
    /// A message longer than a frame can carry.
    case messageTooLarge
    /// A peer announced a frame longer than this side accepts.
    case frameTooLarge
    /// The stream ended in the middle of a frame.
    case truncatedFrame
    /// A setting outside the range it must be in.
    case invalidConfiguration
}
