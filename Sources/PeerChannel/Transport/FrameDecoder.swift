/// Reads `FrameCodec` frames from a byte stream that arrives in chunks of any size.
///
/// The peer controls what it announces, so the decoder refuses an announced length above
/// `maximumFrameLength` as soon as the two length bytes are in, before it buffers any of that frame.
/// The buffer only ever holds the one frame in progress, so it never holds more than
/// `maximumFrameLength + 2` bytes, however the peer splits or floods its bytes.
///
/// A refusal ends the stream: the decoder keeps the error and throws it again on every later call,
/// because after a bad frame nothing that follows can be trusted to start at a frame boundary.
public struct FrameDecoder: Sendable {
    /// The longest frame this decoder accepts.
    public private(set) var maximumFrameLength: Int

    /// The bytes of the frame in progress, length prefix included.
    private var buffer: [UInt8] = []
    private var failure: PeerChannelError?

    /// A decoder that accepts frames of at most `maximumFrameLength` bytes, which must lie in
    /// 0...65535 (the format cannot carry more).
    public init(maximumFrameLength: Int = FrameCodec.maximumMessageLength) throws(PeerChannelError) {
        guard (0...FrameCodec.maximumMessageLength).contains(maximumFrameLength) else {
            throw PeerChannelError(.invalidConfiguration, "a frame limit must be 0...\(FrameCodec.maximumMessageLength), not \(maximumFrameLength)")
        }
        self.maximumFrameLength = maximumFrameLength
    }

    /// Raises the limit (a channel accepts long frames only once the peer is authenticated). Raising
    /// never invalidates a length already accepted; a lower or out-of-range limit is refused.
    public mutating func allowFrames(upTo maximumFrameLength: Int) throws(PeerChannelError) {
        guard (self.maximumFrameLength...FrameCodec.maximumMessageLength).contains(maximumFrameLength) else {
            throw PeerChannelError(.invalidConfiguration, "a frame limit can only be raised, up to \(FrameCodec.maximumMessageLength)")
        }
        self.maximumFrameLength = maximumFrameLength
    }

    /// The bytes held for the frame in progress; at most `maximumFrameLength + 2`.
    public var bufferedByteCount: Int { buffer.count }

    /// Takes the next chunk of the stream and returns the frames it completes, in order.
    public mutating func feed(_ chunk: [UInt8]) throws(PeerChannelError) -> [[UInt8]] {
        try feed(chunk[...])
    }

    /// `feed` for part of a buffer the caller reuses (a connection's read buffer).
    public mutating func feed(_ chunk: ArraySlice<UInt8>) throws(PeerChannelError) -> [[UInt8]] {
        try frames(in: chunk).map { Array($0) }
    }

    /// `feed` without copying: a frame that lies whole in `chunk` is a slice of it, so the caller
    /// must be done with the frames before it writes into that buffer again (or the write copies it).
    mutating func frames(in chunk: ArraySlice<UInt8>) throws(PeerChannelError) -> [ArraySlice<UInt8>] {
        if let failure { throw failure }
        var input = chunk
        var frames: [ArraySlice<UInt8>] = []
        do throws(PeerChannelError) {
            while !input.isEmpty {
                if let frame = try take(from: &input) { frames.append(frame) }
            }
        } catch {
            failure = error
            throw error
        }
        return frames
    }

    /// Declares the end of the stream; throws if it ended inside a frame.
    public func finish() throws(PeerChannelError) {
        if let failure { throw failure }
        guard buffer.isEmpty else {
            throw PeerChannelError(.truncatedFrame, "the stream ended \(buffer.count) bytes into a frame")
        }
    }

    /// Moves bytes from `input` into the frame in progress; returns the frame once it is complete.
    private mutating func take(from input: inout ArraySlice<UInt8>) throws(PeerChannelError) -> ArraySlice<UInt8>? {
        if buffer.isEmpty, let frame = try takeWhole(from: &input) { return frame }
        if buffer.count < FrameCodec.headerLength {
            move(FrameCodec.headerLength - buffer.count, from: &input)
            guard buffer.count == FrameCodec.headerLength else { return nil }
            try checkAnnouncedLength()
        }
        let frameEnd = FrameCodec.headerLength + announcedLength
        move(frameEnd - buffer.count, from: &input)
        guard buffer.count == frameEnd else { return nil }
        let frame = Array(buffer[FrameCodec.headerLength...])
        buffer.removeAll(keepingCapacity: true)
        return frame[...]
    }

    /// A frame that lies whole in `input`, taken as a slice of it instead of through the buffer.
    private mutating func takeWhole(from input: inout ArraySlice<UInt8>) throws(PeerChannelError) -> ArraySlice<UInt8>? {
        guard input.count >= FrameCodec.headerLength else { return nil }
        let start = input.startIndex
        let length = Int(input[start]) << 8 | Int(input[start + 1])
        guard length <= maximumFrameLength else {
            throw PeerChannelError(.frameTooLarge, "the peer announced a frame of \(length) bytes; the limit is \(maximumFrameLength)")
        }
        guard input.count >= FrameCodec.headerLength + length else { return nil }
        defer { input = input.dropFirst(FrameCodec.headerLength + length) }
        return input[(start + FrameCodec.headerLength)..<(start + FrameCodec.headerLength + length)]
    }

    private mutating func move(_ count: Int, from input: inout ArraySlice<UInt8>) {
        buffer.append(contentsOf: input.prefix(count))
        input = input.dropFirst(count)
    }

    private var announcedLength: Int { Int(buffer[0]) << 8 | Int(buffer[1]) }

    private func checkAnnouncedLength() throws(PeerChannelError) {
        guard announcedLength <= maximumFrameLength else {
            throw PeerChannelError(.frameTooLarge, "the peer announced a frame of \(announcedLength) bytes; the limit is \(maximumFrameLength)")
        }
    }
}
