import CryptoVault
import Foundation
@testable import PeerChannel
import Testing
import TestSupport

/// Checks the PeerChannel code against testvectors/peer/pairing.json, written by the independent
/// implementation testvectors/independent/peer_pairing.py from SECURITY.md §9 alone (which itself
/// passes the published CPace and cacophony vectors): one pairing (CPace with both device ids, the PSK
/// from ISK, Noise_XXpsk3) and one channel handshake (Noise_XX), every byte, and the channel's rekey
/// after 65536 messages.
@Suite("Known-answer vectors for pairing and the channel (testvectors/peer)")
struct PairingVectorTests {
    struct File: Decodable {
        struct CPaceCase: Decodable {
            let code_utf8: String
            let channel_identifier, sid, initiator_device_id, responder_device_id, ADa, ADb: Hex
            let ya, yb, g, MSGa, MSGb, K, ISK, sid_output, PSK: Hex
        }

        struct NoiseCase: Decodable {
            struct Message: Decodable {
                let payload, message: Hex
            }

            struct Rekey: Decodable {
                struct Numbered: Decodable {
                    let nonce: UInt64
                    let payload, message: Hex
                }

                let messages: [Numbered]
            }

            let protocol_name: String
            let prologue, initiator_static, initiator_ephemeral, responder_static, responder_ephemeral, handshake_hash: Hex
            let messages: [Message]
            let rekey: Rekey?

            func session(presharedKey: SecureBytes?) throws -> KnownAnswerSession {
                try KnownAnswerSession(protocolName: protocol_name, prologue: prologue.bytes,
                                       initiatorStatic: initiator_static.bytes, initiatorEphemeral: initiator_ephemeral.bytes,
                                       responderStatic: responder_static.bytes, responderEphemeral: responder_ephemeral.bytes,
                                       presharedKey: presharedKey)
            }

            var knownMessages: [KnownAnswerSession.Message] {
                messages.map { KnownAnswerSession.Message(payload: $0.payload.bytes, bytes: $0.message.bytes) }
            }
        }

        let version: Int
        let cpace: CPaceCase
        let pairing: NoiseCase
        let channel: NoiseCase
    }

    private let file: File

    init() throws {
        file = try PackageFiles.decode("testvectors/peer/pairing.json")
    }

    @Test func bindingConstants() throws {
        let cpace = file.cpace
        #expect(file.version == Int(PairingBinding.protocolVersion))
        #expect(PairingBinding.channelIdentifier == cpace.channel_identifier.bytes)
        #expect(try PairingBinding.associatedData(role: .initiator, deviceIdentifier: cpace.initiator_device_id.bytes) == cpace.ADa.bytes)
        #expect(try PairingBinding.associatedData(role: .responder, deviceIdentifier: cpace.responder_device_id.bytes) == cpace.ADb.bytes)
        #expect(PairingBinding.pairingPrologue == file.pairing.prologue.bytes)
        #expect(PairingBinding.channelPrologue == file.channel.prologue.bytes)
    }

    /// CPace with the vector's scalars, the PSK from its ISK, and the pairing handshake keyed with it.
    @Test func pairing() throws {
        let cpace = file.cpace
        let password = try SecureBytes(copying: Array(cpace.code_utf8.utf8))
        #expect(try CPace.generator(password: password, channelIdentifier: cpace.channel_identifier.bytes,
                                    sessionIdentifier: cpace.sid.bytes).exposedCopy() == cpace.g.bytes)
        let initiator = try CPaceInitiator(password: password, channelIdentifier: cpace.channel_identifier.bytes,
                                           sessionIdentifier: cpace.sid.bytes, associatedData: cpace.ADa.bytes,
                                           scalar: SecureBytes(copying: cpace.ya.bytes))
        #expect(initiator.message == cpace.MSGa.bytes)
        let (reply, responderKeys) = try CPaceResponder.respond(
            to: initiator.message, password: password, channelIdentifier: cpace.channel_identifier.bytes,
            sessionIdentifier: cpace.sid.bytes, associatedData: cpace.ADb.bytes, scalar: SecureBytes(copying: cpace.yb.bytes))
        #expect(reply == cpace.MSGb.bytes)
        let initiatorKeys = try initiator.receive(responderMessage: reply)
        #expect(try CPace.sharedPoint(scalar: SecureBytes(copying: cpace.ya.bytes), peerShare: Array(cpace.MSGb.bytes[1...32])).exposedCopy() == cpace.K.bytes)
        for keys in [initiatorKeys, responderKeys] {
            #expect(keys.intermediateSessionKey.exposedCopy() == cpace.ISK.bytes)
            #expect(keys.sessionIdentifierOutput == cpace.sid_output.bytes)
            #expect(try PairingBinding.presharedKey(from: keys).exposedCopy() == cpace.PSK.bytes)
        }
        #expect(try PairingBinding.peerDeviceIdentifier(in: initiatorKeys.peerAssociatedData, ownRole: .initiator) == cpace.responder_device_id.bytes)
        #expect(try PairingBinding.peerDeviceIdentifier(in: responderKeys.peerAssociatedData, ownRole: .responder) == cpace.initiator_device_id.bytes)

        #expect(file.pairing.protocol_name == NoisePattern.xxpsk3.protocolName)
        try file.pairing.session(presharedKey: PairingBinding.presharedKey(from: initiatorKeys))
            .run(file.pairing.knownMessages, handshakeHash: file.pairing.handshake_hash.bytes, label: "pairing")
    }

    @Test func channel() throws {
        #expect(file.channel.protocol_name == NoisePattern.xx.protocolName)
        try file.channel.session(presharedKey: nil)
            .run(file.channel.knownMessages, handshakeHash: file.channel.handshake_hash.bytes, label: "channel")
    }

    /// The initiator sends 65538 messages on a fresh channel; the recorded ones straddle the first
    /// rekey (after nonce 65535), and the responder opens every one of them.
    @Test func channelRekeysAfter65536Messages() throws {
        let recorded = try #require(file.channel.rekey).messages
        #expect(recorded.map(\.nonce) == [65534, 65535, 65536, 65537])
        var (initiator, responder) = try file.channel.session(presharedKey: nil)
            .run(Array(file.channel.knownMessages.prefix(3)), handshakeHash: file.channel.handshake_hash.bytes, label: "channel")
        var checked = 0
        for nonce in 0...UInt64(65537) {
            let payload = withUnsafeBytes(of: UInt32(nonce).bigEndian, Array.init)
            let message = try initiator.seal(payload)
            #expect(try responder.open(message) == payload)
            if let expected = recorded.first(where: { $0.nonce == nonce }) {
                #expect(expected.payload.bytes == payload)
                #expect(message == expected.message.bytes, "message \(nonce)")
                checked += 1
            }
        }
        #expect(checked == 4)
    }
}
