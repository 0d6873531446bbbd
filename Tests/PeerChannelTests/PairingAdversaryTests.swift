import CryptoVault
import Dispatch
@testable import PeerChannel
import Synchronization
import Testing

/// Hostile clients, relays and a man in the middle against a pairing host (SECURITY.md §9.8).
struct PairingAdversaryTests {
    static let code = "7KQ2M-X9D4R"

    /// The host facing one hostile client that sends `bytes` (unframed) and then waits.
    static func hostFacing(_ bytes: [UInt8], timeout: Double = Loopback.timeout) throws
        -> (outcome: Result<FamilyPairing, PeerChannelError>, lease: PairingCodeLease, desk: PairingDevice) {
        let desk = try PairingDevice("desk")
        let listener = try Loopback.listener()
        let host = Loopback.host(desk, lease: PairingCodeLease(code: try knownCode(code)), attempts: 1, on: listener, timeout: timeout)
        let client = try Loopback.connect(listener)
        try client.writeRaw(bytes)
        let hosted = try host.wait().get()
        return (hosted.outcomes[0], hosted.lease, desk)
    }

    @Test func anOversizedFrameIsRefusedAtItsLengthAndCostsNoAttempt() throws {
        let (outcome, lease, desk) = try Self.hostFacing([0xFF, 0xFF] + [UInt8](repeating: 0x41, count: 64))
        #expect(outcome.errorCode == .frameTooLarge)
        #expect(lease.failedAttempts == 0 && !lease.isUsed)
        #expect(try desk.pairings.isEmpty)
        #expect(try desk.peerAuditEntries().map(\.details) == [["reason": "frameTooLarge"]])
    }

    @Test func randomBytesInAFrameAreRefusedAsMalformed() throws {
        let junk = [UInt8](repeating: 0xAB, count: 200)
        let (outcome, lease, desk) = try Self.hostFacing(FrameCodec.encode(junk))
        #expect(outcome.errorCode == .malformedPairingMessage)
        #expect(lease.failedAttempts == 0)
        #expect(try desk.pairings.isEmpty)
    }

    @Test func aSilentClientTimesOut() throws {
        let started = DispatchTime.now()
        let (outcome, _, desk) = try Self.hostFacing([], timeout: 0.5)
        #expect(outcome.errorCode == .timedOut)
        #expect(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds < 5_000_000_000)
        #expect(try desk.pairings.isEmpty)
    }

    /// Forwards `count` frames between `joiner` and `host`, alternately starting with the joiner,
    /// passing each through `alter`.
    static func forward(_ count: Int, joiner: TCPConnection, host: TCPConnection,
                      alter: (Int, [UInt8]) -> [UInt8] = { $1 }) {
        for index in 0..<count {
            let (from, to) = index.isMultiple(of: 2) ? (joiner, host) : (host, joiner)
            guard let frame = try? from.readFrame(), (try? to.writeFrame(alter(index, frame))) != nil else { return }
        }
    }

    /// A relay between a joiner and a host, running `alter` on each frame; returns both outcomes.
    static func relayed(alter: @escaping @Sendable (Int, [UInt8]) -> [UInt8] = { $1 }) throws
        -> (joined: Result<FamilyPairing, PeerChannelError>, hosted: Result<FamilyPairing, PeerChannelError>,
            desk: PairingDevice, laptop: PairingDevice) {
        let desk = try PairingDevice("desk"), laptop = try PairingDevice("laptop")
        let hostListener = try Loopback.listener(), relayListener = try Loopback.listener()
        let host = Loopback.host(desk, lease: PairingCodeLease(code: try knownCode(code)), attempts: 1, on: hostListener)
        let relay = Background {
            let fromJoiner = try Loopback.accept(relayListener)
            forward(8, joiner: fromJoiner, host: try Loopback.connect(hostListener), alter: alter)
        }
        let joined = Loopback.join(laptop, code: code, on: relayListener)
        let hosted = try host.wait().get().outcomes[0]
        _ = relay.wait()
        return (joined, hosted, desk, laptop)
    }

    /// Forwarding everything unchanged pairs the two genuine devices with each other: the relay's
    /// position gives it nothing to pin.
    @Test func aRelayThatForwardsPairsTheGenuineDevicesWithEachOther() throws {
        let sizes = Mutex<[Int]>([])
        let (joined, hosted, desk, laptop) = try Self.relayed { _, frame in
            sizes.withLock { $0.append(frame.count) }
            return frame
        }
        // The sizes SECURITY.md §9.7 gives: confirmations are 223 + the name's length ("desk", "laptop").
        #expect(sizes.withLock { $0 } == [95, 79, 48, 96, 64, 227, 229, 57])
        #expect(try joined.get().peer == desk.keys.profile)
        #expect(try hosted.get().peer == laptop.keys.profile)
    }

    /// A relay that changes any message in flight makes the pairing fail; nothing is stored.
    @Test(arguments: 0..<8) func aRelayThatAltersAMessageStopsThePairing(index: Int) throws {
        let (joined, hosted, desk, laptop) = try Self.relayed { frameIndex, frame in
            guard frameIndex == index else { return frame }
            var altered = frame
            altered[altered.count - 1] ^= 0x01
            return altered
        }
        #expect(joined.errorCode != nil)
        #expect(try laptop.pairings.isEmpty)
        // The host has stored by the time it sends its last frame (index 7); before that it must not have.
        #expect(try desk.pairings.isEmpty == (index < 7))
        if index < 7 { #expect(hosted.errorCode != nil) }
    }

    /// A third party without the code that terminates the protocol with each side (as host to the
    /// joiner, as joiner to the host) can only guess; each genuine side refuses it.
    @Test func aManInTheMiddleWithoutTheCodeFailsOnBothSides() throws {
        let desk = try PairingDevice("desk"), laptop = try PairingDevice("laptop"), mallory = try PairingDevice("mallory")
        let deskListener = try Loopback.listener(), malloryListener = try Loopback.listener()
        let guess = "ZZZZZ-ZZZZZ"
        let deskHost = Loopback.host(desk, lease: PairingCodeLease(code: try knownCode(Self.code)), attempts: 1, on: deskListener)
        let malloryHost = Loopback.host(mallory, lease: PairingCodeLease(code: try knownCode(guess)), attempts: 1, on: malloryListener)
        let laptopJoined = Loopback.join(laptop, code: Self.code, on: malloryListener)
        let malloryJoined = Loopback.join(mallory, code: guess, on: deskListener)

        #expect(laptopJoined.errorCode == .wrongPairingCode && malloryJoined.errorCode == .wrongPairingCode)
        #expect(try deskHost.wait().get().outcomes[0].errorCode == .wrongPairingCode)
        #expect(try malloryHost.wait().get().outcomes[0].errorCode == .wrongPairingCode)
        #expect(try desk.pairings.isEmpty && laptop.pairings.isEmpty && mallory.pairings.isEmpty)
    }
}
