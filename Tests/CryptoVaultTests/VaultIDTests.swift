import Foundation
import CryptoVault
import Testing

/// `VaultID` (issue 12's typed ids): exactly 16 bytes, refused otherwise with the reason.
@Suite struct VaultIDTests {
    @Test("16 bytes parse and render as 32 lowercase hex digits, and the hex parses back", arguments: [[UInt8](0..<16), [UInt8](repeating: 0xcd, count: 16)])
    func roundTrip(_ bytes: [UInt8]) throws {
        let id = try VaultID(bytes: bytes)
        #expect(id.bytes == bytes && id.hex == bytes.map { String(format: "%02x", $0) }.joined() && "\(id)" == id.hex)
        #expect(try VaultID(hex: id.hex) == id && (try VaultID(hex: id.hex.uppercased())) == id)
    }

    @Test("any length but 16 bytes is refused as invalidIdentifier, saying the length it had", arguments: [0, 1, 15, 17, 32])
    func wrongLengthIsRefused(_ count: Int) throws {
        let error = try #require(throws: CryptoVaultError.self) { try VaultID(bytes: [UInt8](repeating: 1, count: count)) }
        #expect(error.code == .invalidIdentifier && error.message.contains("a vault id") && error.message.contains("not \(count)"), "\(error.message)")
    }

    @Test("hex of the wrong length is refused as invalidIdentifier, saying the length it had",
          arguments: ["", "00", String(repeating: "0", count: 31), String(repeating: "0", count: 33)])
    func wrongHexLengthIsRefused(_ text: String) throws {
        let error = try #require(throws: CryptoVaultError.self) { try VaultID(hex: text) }
        #expect(error.code == .invalidIdentifier && error.message.contains("a vault id is 32 hex digits, not \(text.utf8.count)"), "\(error.message)")
    }

    @Test("hex with a character that is not a hex digit is refused as invalidIdentifier, saying so",
          arguments: [String(repeating: "0", count: 30) + "+f", String(repeating: "0", count: 30) + "0g", String(repeating: "0", count: 30) + "é"])
    func nonHexIsRefused(_ text: String) throws {
        let error = try #require(throws: CryptoVaultError.self) { try VaultID(hex: text) }
        #expect(error.code == .invalidIdentifier && error.message.contains("a vault id is hex digits only"), "\(error.message)")
    }
}
