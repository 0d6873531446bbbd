/// Framing of Noise transport messages on a byte stream: each message is preceded by its length as a
/// 2-byte big-endian integer.
///
///     frame = length(2 bytes, big-endian) || message(length bytes)
///
/// Two bytes fit the Noise Protocol Framework's limit exactly: no Noise message exceeds 65535 bytes
/// (§3), so every valid message has exactly one encoding and no length can announce more.
/// `FrameDecoder` reads frames back.
public enum FrameCodec {
    /// The largest message a frame carries: the Noise message limit.
    public static let maximumMessageLength = 65535

    /// The bytes of the length prefix.
    public static let headerLength = 2

    /// The frame of `message`; refuses a message longer than `maximumMessageLength`.
    public static func encode(_ message: [UInt8]) throws(PeerChannelError) -> [UInt8] {
        guard message.count <= maximumMessageLength else {
            throw PeerChannelError(.messageTooLarge, "a message of \(message.count) bytes exceeds the \(maximumMessageLength)-byte frame limit")
        }
        var frame = [UInt8]()
        frame.reserveCapacity(headerLength + message.count)
        frame.append(contentsOf: header(length: message.count))
        frame.append(contentsOf: message)
        return frame
    }

    /// The length prefix of a `length`-byte message (at most `maximumMessageLength`).
    static func header(length: Int) -> [UInt8] {
        [UInt8(truncatingIfNeeded: length >> 8), UInt8(truncatingIfNeeded: length)]
    }
}
