import CryptoVault
#if canImport(Glibc)
import Glibc
#endif

/// One TCP connection carrying `FrameCodec` frames, with a deadline: every read and write waits at
/// most until it, so a peer that goes silent (or trickles bytes) cannot hold this side longer than
/// that. Pairing keeps one deadline for the whole exchange; the channel moves it (handshake, then idle). Frames longer than `maximumFrameLength` are refused as soon as their length
/// prefix arrives (`.frameTooLarge`), so a peer cannot make this side buffer more than one small frame.
public final class TCPConnection {
    public let peer: SocketAddress
    private let descriptor: Int32
    private var decoder: FrameDecoder
    /// Frames read but not yet taken: slices of `readBuffer` (or of the decoder's buffer), all taken
    /// before the next read reuses it.
    private var pending: [ArraySlice<UInt8>] = []
    private var readBuffer: [UInt8] = []
    /// In `VaultClock.system`'s monotonic seconds: a change of the wall clock moves no deadline.
    private var deadline: Double

    init(descriptor: Int32, peer: SocketAddress, maximumFrameLength: Int, timeoutSeconds: Double) throws(PeerChannelError) {
        self.descriptor = descriptor
        self.peer = peer
        SocketCalls.sendImmediately(descriptor)
        do {
            self.decoder = try FrameDecoder(maximumFrameLength: maximumFrameLength)
        } catch {
            SocketCalls.close(descriptor)
            throw error
        }
        self.deadline = VaultClock.system.monotonic() + timeoutSeconds
    }

    deinit { SocketCalls.close(descriptor) }

    /// The socket, for a poll over it and other descriptors (`PairingLobby`).
    var pollDescriptor: Int32 { descriptor }

    /// Moves the deadline to `seconds` from now.
    func setDeadline(secondsFromNow seconds: Double) {
        deadline = VaultClock.system.monotonic() + seconds
    }

    /// Accepts frames up to `maximumFrameLength` from now on (only ever raised).
    func allowFrames(upTo maximumFrameLength: Int) throws(PeerChannelError) {
        try decoder.allowFrames(upTo: maximumFrameLength)
    }

    /// A handle that can end this connection from another thread (see `SocketShutdown`).
    var shutdownHandle: SocketShutdown { SocketShutdown(descriptor: descriptor) }

    /// Connects to `address`, waiting at most `timeoutSeconds` for the connection and then for the
    /// whole exchange.
    public static func connect(to address: SocketAddress, maximumFrameLength: Int,
                               timeoutSeconds: Double) throws(PeerChannelError) -> TCPConnection {
        let descriptor = try SocketCalls.tcpSocket(for: address)
        let connection = try TCPConnection(descriptor: descriptor, peer: address, maximumFrameLength: maximumFrameLength,
                                           timeoutSeconds: timeoutSeconds)
        if try !SocketCalls.startConnect(descriptor, to: address) {
            guard try SocketCalls.wait(descriptor, for: Int16(POLLOUT), milliseconds: connection.millisecondsLeft()) else {
                throw PeerChannelError(.timedOut, "no answer from \(address) within \(Int(timeoutSeconds)) seconds")
            }
            try SocketCalls.finishConnect(descriptor, to: address)
        }
        return connection
    }

    /// The next frame's message. Throws `.connectionClosed` at the end of the stream,
    /// `.truncatedFrame` if it ends inside a frame, `.timedOut` at the deadline.
    public func readFrame() throws(PeerChannelError) -> [UInt8] {
        try Array(readFrameInPlace())
    }

    /// `readFrame` without copying the frame out of the read buffer. Let go of the slice before the
    /// next read (a channel opens it at once), or that read has to copy the whole buffer.
    func readFrameInPlace() throws(PeerChannelError) -> ArraySlice<UInt8> {
        while pending.isEmpty {
            guard try SocketCalls.wait(descriptor, for: Int16(POLLIN), milliseconds: millisecondsLeft()) else {
                throw PeerChannelError(.timedOut, "\(peer) sent nothing in time")
            }
            resizeReadBuffer()
            guard let count = try SocketCalls.read(descriptor, into: &readBuffer) else { continue }
            if count == 0 {
                try decoder.finish()
                throw PeerChannelError(.connectionClosed, "\(peer) closed the connection")
            }
            pending += try decoder.frames(in: readBuffer[..<count])
        }
        return pending.removeFirst()
    }

    /// The read buffer holds no more than a frame, so a connection with a small limit holds little;
    /// one that takes the largest frames (a channel in bulk transfer) reads several at once. It is
    /// reused for every read: allocating a fresh one per read costs page faults at gigabytes.
    private func resizeReadBuffer() {
        let size = decoder.maximumFrameLength == FrameCodec.maximumMessageLength
            ? 1 << 20 : decoder.maximumFrameLength + FrameCodec.headerLength
        if readBuffer.count != size { readBuffer = [UInt8](repeating: 0, count: size) }
    }

    /// Sends `message` as one frame.
    public func writeFrame(_ message: [UInt8]) throws(PeerChannelError) {
        try writeRaw(FrameCodec.encode(message))
    }

    /// Sends bytes as they are. Internal: the pairing sends frames; tests play a hostile peer with it.
    func writeRaw(_ bytes: [UInt8]) throws(PeerChannelError) {
        try writeRaw(bytes[...])
    }

    /// Sends part of a buffer (a batch of sealed frames).
    func writeRaw(_ bytes: ArraySlice<UInt8>) throws(PeerChannelError) {
        var sent = bytes.startIndex
        while sent < bytes.endIndex {
            guard try SocketCalls.wait(descriptor, for: Int16(POLLOUT), milliseconds: millisecondsLeft()) else {
                throw PeerChannelError(.timedOut, "\(peer) took nothing in time")
            }
            sent += try SocketCalls.write(descriptor, bytes[sent...])
        }
    }

    private func millisecondsLeft() -> Int32 {
        let left = deadline - VaultClock.system.monotonic()
        return left <= 0 ? 0 : Int32(min(left * 1000, Double(Int32.max)))
    }
}

/// A listening TCP socket that hands out `TCPConnection`s.
public final class TCPListener: Sendable {
    public let address: SocketAddress
    private let descriptor: Int32

    /// Listens on `address`; `backlog` connections may wait to be accepted.
    public init(address: SocketAddress, backlog: Int32 = 8) throws(PeerChannelError) {
        descriptor = try SocketCalls.tcpSocket(for: address)
        do {
            try SocketCalls.bindAndListen(descriptor, to: address, backlog: backlog)
            self.address = try SocketCalls.localAddress(descriptor)
        } catch {
            SocketCalls.close(descriptor)
            throw error
        }
    }

    deinit { SocketCalls.close(descriptor) }

    /// The next connection, or nil if none arrives within `waitSeconds`. The connection's own
    /// deadline, `timeoutSeconds`, starts when it is accepted.
    /// The socket, for a poll over it and other descriptors (`PairingLobby`).
    var pollDescriptor: Int32 { descriptor }

    public func accept(waitSeconds: Double, maximumFrameLength: Int, timeoutSeconds: Double) throws(PeerChannelError) -> TCPConnection? {
        let milliseconds = Int32(clamping: Int64(max(0, waitSeconds) * 1000))
        guard try SocketCalls.wait(descriptor, for: Int16(POLLIN), milliseconds: milliseconds),
              let (accepted, peer) = try SocketCalls.accept(descriptor) else { return nil }
        return try TCPConnection(descriptor: accepted, peer: peer, maximumFrameLength: maximumFrameLength, timeoutSeconds: timeoutSeconds)
    }
}

/// Ends a connection that another thread is reading or writing: shutdown(2) wakes that thread's poll
/// with end of stream, and the owner then closes the descriptor. Only shut down a descriptor whose
/// owner has not closed it yet (`ChannelConnectionRegistry` guarantees this), or a reused number could
/// end an unrelated socket.
struct SocketShutdown: Sendable, Hashable {
    let descriptor: Int32

    func shutdown() { SocketCalls.shutdown(descriptor) }
}
