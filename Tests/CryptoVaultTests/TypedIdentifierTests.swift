import Foundation
import CryptoVault
import Testing

/// The vault's typed ids (issue 12): `VaultID`, `BundleID`, `CompartmentID` and `DeviceID` are each
/// exactly 16 bytes, refused otherwise with the reason and their own name in it.
@Suite struct TypedIdentifierTests {
    enum Kind: String, CaseIterable, Sendable {
        case vault, bundle, compartment, device
        var type: any IdentifierKind.Type {
            switch self {
            case .vault: VaultKind.self
            case .bundle: BundleKind.self
            case .compartment: CompartmentKind.self
            case .device: DeviceKind.self
            }
        }
        var name: String { "a \(rawValue) id" }
    }

    @Test("16 bytes parse and render as 32 lowercase hex digits, and the hex parses back (either case)",
          arguments: Kind.allCases, [[UInt8](0..<16), [UInt8](repeating: 0xcd, count: 16)])
    func roundTrip(_ kind: Kind, _ bytes: [UInt8]) throws {
        try Self.roundTrip(kind.type, bytes)
    }

    private static func roundTrip<K: IdentifierKind>(_: K.Type, _ bytes: [UInt8]) throws {
        let id = try TypedIdentifier<K>(bytes: bytes)
        #expect(id.bytes == bytes && id.hex == bytes.map { String(format: "%02x", $0) }.joined() && "\(id)" == id.hex)
        #expect(try TypedIdentifier<K>(hex: id.hex) == id && (try TypedIdentifier<K>(hex: id.hex.uppercased())) == id)
    }

    @Test("any length but 16 bytes is refused as invalidIdentifier, naming the kind and the length it had",
          arguments: Kind.allCases, [0, 1, 15, 17, 32])
    func wrongLengthIsRefused(_ kind: Kind, _ count: Int) throws {
        let error = try #require(throws: CryptoVaultError.self) { try Self.parse(kind.type, bytes: [UInt8](repeating: 1, count: count)) }
        #expect(error.code == .invalidIdentifier && error.message == "\(kind.name) is 16 bytes, not \(count)", "\(error.message)")
    }

    @Test("hex of the wrong length is refused as invalidIdentifier, naming the kind and the length it had",
          arguments: Kind.allCases, ["", "00", String(repeating: "0", count: 31), String(repeating: "0", count: 33)])
    func wrongHexLengthIsRefused(_ kind: Kind, _ text: String) throws {
        let error = try #require(throws: CryptoVaultError.self) { try Self.parse(kind.type, hex: text) }
        #expect(error.code == .invalidIdentifier && error.message.contains("\(kind.name) is 32 hex digits, not \(text.utf8.count)"), "\(error.message)")
    }

    @Test("hex with a character that is not a hex digit is refused as invalidIdentifier, saying so",
          arguments: Kind.allCases, [String(repeating: "0", count: 30) + "+f", String(repeating: "0", count: 30) + "0g",
                                     String(repeating: "0", count: 30) + "é"])
    func nonHexIsRefused(_ kind: Kind, _ text: String) throws {
        let error = try #require(throws: CryptoVaultError.self) { try Self.parse(kind.type, hex: text) }
        #expect(error.code == .invalidIdentifier && error.message.contains("\(kind.name) is hex digits only"), "\(error.message)")
    }

    @Test("a device id's fingerprint is its hex in four dash-separated groups of eight")
    func deviceFingerprint() throws {
        let id = try DeviceID(bytes: [UInt8](0..<16))
        #expect(id.fingerprint == "00010203-04050607-08090a0b-0c0d0e0f")
    }

    private static func parse<K: IdentifierKind>(_: K.Type, bytes: [UInt8]) throws(CryptoVaultError) {
        _ = try TypedIdentifier<K>(bytes: bytes)
    }

    private static func parse<K: IdentifierKind>(_: K.Type, hex: String) throws(CryptoVaultError) {
        _ = try TypedIdentifier<K>(hex: hex)
    }
}
