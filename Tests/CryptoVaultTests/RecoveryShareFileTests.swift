@testable import CryptoVault
import Testing
import TestSupport

@Suite("Recovery share files: exact format, strict parser")
struct RecoveryShareFileTests {
    static func sample() throws -> RecoveryShareFile {
        RecoveryShareFile(vaultID: try VaultID(bytes: Array(repeating: 0xab, count: 16)), keyslotUUID: try KeyslotID(bytes: Array(repeating: 0x01, count: 16)),
                          threshold: 3, shareCount: 5,
                          share: SecretShare(index: 2, value: try SecureBytes(copying: (0..<32).map { UInt8($0) })))
    }

    static func text() throws -> String {
        String(decoding: try sample().serialized().exposedCopy(), as: UTF8.self)
    }

    func parse(_ text: String) -> CryptoVaultErrorCode? {
        errorCode { try RecoveryShareFile(parsing: try SecureBytes(copying: Array(text.utf8))) }
    }

    @Test("serialises to the documented seven lines and parses back")
    func roundTrip() throws {
        let text = try Self.text()
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 8 && lines[7].isEmpty)
        #expect(lines[0] == "vaultctl recovery share v1")
        #expect(lines[1] == "vault: " + String(repeating: "ab", count: 16))
        #expect(lines[3] == "threshold: 3")
        #expect(lines[4] == "share: 2 of 5")
        #expect(lines[5] == "value: 000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f")
        let parsed = try RecoveryShareFile(parsing: try SecureBytes(copying: Array(text.utf8)))
        #expect(parsed.share.index == 2 && parsed.threshold == 3 && parsed.shareCount == 5)
        #expect(parsed.share.value == (try Self.sample().share.value))
        #expect(parsed.fileName == "share-2-of-5.txt")
    }

    @Test("truncation at every length is refused")
    func truncation() throws {
        let bytes = Array(try Self.text().utf8)
        for length in 0..<bytes.count {
            #expect(errorCode { try RecoveryShareFile(parsing: try SecureBytes(copying: bytes.prefix(length))) } == .invalidShare)
        }
    }

    @Test("every single-byte change is refused")
    func everyByteFlip() throws {
        let bytes = Array(try Self.text().utf8)
        for index in bytes.indices {
            var changed = bytes
            changed[index] ^= 0x01
            #expect(errorCode { try RecoveryShareFile(parsing: try SecureBytes(copying: changed)) } == .invalidShare,
                    "byte \(index)")
        }
    }

    static func edited(_ name: String, _ text: String) -> String {
        switch name {
        case "uppercase hex": return text.replacingOccurrences(of: "vault: abab", with: "vault: ABAB")
        case "trailing data": return text + "\n"
        case "CRLF line ends": return text.replacingOccurrences(of: "\n", with: "\r\n")
        case "leading zero": return text.replacingOccurrences(of: "threshold: 3", with: "threshold: 03")
        case "wrong magic": return text.replacingOccurrences(of: "share v1", with: "share v2")
        default: return text
        }
    }

    @Test("non-canonical forms are refused", arguments: ["uppercase hex", "trailing data", "CRLF line ends", "leading zero", "wrong magic"])
    func nonCanonical(_ name: String) throws {
        let text = try Self.text()
        let edited = Self.edited(name, text)
        #expect(edited != text)
        #expect(parse(edited) == .invalidShare)
    }

    @Test("impossible share numbers are refused even with a valid check line")
    func impossibleNumbers() throws {
        for (threshold, index, count) in [(1, 1, 5), (6, 1, 5), (3, 6, 5), (3, 0, 5)] {
            let file = RecoveryShareFile(vaultID: try VaultID(bytes: Array(repeating: 1, count: 16)), keyslotUUID: try KeyslotID(bytes: Array(repeating: 2, count: 16)),
                                         threshold: threshold, shareCount: count,
                                         share: SecretShare(index: UInt8(index), value: try SecureBytes.random(count: 32)))
            let message = errorMessage { try RecoveryShareFile(parsing: try file.serialized()) } ?? ""
            #expect(message.contains("not a valid recovery share"), "\(threshold) \(index) \(count): \(message)")
        }
    }

    @Test("an oversized file is refused before parsing")
    func oversized() {
        #expect(parse(String(repeating: "x", count: RecoveryShareFile.maximumSize + 1)) == .invalidShare)
    }
}
