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

    private func handshake(_ vector: Vector, role: NoiseHandshake.Role) throws -> NoiseHandshake {
        let pattern = try #require(NoisePattern.allCases.first { $0.protocolName == vector.protocol_name })
        let initiator = role == .initiator
        let psks = initiator ? vector.init_psks : vector.resp_psks
        let staticKey = try #require(initiator ? vector.init_static : vector.resp_static)
        #expect((psks?.count ?? 0) == (pattern.usesPresharedKey ? 1 : 0))
        return try NoiseHandshake(
            pattern: pattern, role: role, prologue: (initiator ? vector.init_prologue : vector.resp_prologue).bytes,
            staticKey: X25519PrivateKey(rawRepresentation: SecureBytes(copying: staticKey.bytes)),
            presharedKey: try psks?.first.map { try SecureBytes(copying: $0.bytes) },
            ephemeralKey: X25519PrivateKey(rawRepresentation: SecureBytes(copying: (initiator ? vector.init_ephemeral : vector.resp_ephemeral).bytes)))
    }

    /// Runs one vector; returns how many messages it checked. Message i is the initiator's when i is
    /// even (cacophony alternates from the initiator, through the handshake and after it).
    private func run(_ vector: Vector) throws -> Int {
        var initiator = try handshake(vector, role: .initiator)
        var responder = try handshake(vector, role: .responder)
        let handshakeCount = initiator.pattern.messages.count
        for (index, message) in vector.messages.prefix(handshakeCount).enumerated() {
            let initiatorSends = index.isMultiple(of: 2)
            let written = initiatorSends ? try initiator.writeMessage(payload: message.payload.bytes)
                                         : try responder.writeMessage(payload: message.payload.bytes)
            #expect(written == message.ciphertext.bytes, "\(vector.protocol_name) handshake message \(index)")
            let read = initiatorSends ? try responder.readMessage(written) : try initiator.readMessage(written)
            #expect(read == message.payload.bytes, "\(vector.protocol_name) handshake payload \(index)")
        }
        #expect(initiator.isComplete && responder.isComplete)
        #expect(initiator.handshakeHash == vector.handshake_hash.bytes)
        #expect(responder.handshakeHash == vector.handshake_hash.bytes)

        var initiatorChannel = try initiator.transport(), responderChannel = try responder.transport()
        let responderStatic = try X25519PrivateKey(rawRepresentation: SecureBytes(copying: #require(vector.resp_static).bytes))
        #expect(initiatorChannel.remoteStaticKey == responderStatic.publicKey)
        for (index, message) in vector.messages.enumerated().dropFirst(handshakeCount) {
            let initiatorSends = index.isMultiple(of: 2)
            let sealed = initiatorSends ? try initiatorChannel.seal(message.payload.bytes) : try responderChannel.seal(message.payload.bytes)
            #expect(sealed == message.ciphertext.bytes, "\(vector.protocol_name) transport message \(index)")
            let opened = initiatorSends ? try responderChannel.open(sealed) : try initiatorChannel.open(sealed)
            #expect(opened == message.payload.bytes, "\(vector.protocol_name) transport payload \(index)")
        }
        return vector.messages.count
    }
}
