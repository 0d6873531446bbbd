/// Outgoing transport messages sealed straight into their frames (`FrameCodec`) in one reusable
/// buffer, and written to the socket several frames at a time. A bulk transfer so allocates and
/// copies nothing per record (the ciphertext is written where `send` reads it), and makes a quarter of
/// the sends. The bytes on the wire are exactly those of one `writeFrame` per message.
struct SealedFrameBatch {
    /// Four of the largest frames.
    static let capacity = 4 * (FrameCodec.headerLength + FrameCodec.maximumMessageLength)

    private var buffer: [UInt8] = []
    private var used = 0

    /// Seals `record` as `transport`'s next message, framed, after the frames already held; writes
    /// those to `connection` first if the new frame would not fit.
    mutating func add(_ record: ArraySlice<UInt8>, sealedBy transport: inout NoiseTransport,
                      flushingTo connection: TCPConnection) throws(PeerChannelError) {
        guard record.count <= NoiseTransport.maximumPlaintextLength else {
            throw PeerChannelError(.messageTooLarge, "a record of \(record.count) bytes exceeds the \(NoiseTransport.maximumPlaintextLength)-byte Noise limit")
        }
        let messageLength = record.count + NoiseCipherState.tagSize
        let frameLength = FrameCodec.headerLength + messageLength
        if used + frameLength > Self.capacity { try flush(to: connection) }
        if buffer.isEmpty { buffer = [UInt8](repeating: 0, count: Self.capacity) }
        let start = used
        buffer.replaceSubrange(start..<(start + FrameCodec.headerLength), with: FrameCodec.header(length: messageLength))
        try buffer.withUnsafeMutableBytes { bytes in
            record.withUnsafeBytes { plaintext in
                Result { () throws(PeerChannelError) in
                    let message = bytes[(start + FrameCodec.headerLength)..<(start + frameLength)]
                    try transport.seal(plaintext, into: UnsafeMutableRawBufferPointer(rebasing: message))
                }
            }
        }.get()
        used += frameLength
    }

    /// Writes the frames held, if any, and empties the batch.
    mutating func flush(to connection: TCPConnection) throws(PeerChannelError) {
        guard used > 0 else { return }
        let frames = buffer[..<used]
        used = 0
        try connection.writeRaw(frames)
    }
}
