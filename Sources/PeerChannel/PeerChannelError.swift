/// The one error type of PeerChannel: a code that tests and callers match on, and a message for people.
/// Messages never contain frame contents; equality compares codes only.
public struct PeerChannelError: Error, Equatable, CustomStringConvertible, Sendable {
    public enum Code: String, Sendable {
        /// A message longer than a frame can carry.
        case messageTooLarge
        /// A peer announced a frame longer than this side accepts.
        case frameTooLarge
        /// The stream ended in the middle of a frame.
        case truncatedFrame
        /// A setting outside the range it must be in.
        case invalidConfiguration
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }

    public static func == (lhs: PeerChannelError, rhs: PeerChannelError) -> Bool { lhs.code == rhs.code }
}
