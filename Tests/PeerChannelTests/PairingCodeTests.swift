import CryptoVault
@testable import PeerChannel
import Testing

struct PairingCodeTests {
    static func parse(_ text: String) throws -> String {
        String(decoding: try knownCode(text).canonicalBytes.exposedCopy(), as: UTF8.self)
    }

    @Test func aNewCodeIsTenCrockfordSymbolsShownInTwoGroups() throws {
        let codes = try (0..<200).map { _ in try PairingCode.generate().displayed }
        let alphabet = Set("0123456789ABCDEFGHJKMNPQRSTVWXYZ")
        for code in codes {
            #expect(code.count == 11 && Array(code)[5] == "-")
            #expect(code.replacingOccurrences(of: "-", with: "").allSatisfy { alphabet.contains($0) })
        }
        #expect(Set(codes).count == codes.count)
        // Every symbol of the alphabet turns up in 2000 uniform draws.
        #expect(Set(codes.joined().filter { $0 != "-" }) == alphabet)
        #expect(PairingCode.entropyBits == 50)
    }

    @Test func typingIsForgivingAsCrockfordIntends() throws {
        #expect(try Self.parse("7KQ2M-X9D4R") == "7KQ2MX9D4R")
        #expect(try Self.parse(" 7kq2m x9d4r ") == "7KQ2MX9D4R")
        #expect(try Self.parse("ILO1L-0oiAB") == "1101100 1AB".replacingOccurrences(of: " ", with: ""))
    }

    @Test(arguments: ["", "7KQ2M-X9D4", "7KQ2M-X9D4RR", "7KQ2M-X9D4U", "7KQ2M_X9D4R", "7KQ2M-X9D4É", "7KQ2M\nX9D4R"])
    func anythingElseIsRefused(typed: String) {
        #expect(throws: PeerChannelError(.invalidPairingCode, "")) { try knownCode(typed) }
    }

    @Test func theLeaseServesThreeFailuresAndOneSuccessForFiveMinutes() throws {
        let clock = TestClock()
        var lease = PairingCodeLease(code: try PairingCode.generate(), clock: clock.clock)
        for _ in 0..<2 { lease.recordFailure() }
        try lease.checkUsable()
        lease.recordFailure()
        #expect(throws: PeerChannelError(.pairingCodeExhausted, "")) { try lease.checkUsable() }

        var fresh = PairingCodeLease(code: try PairingCode.generate(), clock: clock.clock)
        fresh.recordSuccess()
        #expect(throws: PeerChannelError(.pairingCodeExhausted, "")) { try fresh.checkUsable() }

        let timed = PairingCodeLease(code: try PairingCode.generate(), clock: clock.clock)
        clock.advance(299.5)
        try timed.checkUsable()
        clock.advance(0.5)
        #expect(throws: PeerChannelError(.pairingCodeExpired, "")) { try timed.checkUsable() }
    }
}
