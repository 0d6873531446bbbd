import PeerChannel
import Testing

/// Framing as a peer sees it: messages in, bytes out, and a decoder that survives any chunking and
/// refuses a hostile length before it spends memory on it.
struct FrameCodecTests {
    private static let messages: [[UInt8]] = [
        [], [0x42], Array("a Noise transport message".utf8), (0..<300).map { UInt8(truncatingIfNeeded: $0 * 7) }, [],
    ]

    private func stream(_ messages: [[UInt8]]) throws -> [UInt8] {
        try messages.flatMap { try FrameCodec.encode($0) }
    }

    // MARK: Encoding

    @Test func encodingPrefixesTheBigEndianLength() throws {
        #expect(try FrameCodec.encode([]) == [0x00, 0x00])
        #expect(try FrameCodec.encode([0xAB]) == [0x00, 0x01, 0xAB])
        let message = [UInt8](repeating: 0x5A, count: 0x0123)
        #expect(try FrameCodec.encode(message) == [0x01, 0x23] + message)
    }

    @Test func theLargestNoiseMessageFitsExactly() throws {
        let message = (0..<65535).map { UInt8(truncatingIfNeeded: $0) }
        let frame = try FrameCodec.encode(message)
        #expect(frame.count == 65537)
        #expect(Array(frame.prefix(2)) == [0xFF, 0xFF])
        var decoder = try FrameDecoder()
        #expect(try decoder.feed(frame) == [message])
        #expect(decoder.bufferedByteCount == 0)
    }

    @Test(arguments: [65536, 65537, 100_000])
    func oversizeMessagesAreRefused(count: Int) {
        #expect(throws: PeerChannelError(.messageTooLarge, "")) { try FrameCodec.encode([UInt8](repeating: 0, count: count)) }
    }

    // MARK: Decoding

    @Test func framesRoundTripInOneChunk() throws {
        var decoder = try FrameDecoder()
        #expect(try decoder.feed(try stream(Self.messages)) == Self.messages)
        try decoder.finish()
    }

    @Test func aZeroLengthFrameIsAFrame() throws {
        var decoder = try FrameDecoder()
        #expect(try decoder.feed([0x00]) == [])
        #expect(try decoder.feed([0x00]) == [[]])
        #expect(try decoder.feed([0x00, 0x00, 0x00, 0x00]) == [[], []])
        try decoder.finish()
    }

    /// Every way of cutting the stream in two yields the same frames.
    @Test func framesRoundTripWhenSplitAtEveryBytePosition() throws {
        let bytes = try stream(Self.messages)
        for cut in 0...bytes.count {
            var decoder = try FrameDecoder()
            let frames = try decoder.feed(Array(bytes[..<cut])) + decoder.feed(Array(bytes[cut...]))
            #expect(frames == Self.messages, "cut at \(cut)")
            try decoder.finish()
        }
    }

    @Test func framesRoundTripOneByteAtATime() throws {
        var decoder = try FrameDecoder()
        var frames: [[UInt8]] = []
        for byte in try stream(Self.messages) {
            frames += try decoder.feed([byte])
            #expect(decoder.bufferedByteCount <= 302)
        }
        #expect(frames == Self.messages)
    }

    @Test(arguments: [1, 2, 3, 5, 16, 255, 256, 257, 1000])
    func framesRoundTripInChunksOfAnySize(chunkSize: Int) throws {
        let expected = Self.messages + Self.messages.reversed()
        let bytes = try stream(expected)
        var decoder = try FrameDecoder()
        var frames: [[UInt8]] = []
        for start in stride(from: 0, to: bytes.count, by: chunkSize) {
            frames += try decoder.feed(Array(bytes[start..<min(bytes.count, start + chunkSize)]))
        }
        #expect(frames == expected)
        try decoder.finish()
    }

    // MARK: Bounds

    /// The announcement alone is refused: nothing of the frame has arrived, and nothing is buffered.
    @Test func aTooLargeAnnouncementIsRefusedBeforeItsBytesAreBuffered() throws {
        var decoder = try FrameDecoder(maximumFrameLength: 1024)
        #expect(try decoder.feed([0x04]) == [])
        #expect(throws: PeerChannelError(.frameTooLarge, "")) { try decoder.feed([0x01]) }
        #expect(decoder.bufferedByteCount == 2)
    }

    @Test(arguments: [0, 1, 100, 65535])
    func theBoundIsInclusive(limit: Int) throws {
        let fits = [UInt8](repeating: 1, count: limit)
        var decoder = try FrameDecoder(maximumFrameLength: limit)
        #expect(try decoder.feed(try FrameCodec.encode(fits)) == [fits])
        if limit < FrameCodec.maximumMessageLength {
            let announcement = try FrameCodec.encode([UInt8](repeating: 1, count: limit + 1)).prefix(2)
            #expect(throws: PeerChannelError(.frameTooLarge, "")) { try decoder.feed(Array(announcement)) }
        }
    }

    /// A peer that splits a maximal frame into tiny pieces never gets more than one frame buffered.
    @Test func theBufferNeverExceedsTheBound() throws {
        let limit = 500
        var decoder = try FrameDecoder(maximumFrameLength: limit)
        let bytes = try stream(Array(repeating: [UInt8](repeating: 9, count: limit), count: 3))
        var largest = 0, frames = 0
        for start in stride(from: 0, to: bytes.count, by: 7) {
            frames += try decoder.feed(Array(bytes[start..<min(bytes.count, start + 7)])).count
            largest = max(largest, decoder.bufferedByteCount)
        }
        #expect(frames == 3)
        #expect(largest <= limit + FrameCodec.headerLength)
    }

    @Test func frameBeforeABadAnnouncementInTheSameChunkIsDroppedWithTheStream() throws {
        var decoder = try FrameDecoder(maximumFrameLength: 10)
        #expect(throws: PeerChannelError(.frameTooLarge, "")) { try decoder.feed(try FrameCodec.encode([1, 2]) + [0x00, 0x0B]) }
    }

    @Test func aRefusedStreamStaysRefused() throws {
        var decoder = try FrameDecoder(maximumFrameLength: 10)
        #expect(throws: PeerChannelError(.frameTooLarge, "")) { try decoder.feed([0xFF, 0xFF]) }
        // Even a well-formed frame afterwards: its start can no longer be trusted to be a boundary.
        #expect(throws: PeerChannelError(.frameTooLarge, "")) { try decoder.feed(try FrameCodec.encode([1])) }
        #expect(throws: PeerChannelError(.frameTooLarge, "")) { try decoder.finish() }
    }

    @Test(arguments: [[0x00] as [UInt8], [0x00, 0x05], [0x00, 0x05, 1, 2, 3, 4]])
    func aStreamEndingInsideAFrameIsTruncated(bytes: [UInt8]) throws {
        var decoder = try FrameDecoder()
        #expect(try decoder.feed(bytes) == [])
        #expect(throws: PeerChannelError(.truncatedFrame, "")) { try decoder.finish() }
    }

    @Test(arguments: [-1, 65536, Int.max])
    func impossibleBoundsAreRefused(limit: Int) {
        #expect(throws: PeerChannelError(.invalidConfiguration, "")) { try FrameDecoder(maximumFrameLength: limit) }
    }
}
