import CryptoVault
import Foundation
@testable import PeerChannel
import Testing

/// draft-irtf-cfrg-cpace-21's vectors for CPaceRistretto255 with SHA-512
/// (shared/vectors/cpace/ristretto255-sha512-draft21.json), every value in the file: the generator
/// string, its hash and g; both shares; K from both sides; ISK in initiator-responder and symmetric
/// mode; sid_output; and scalar_mult_vfy on the valid point and on both invalid points.
@Suite(.enabled(if: SharedVectors.isAvailable))
struct CPaceVectorTests {
    static let path = "cpace/ristretto255-sha512-draft21.json"

    struct Vector: Decodable {
        struct ScalarMultVerify: Decodable {
            let s_hex, valid_X_hex, valid_result_hex, invalid_Y1_hex, invalid_Y2_hex: Hex
        }

        let DSI_utf8, PRS_utf8, ADa_utf8, ADb_utf8: String
        let CI_hex, sid_hex, generator_string_hex, hash_hex, g_hex: Hex
        let ya_hex, Ya_hex, yb_hex, Yb_hex, K_hex, ISK_IR_hex, ISK_SY_hex, sid_output_ir_hex: Hex
        let len_zpad: Int
        let scalar_mult_vfy: ScalarMultVerify

        var password: SecureBytes { get throws { try SecureBytes(copying: Array(PRS_utf8.utf8)) } }
        var initiatorData: [UInt8] { Array(ADa_utf8.utf8) }
        var responderData: [UInt8] { Array(ADb_utf8.utf8) }
    }

    /// The keys this suite consumes: a value added to the file that no test reads fails here.
    static let consumedKeys: Set<String> = [
        "source", "notes", "DSI_utf8", "PRS_utf8", "CI_hex", "sid_hex", "len_zpad", "generator_string_hex", "hash_hex",
        "g_hex", "ADa_utf8", "ya_hex", "Ya_hex", "ADb_utf8", "yb_hex", "Yb_hex", "K_hex", "ISK_IR_hex", "ISK_SY_hex",
        "sid_output_ir_hex", "scalar_mult_vfy",
    ]

    private let vector: Vector

    init() throws {
        vector = try SharedVectors.load(Self.path)
    }

    private func secret(_ hex: Hex) throws -> SecureBytes { try SecureBytes(copying: hex.bytes) }

    @Test func everyValueInTheFileIsChecked() throws {
        let data = try Data(contentsOf: try #require(SharedVectors.directory).appendingPathComponent(Self.path))
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(Set(object.keys) == Self.consumedKeys)
        let verify = try #require(object["scalar_mult_vfy"] as? [String: Any])
        #expect(verify.keys.filter { $0.hasPrefix("invalid_") }.count == 2)
        #expect(verify.keys.count == 5)
    }

    @Test func domainSeparationIdentifierIsTheDraftsForRistretto255() {
        #expect(CPace.domainSeparationIdentifier == Array(vector.DSI_utf8.utf8))
    }

    @Test func generatorStringHashAndGenerator() throws {
        let string = try CPace.generatorString(password: vector.password, channelIdentifier: vector.CI_hex.bytes,
                                               sessionIdentifier: vector.sid_hex.bytes)
        #expect(string.exposedCopy() == vector.generator_string_hex.bytes)
        // DSI (1 + 17 bytes), PRS (1 + 8), then len_zpad zeros behind their one-byte length.
        #expect(string.exposedCopy()[27] == UInt8(vector.len_zpad))
        #expect(SHA512.hash(string.exposedCopy()) == vector.hash_hex.bytes)
        let generator = try CPace.generator(password: vector.password, channelIdentifier: vector.CI_hex.bytes,
                                            sessionIdentifier: vector.sid_hex.bytes)
        #expect(generator.exposedCopy() == vector.g_hex.bytes)
    }

    @Test func sharesAndSharedPoint() throws {
        let generator = try secret(vector.g_hex)
        let initiatorScalar = try secret(vector.ya_hex), responderScalar = try secret(vector.yb_hex)
        #expect(try CPace.share(scalar: initiatorScalar, generator: generator) == vector.Ya_hex.bytes)
        #expect(try CPace.share(scalar: responderScalar, generator: generator) == vector.Yb_hex.bytes)
        #expect(try CPace.sharedPoint(scalar: initiatorScalar, peerShare: vector.Yb_hex.bytes).exposedCopy() == vector.K_hex.bytes)
        #expect(try CPace.sharedPoint(scalar: responderScalar, peerShare: vector.Ya_hex.bytes).exposedCopy() == vector.K_hex.bytes)
    }

    /// The whole exchange through the public flow, with the vectors' scalars: both sides reach ISK_IR
    /// and sid_output_ir, and the messages are lv_cat(Y, AD).
    @Test func initiatorResponderExchange() throws {
        let initiator = try CPaceInitiator(password: vector.password, channelIdentifier: vector.CI_hex.bytes,
                                           sessionIdentifier: vector.sid_hex.bytes, associatedData: vector.initiatorData,
                                           scalar: secret(vector.ya_hex))
        #expect(initiator.message == [32] + vector.Ya_hex.bytes + [3] + vector.initiatorData)
        let (reply, responderKeys) = try CPaceResponder.respond(
            to: initiator.message, password: vector.password, channelIdentifier: vector.CI_hex.bytes,
            sessionIdentifier: vector.sid_hex.bytes, associatedData: vector.responderData, scalar: secret(vector.yb_hex))
        #expect(reply == [32] + vector.Yb_hex.bytes + [3] + vector.responderData)
        let initiatorKeys = try initiator.receive(responderMessage: reply)
        for keys in [initiatorKeys, responderKeys] {
            #expect(keys.intermediateSessionKey.exposedCopy() == vector.ISK_IR_hex.bytes)
            #expect(keys.sessionIdentifierOutput == vector.sid_output_ir_hex.bytes)
        }
        #expect(initiatorKeys.peerAssociatedData == vector.responderData)
        #expect(responderKeys.peerAssociatedData == vector.initiatorData)
    }

    /// The symmetric-mode ISK orders the two messages itself, so either party listing itself first
    /// gets ISK_SY.
    @Test func symmetricModeSessionKey() throws {
        let a = (vector.Ya_hex.bytes, vector.initiatorData), b = (vector.Yb_hex.bytes, vector.responderData)
        for (first, second) in [(a, b), (b, a)] {
            let transcript = CPace.symmetricTranscript(firstShare: first.0, firstData: first.1,
                                                       secondShare: second.0, secondData: second.1)
            let key = try CPace.intermediateSessionKey(sessionIdentifier: vector.sid_hex.bytes,
                                                       sharedPoint: secret(vector.K_hex), transcript: transcript)
            #expect(key.exposedCopy() == vector.ISK_SY_hex.bytes)
        }
    }

    @Test func scalarMultVerifyOnTheValidPoint() throws {
        let cases = vector.scalar_mult_vfy
        let product = try CPace.sharedPoint(scalar: secret(cases.s_hex), peerShare: cases.valid_X_hex.bytes)
        #expect(product.exposedCopy() == cases.valid_result_hex.bytes)
    }

    /// invalid_Y1 is valid_X with one byte changed and decodes to no element; invalid_Y2 is the
    /// identity's encoding, which decodes but would make K known in advance. Both abort, each for its
    /// own reason, in the bare function and in both roles of the exchange.
    @Test func scalarMultVerifyRejectsBothInvalidPoints() throws {
        let cases = vector.scalar_mult_vfy
        let expectations: [(point: [UInt8], code: PeerChannelErrorCode)] = [
            (cases.invalid_Y1_hex.bytes, .invalidGroupElement), (cases.invalid_Y2_hex.bytes, .identityGroupElement),
        ]
        #expect(expectations.count == 2)
        for (point, code) in expectations {
            #expect(throws: PeerChannelError(code, "")) { try CPace.sharedPoint(scalar: secret(cases.s_hex), peerShare: point) }
            let hostileMessage = CPaceEncoding.lengthValueConcatenation(point, vector.responderData)
            #expect(throws: PeerChannelError(code, "")) {
                try CPaceInitiator(password: vector.password, channelIdentifier: vector.CI_hex.bytes,
                                   sessionIdentifier: vector.sid_hex.bytes, associatedData: vector.initiatorData)
                    .receive(responderMessage: hostileMessage)
            }
            #expect(throws: PeerChannelError(code, "")) {
                try CPaceResponder.respond(to: hostileMessage, password: vector.password, channelIdentifier: vector.CI_hex.bytes,
                                           sessionIdentifier: vector.sid_hex.bytes, associatedData: vector.responderData)
            }
        }
    }
}
