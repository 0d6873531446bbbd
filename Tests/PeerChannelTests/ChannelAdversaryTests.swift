import CryptoVault
import Foundation
@testable import PeerChannel
import Testing

/// A hostile client, or an attacker on the path, against a channel server (SECURITY.md §9.9): each
/// case must close the connection, and for the reason the case is about.
@Suite(.serialized)
struct ChannelAdversaryTests {
    @Test func randomBytesInTheFirstFrameAreRefused() throws {
        let devices = try PairedDevices()
        let server = try RunningServer(devices.desk)
        let hostile = try server.rawConnection()
        // 48 bytes: a 32-byte "ephemeral key" and 16 bytes of payload, which version 1 forbids.
        try hostile.writeFrame((0..<48).map { _ in UInt8.random(in: 0...255) })
        #expect(server.events.waitForClosed(1) == [.malformedHandshakeMessage])
        #expect(errorCode { _ = try hostile.readFrame() } == .connectionClosed)
    }

    @Test func randomBytesAsTheThirdHandshakeMessageFailAuthentication() throws {
        let devices = try PairedDevices()
        let server = try RunningServer(devices.desk)
        let hostile = try server.rawConnection()
        var handshake = try NoiseHandshake(pattern: .xx, role: .initiator, prologue: PairingBinding.channelPrologue,
                                           staticKey: devices.laptop.keys.noiseKey)
        try hostile.writeFrame(handshake.writeMessage())
        _ = try hostile.readFrame()
        try hostile.writeFrame((0..<64).map { _ in UInt8.random(in: 0...255) })
        #expect(server.events.waitForClosed(1) == [.handshakeAuthenticationFailed])
        #expect(server.events.authenticatedPeers.isEmpty)
    }

    @Test func anOversizedHandshakeFrameIsRefusedAtItsLength() throws {
        let devices = try PairedDevices()
        let server = try RunningServer(devices.desk)
        let hostile = try server.rawConnection()
        // 129 bytes announced: one more than any handshake frame may have; nothing of it is sent.
        try hostile.writeRaw([0x00, 0x81])
        #expect(server.events.waitForClosed(1) == [.frameTooLarge])
    }

    /// A paired device that completed the handshake by hand and read "ready": it can now send any
    /// record, well-formed or not, under valid transport encryption.
    static func pairedHostileClient() throws -> (PairedDevices, RunningServer, TCPConnection, NoiseTransport) {
        let devices = try PairedDevices()
        let server = try RunningServer(devices.desk)
        let hostile = try server.rawConnection()
        var transport = try ChannelHandshake.initiate(over: hostile, localKeys: devices.laptop.keys, expecting: devices.desk.keys.profile)
        #expect(try transport.open(hostile.readFrame()) == ChannelMessage.ready.encoding())
        return (devices, server, hostile, transport)
    }

    @Test func anOversizedMessageFromAPairedPeerIsRefusedAtItsHeader() throws {
        let (devices, server, hostile, transport) = try Self.pairedHostileClient()
        var sealing = transport
        defer { withExtendedLifetime(devices) {} }
        // A request header announcing one byte more than the body limit, sent alone.
        let length = ChannelLimits.maximumBodyLength + 1
        let header: [UInt8] = [0x01, 4] + Array("echo".utf8) + (0..<4).map { UInt8(truncatingIfNeeded: length >> (24 - 8 * $0)) }
        try hostile.writeFrame(sealing.seal(header))
        #expect(server.events.waitForClosed(1) == [.messageTooLarge])
    }

    @Test func aRecordOfTheWrongLengthIsRefused() throws {
        let (devices, server, hostile, transport) = try Self.pairedHostileClient()
        var sealing = transport
        defer { withExtendedLifetime(devices) {} }
        // A 100 000-byte request whose first record is shorter than the full 65519 bytes.
        let encoded = try ChannelMessage.request("echo", body: [UInt8](repeating: 1, count: 100_000)).encoding()
        try hostile.writeFrame(sealing.seal(Array(encoded.prefix(1000))))
        #expect(server.events.waitForClosed(1) == [.malformedChannelMessage])
    }

    // MARK: On the path

    /// The server's reason for closing when a relay changes the client's frames with `alter`, after
    /// the client sent `requests` (each an echo of that many bytes).
    private func reasonWithRelay(requests: [Int], alter: @escaping @Sendable (Int, [UInt8]) -> [[UInt8]]) throws
        -> (reasons: [PeerChannelErrorCode], answered: Int) {
        let devices = try PairedDevices()
        let server = try RunningServer(devices.desk)
        let relay = try FrameRelay(to: server.address, alter: alter)
        // The client is released before the server's reasons are read, so an intact channel ends too.
        let answered = try Self.answeredRequests(requests, through: relay, devices: devices)
        return (server.events.waitForClosed(1), answered)
    }

    private static func answeredRequests(_ requests: [Int], through relay: FrameRelay, devices: PairedDevices) throws -> Int {
        let client = try ChannelClient(connectingTo: relay.address, localKeys: devices.laptop.keys, peer: devices.desk.keys.profile)
        var answered = 0
        for size in requests {
            let body = [UInt8](repeating: 0x5A, count: size)
            guard (try? client.request("echo", body: body)) == body else { break }
            answered += 1
        }
        return answered
    }

    @Test func anUnalteredRelayChangesNothing() throws {
        let outcome = try reasonWithRelay(requests: [10, 100_000, 10]) { [$1] }
        #expect(outcome.answered == 3)
        #expect(outcome.reasons == [.connectionClosed])
    }

    @Test func anAlteredFrameClosesTheConnection() throws {
        // Frame 2 is the first request's only record; one flipped bit fails its tag.
        let outcome = try reasonWithRelay(requests: [10, 10]) { index, frame in
            index == 2 ? [frame.enumerated().map { $0.offset == 5 ? $0.element ^ 0x01 : $0.element }] : [frame]
        }
        #expect(outcome.reasons == [.messageAuthenticationFailed])
        #expect(outcome.answered == 0)
    }

    @Test func aReplayedFrameClosesTheConnection() throws {
        // The first request's record is delivered twice: the copy arrives where nonce 1 is expected.
        let outcome = try reasonWithRelay(requests: [10, 10]) { index, frame in index == 2 ? [frame, frame] : [frame] }
        #expect(outcome.reasons == [.messageAuthenticationFailed])
        #expect(outcome.answered == 1)
    }

    @Test func aReplayedEarlierRequestClosesTheConnection() throws {
        let earlier = RelayMemory()
        let outcome = try reasonWithRelay(requests: [10, 10, 10]) { index, frame in
            if index == 2 { earlier.keep(frame) }
            return index == 3 ? [earlier.kept] : [frame]
        }
        #expect(outcome.reasons == [.messageAuthenticationFailed])
        #expect(outcome.answered == 1)
    }

    @Test func reorderedFramesCloseTheConnection() throws {
        // A 100 000-byte request is two records (frames 2 and 3); the relay swaps them.
        let held = RelayMemory()
        let outcome = try reasonWithRelay(requests: [100_000]) { index, frame in
            switch index {
            case 2: held.keep(frame); return []
            case 3: return [frame, held.kept]
            default: return [frame]
            }
        }
        #expect(outcome.reasons == [.messageAuthenticationFailed])
        #expect(outcome.answered == 0)
    }
}

/// One frame a relay holds back (its closure runs on the relay's single forwarding thread).
final class RelayMemory: @unchecked Sendable {
    private(set) var kept: [UInt8] = []
    func keep(_ frame: [UInt8]) { kept = frame }
}
