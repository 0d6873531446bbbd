import CryptoVault
import Testing
import TestSupport

/// HMAC over BLAKE2b-512, checked against Python's `hmac.new(key, message, hashlib.blake2b)`, an
/// independent implementation with the same 128-byte block. The Noise vectors exercise the 64-byte
/// keys Noise uses; these add the key sizes Noise never reaches (a full block, a longer key that is
/// hashed first, a short key).
struct HMACBLAKE2bTests {
    struct KnownAnswer: Sendable, CustomTestStringConvertible {
        let key: [UInt8]
        let message: String
        let tag: String
        var testDescription: String { "\(key.count)-byte key" }
    }

    static let knownAnswers: [KnownAnswer] = [
        KnownAnswer(key: Array(0..<64), message: "Noise chaining key",
                    tag: "f8bc293d9a29fbb240aca1eb43c5eeeae3cd804755c4c3b9043d27dd77146fd15e8006cd82af2a84e4d03fe6502d8ba887c64aa4835bd756784607d4e24c6d4f"),
        KnownAnswer(key: Array(0..<128), message: "",
                    tag: "e79ec585fc83408cd654da61cc87457edd77cae194e6e4727420fa21a001229ed67f1fb7bb03effaaaec05d2d7902f98bfad11da65b4c08d197eefa96f314b31"),
        KnownAnswer(key: Array(0..<200), message: "a key longer than the block is hashed first",
                    tag: "54edbb7c77701e3c9d3db5a4c76671b48c3595953a30380b6b65f39e1c961895a50e44f68e0beb027983000131da575623f96361fb0f52bd3e766d834ef85525"),
        KnownAnswer(key: [UInt8](repeating: 0x0B, count: 20), message: "Hi There",
                    tag: "358a6a184924894fc34bee5680eedf57d84a37bb38832f288e3b27dc63a98cc8c91e76da476b508bc6b2d408a248857452906e4a20b48c6b4b55d2df0fe1dd24"),
    ]

    @Test(arguments: knownAnswers)
    func matchesAnIndependentImplementation(_ answer: KnownAnswer) throws {
        let tag = try HMACBLAKE2b.authenticate(key: SecureBytes(copying: answer.key),
                                               message: SecureBytes(copying: Array(answer.message.utf8)))
        #expect(tag.exposedCopy() == [UInt8](hex: answer.tag))
    }

    @Test func differsFromBLAKE2bKeyedMode() throws {
        let key = try SecureBytes(copying: Array(0..<64) as [UInt8])
        let message = Array("Noise chaining key".utf8)
        let keyed = try BLAKE2b.hash(message, outputCount: 64, key: key)
        #expect(try HMACBLAKE2b.authenticate(key: key, message: SecureBytes(copying: message)).exposedCopy() != keyed)
    }
}
