import Foundation
import CryptoVault
import Testing
import TestSupport

/// `BundleID` (issue 12's typed ids): exactly 16 bytes, refused otherwise with the reason.
@Suite struct BundleIDTests {
    @Test("16 bytes parse and render as 32 lowercase hex digits, and the hex parses back", arguments: [[UInt8](0..<16), [UInt8](repeating: 0xab, count: 16)])
    func roundTrip(_ bytes: [UInt8]) throws {
        let id = try BundleID(bytes: bytes)
        #expect(id.bytes == bytes && id.hex == bytes.map { String(format: "%02x", $0) }.joined() && "\(id)" == id.hex)
        #expect(try BundleID(hex: id.hex) == id && (try BundleID(hex: id.hex.uppercased())) == id)
    }

    @Test("any length but 16 bytes is refused as invalidIdentifier, saying the length it had", arguments: [0, 1, 15, 17, 32])
    func wrongLengthIsRefused(_ count: Int) throws {
        let error = try #require(throws: CryptoVaultError.self) { try BundleID(bytes: [UInt8](repeating: 1, count: count)) }
        #expect(error.code == .invalidIdentifier && error.message.contains("not \(count)"), "\(error.message)")
    }

    @Test("hex of the wrong length or with a character that is not a hex digit is refused as invalidIdentifier",
          arguments: ["", "00", String(repeating: "0", count: 31), String(repeating: "0", count: 33),
                      String(repeating: "0", count: 30) + "+f", String(repeating: "0", count: 30) + "0g", String(repeating: "0", count: 30) + "é"])
    func badHexIsRefused(_ text: String) throws {
        let error = try #require(throws: CryptoVaultError.self) { try BundleID(hex: text) }
        #expect(error.code == .invalidIdentifier, "\(error.message)")
    }

    @Test("a stored bundle's id is the header's, typed, and finds the bundle")
    func storedBundlesCarryTheirID() throws {
        let fixture = try TestVault()
        let compartment = try fixture.unlocked.createCompartment(named: "memos", register: .general)
        let path = fixture.root + "/memo.txt"
        try Array("memo".utf8).withUnsafeBytes { try FileDescriptor.createExclusive(path).write($0) }
        let stored = try fixture.unlocked.put(from: try FileDescriptor.openForReading(path), compartment: compartment,
                                              metadata: BundleMetadata(name: "memo.txt", modificationTime: 0))
        #expect(try fixture.unlocked.openStored(stored.bundleID).header.bundleID == stored.bundleID.bytes)
        #expect(try fixture.unlocked.storedBundle(try BundleID(hex: stored.idString)).bundleID == stored.bundleID)
    }
}
