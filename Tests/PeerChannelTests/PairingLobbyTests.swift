import CryptoVault
import Dispatch
import Foundation
@testable import PeerChannel
import Testing

/// `pair host` against connections that say nothing (issue 13): two silent connections made an
/// honest joiner fail after 30 s, since the host served each in turn until its deadline.
@Suite("PairingLobby: silent connections never delay an honest joiner", .serialized)
struct PairingLobbyTests {
    /// The host as `pair host` runs it: attempts from the lobby, one at a time, until one pairs.
    static func host(_ device: PairingDevice, lease: PairingCodeLease, on listener: TCPListener,
                     openingSeconds: Double) -> Background<FamilyPairing> {
        let start = PairingHost(vault: device.vault, keys: device.keys, lease: lease)
        return Background {
            var host = start
            let lobby = PairingLobby(listener: listener, maximumFrameLength: PairingWire.maximumFrameLength, timeoutSeconds: 30,
                                     openingSeconds: openingSeconds)
            let deadline = Date().addingTimeInterval(60)
            while Date() < deadline {
                guard let connection = try lobby.next(waitSeconds: 1) else { continue }
                if let pairing = try? host.serve(connection) { return pairing }
            }
            throw PeerChannelError(.timedOut, "no device paired within 60 s")
        }
    }

    @Test("an honest joiner behind two silent connections on loopback pairs within seconds; the silent ones use no attempt of the code")
    func honestJoinerBehindSilentConnections() throws {
        let (hostDevice, joinerDevice) = (try PairingDevice("host"), try PairingDevice("joiner"))
        let listener = try Loopback.listener()
        let code = try PairingCode.generate()
        let hosting = Self.host(hostDevice, lease: PairingCodeLease(code: code), on: listener, openingSeconds: 30)
        // Two connections that never send a byte, opened first (they stay open for the whole test).
        let silent = try (0..<2).map { _ in try Loopback.connect(listener, timeout: 60) }
        usleep(200_000)
        let start = Date()
        let joined = Loopback.join(joinerDevice, code: code.displayed, on: listener)
        let elapsed = Date().timeIntervalSince(start)
        #expect(throws: Never.self) { try joined.get() }
        #expect(elapsed < 5, "the joiner waited \(elapsed) s behind silent connections")
        let hosted = try hosting.wait().get()
        #expect(hosted.peer.deviceID == joinerDevice.keys.profile.deviceID)
        #expect(silent.count == 2)
    }

    @Test("a connection silent for longer than the opening time is dropped by the lobby: its peer sees the connection closed")
    func silentConnectionIsDropped() throws {
        let listener = try Loopback.listener()
        let lobby = PairingLobby(listener: listener, maximumFrameLength: PairingWire.maximumFrameLength, timeoutSeconds: 30,
                                 openingSeconds: 0.5)
        let silent = try Loopback.connect(listener, timeout: 10)
        #expect(try lobby.next(waitSeconds: 1.5) == nil, "a silent connection is never handed out")
        #expect(throws: PeerChannelError(.connectionClosed, "")) { _ = try silent.readFrame() }
    }
}
