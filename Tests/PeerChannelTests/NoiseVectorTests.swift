import CryptoVault
@testable import PeerChannel
import Testing

/// The cacophony vectors (shared/vectors/noise/cacophony-25519-chachapoly.json) for the two patterns
/// PeerChannel speaks with BLAKE2b: Noise_XX and Noise_XXpsk3. Every message of each vector, the three
/// handshake messages and the transport messages after them, is produced byte for byte by the sender
/// and read back to its payload by the receiver; both sides end with the published handshake hash.
@Suite(.enabled(if: SharedVectors.isAvailable))
struct NoiseVectorTests {
    struct File: Decodable {
        let vectors: [Vector]
    }

    struct Vector: Decodable {
        struct Message: Decodable {
            let payload, ciphertext: Hex
        }

        let protocol_name: String
        let init_prologue, init_ephemeral, resp_prologue, resp_ephemeral: Hex
        /// Absent from the file's vectors of patterns without static keys (NN), present in every XX one.
        let init_static, resp_static: Hex?
        let init_psks, resp_psks: [Hex]?
        let handshake_hash: Hex
        let messages: [Message]
    }

    /// The XX-family vectors with BLAKE2b in the file: exactly one XX and one XXpsk3.
    private func xxVectors() throws -> [Vector] {
        let file: File = try SharedVectors.load("noise/cacophony-25519-chachapoly.json")
        return file.vectors.filter { $0.protocol_name.hasPrefix("Noise_XX") && $0.protocol_name.hasSuffix("_BLAKE2b") }
    }

    @Test func theFileHoldsOneVectorForEachPattern() throws {
        let names = try xxVectors().map(\.protocol_name)
        #expect(names.count == 2)
        #expect(Set(names) == Set(NoisePattern.allCases.map(\.protocolName)))
    }

    @Test func everyXXVectorPassesByteForByte() throws {
        let vectors = try xxVectors()
        #expect(vectors.count == 2)
        var messagesChecked = 0
        for vector in vectors {
            messagesChecked += try run(vector)
        }
        // Six messages each: three handshake messages and three transport messages.
        #expect(messagesChecked == 12)
    }

    /// Runs one vector; returns how many messages it checked.
    private func run(_ vector: Vector) throws -> Int {
        let psks = vector.init_psks ?? []
        #expect(psks.count == (vector.protocol_name.contains("psk3") ? 1 : 0))
        #expect((vector.resp_psks ?? []).map(\.bytes) == psks.map(\.bytes))
        #expect(vector.init_prologue.bytes == vector.resp_prologue.bytes)
        let session = try KnownAnswerSession(
            protocolName: vector.protocol_name, prologue: vector.init_prologue.bytes,
            initiatorStatic: #require(vector.init_static).bytes, initiatorEphemeral: vector.init_ephemeral.bytes,
            responderStatic: #require(vector.resp_static).bytes, responderEphemeral: vector.resp_ephemeral.bytes,
            presharedKey: psks.first.map { try SecureBytes(copying: $0.bytes) })
        try session.run(vector.messages.map { KnownAnswerSession.Message(payload: $0.payload.bytes, bytes: $0.ciphertext.bytes) },
                        handshakeHash: vector.handshake_hash.bytes, label: vector.protocol_name)
        return vector.messages.count
    }
}
