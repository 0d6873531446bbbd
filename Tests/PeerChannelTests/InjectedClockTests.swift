import CryptoVault
import PeerChannel
import Testing

/// PeerChannel reads the time through `VaultClock`: an injected clock is the one its answers carry.
struct InjectedClockTests {
    @Test("a ping answer carries the responder's clock in milliseconds, read from the VaultClock it was given")
    func pingAnswersWithTheInjectedClock() throws {
        let peer = try DeviceKeys(signingKey: try Ed25519PrivateKey(), noiseKey: try X25519PrivateKey(), name: "desk", createdAt: 0).profile
        let service = PingService(clock: .fractional { 1_700_000_000.25 })
        let answer = try service.respond(to: PingService.kind, body: [1, 2, 3], from: peer)
        let parsed = try PingService.parseAnswer(answer)
        #expect(parsed.milliseconds == 1_700_000_000_250 && parsed.echo == [1, 2, 3])
    }
}
