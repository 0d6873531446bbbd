import CryptoVault
@testable import PrivilegedSession
import Testing

/// Payloads that are not well-behaved text get a result, not a crash, in time linear in their size.
struct LeakGuardRobustnessTests {
    private func guardWithFingerprints() throws -> LeakGuard {
        var index = try FingerprintIndex(key: SecureBytes(copying: [UInt8](repeating: 7, count: 32)))
        try index.add("the privileged memo says that the settlement offer will be withdrawn on friday morning")
        return LeakGuard(fingerprints: index)
    }

    @Test func invalidUTF8GetsAResultAndIdentifiersInItAreStillFound() throws {
        let guardian = try guardWithFingerprints()
        var payload: [UInt8] = [0xFF, 0xFE, 0xC0, 0xAF]                        // not UTF-8 at all, overlong "/"
        payload += Array("SSN 123-45-6789".utf8) + [0xED, 0xA0, 0x80]          // an encoded surrogate
        payload += Array(" the privileged memo says that the settlement".utf8) + [0xF4, 0x90, 0x80, 0x80]  // above U+10FFFF
        payload += Array(" offer will be withdrawn".utf8) + [0xE2, 0x82]      // truncated sequence at the end
        let hits = guardian.scan(payload)
        try #require(hits.map(\.kind) == [.socialSecurityNumber, .privilegedQuote])
        #expect(String(decoding: payload[hits[0].range], as: UTF8.self) == "123-45-6789")
        // An ill-formed byte separates words as a space would: the quote runs on across it.
        #expect(Array(payload[hits[1].range])
            == Array("the privileged memo says that the settlement".utf8) + [0xF4, 0x90, 0x80, 0x80] + Array(" offer will be withdrawn".utf8))
        let redacted = guardian.redact(payload)
        #expect(redacted.starts(with: [0xFF, 0xFE, 0xC0, 0xAF] + Array("SSN [SSN]".utf8)))
        #expect(redacted.suffix(2) == [0xE2, 0x82])
    }

    @Test(arguments: 0..<64)
    func randomBytesGetAResult(seed: Int) throws {
        var random = SeededRandom(seed: UInt64(seed))
        let payload = (0..<4096).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        let guardian = try guardWithFingerprints()
        let hits = guardian.scan(payload)
        #expect(hits.allSatisfy { !$0.range.isEmpty && $0.range.upperBound <= payload.count })
        #expect(guardian.redact(payload).count >= 0)
    }

    /// Inputs built to make a careless scanner go back over its work. Each is 1 MB; time is bounded
    /// generously (a debug build on a shared machine), but a quadratic scanner would take hours.
    /// The 100 MB payloads are in `vaultbench leakguard`.
    @Test(arguments: ["digits", "digit groups", "separators", "at signs", "letters", "labels", "iban shapes", "non-ASCII letters", "ignorables"])
    func pathologicalPayloadsTakeLinearTime(shape: String) throws {
        let size = 1_000_000
        let unit: [UInt8] = switch shape {
        case "digits": Array("1".utf8)
        case "digit groups": Array("1234 ".utf8)
        case "separators": Array("1-(".utf8)
        case "at signs": Array("a.b@".utf8)
        case "letters": Array("a".utf8)
        case "labels": Array("DOB MRN SSN date of birth ".utf8)
        case "iban shapes": Array("GB82 ".utf8)
        case "non-ASCII letters": Array("é".utf8)
        default: Array("a\u{200B}".utf8)
        }
        let payload = Array(repeating: unit, count: size / unit.count).flatMap { $0 }
        let guardian = try guardWithFingerprints()
        let start = ContinuousClock.now
        _ = guardian.scan(payload)
        #expect(ContinuousClock.now - start < .seconds(60), "\(shape)")
    }

    @Test func aStringPayloadAndItsBytesGiveTheSameHits() throws {
        let guardian = try guardWithFingerprints()
        let text = "Ünïcödé first: DOB 03/14/1962 — “the privileged memo says that the settlement offer will be withdrawn” ✓"
        #expect(guardian.scan(text) == guardian.scan(Array(text.utf8)))
        #expect(guardian.redact(text) == "Ünïcödé first: DOB [DOB] — “[PRIVILEGED]” ✓")
    }
}
