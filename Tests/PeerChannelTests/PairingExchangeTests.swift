import CryptoVault
@testable import PeerChannel
import Testing

/// Pairing two vaults over loopback TCP, as `pair host` and `pair join` run it (SECURITY.md §9.7).
struct PairingExchangeTests {
    static let code = "7KQ2M-X9D4R"

    @Test func theRightCodeStoresMatchingPairingsOnBothSidesAndAuditsThem() throws {
        let desk = try PairingDevice("desk"), laptop = try PairingDevice("laptop")
        let listener = try Loopback.listener()
        let host = Loopback.host(desk, lease: PairingCodeLease(code: try knownCode(Self.code)), attempts: 1, on: listener)
        let joined = try Loopback.join(laptop, code: "7kq2m x9d4r", on: listener).get()
        let hosted = try host.wait().get()
        let hostPairing = try hosted.outcomes[0].get()

        #expect(joined.peer == desk.keys.profile && joined.role == .join)
        #expect(hostPairing.peer == laptop.keys.profile && hostPairing.role == .host)
        #expect(try desk.pairings == [hostPairing] && laptop.pairings == [joined])
        #expect(hosted.lease.isUsed && hosted.lease.failedAttempts == 0)
        #expect(try desk.peerAuditEntries().map(\.action) == ["peer.pair"])
        #expect(try laptop.peerAuditEntries().first?.details == ["name": "desk", "role": "join"])
    }

    @Test func aWrongCodeFailsOnBothSidesWithTheReasonAndStoresNothing() throws {
        let desk = try PairingDevice("desk"), laptop = try PairingDevice("laptop")
        let listener = try Loopback.listener()
        let host = Loopback.host(desk, lease: PairingCodeLease(code: try knownCode(Self.code)), attempts: 1, on: listener)
        let joined = Loopback.join(laptop, code: "7KQ2M-X9D4S", on: listener)
        let hosted = try host.wait().get()

        #expect(joined.errorCode == .wrongPairingCode)
        #expect(hosted.outcomes[0].errorCode == .wrongPairingCode)
        #expect(hosted.lease.failedAttempts == 1 && !hosted.lease.isUsed)
        #expect(try desk.pairings.isEmpty && laptop.pairings.isEmpty)
        for device in [desk, laptop] {
            let entries = try device.peerAuditEntries()
            #expect(entries.map(\.action) == ["peer.pair-failed"] && entries.first?.details == ["reason": "wrongPairingCode"])
        }
    }

    @Test func threeWrongAttemptsKillTheCodeEvenForTheRightOne() throws {
        let desk = try PairingDevice("desk"), laptop = try PairingDevice("laptop")
        let listener = try Loopback.listener()
        let host = Loopback.host(desk, lease: PairingCodeLease(code: try knownCode(Self.code)), attempts: 4, on: listener)
        let wrong = try ["AAAAA-AAAAA", "BBBBB-BBBBB", "CCCCC-CCCCC"].map { Loopback.join(laptop, code: $0, on: listener) }
        let right = Loopback.join(laptop, code: Self.code, on: listener)
        let hosted = try host.wait().get()

        #expect(wrong.map(\.errorCode) == [.wrongPairingCode, .wrongPairingCode, .wrongPairingCode])
        #expect(right.errorCode == .pairingCodeExhausted)
        #expect(hosted.outcomes.map(\.errorCode) == [.wrongPairingCode, .wrongPairingCode, .wrongPairingCode, .pairingCodeExhausted])
        #expect(try desk.pairings.isEmpty && laptop.pairings.isEmpty)
    }

    @Test func anExpiredCodeIsRefusedOnBothSidesWithoutCountingAnAttempt() throws {
        let desk = try PairingDevice("desk"), laptop = try PairingDevice("laptop")
        let clock = TestClock()
        let lease = PairingCodeLease(code: try knownCode(Self.code), clock: clock.clock)
        clock.advance(PairingCodeLease.lifetimeSeconds - 1)
        #expect(throws: Never.self) { try lease.checkUsable() }
        clock.advance(1)
        let listener = try Loopback.listener()
        let host = Loopback.host(desk, lease: lease, attempts: 1, on: listener)
        let joined = Loopback.join(laptop, code: Self.code, on: listener)
        let hosted = try host.wait().get()

        #expect(joined.errorCode == .pairingCodeExpired && hosted.outcomes[0].errorCode == .pairingCodeExpired)
        #expect(hosted.lease.failedAttempts == 0)
        #expect(try desk.pairings.isEmpty && laptop.pairings.isEmpty)
    }
}
