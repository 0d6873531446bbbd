import AuditChain
import CryptoVault
@testable import PeerChannel
import Testing

/// The witness request and answer parsers (SECURITY.md §9.11): strict, bounded, and refusing with
/// `.malformedWitnessMessage` whatever is not exactly the format.
@Suite("Witnessing: request and answer parsing")
struct WitnessWireTests {
    static let request = WitnessVectorTests.bytes(WitnessVectorTests.file.cases[1].request)
    static let answer = WitnessVectorTests.bytes(WitnessVectorTests.file.cases[1].answer)

    static func refusal(_ body: () throws -> Void) -> PeerChannelErrorCode? { peerChannelError(body)?.code }

    /// A request with the given header counts and lengths; every part after the header is empty.
    static func header(proofCount: UInt8 = 0, transitionCount: UInt16 = 0) -> [UInt8] {
        [0x01] + [UInt8](repeating: 0, count: 8) + [UInt8](repeating: 7, count: 32) + [proofCount]
            + [UInt8(transitionCount >> 8), UInt8(transitionCount & 0xFF)]
    }

    @Test("every proper prefix of a valid request is refused as malformed")
    func truncatedRequests() {
        for length in 0..<Self.request.count {
            #expect(Self.refusal { _ = try WitnessRequest(parsing: Array(Self.request.prefix(length))) } == .malformedWitnessMessage,
                    "prefix of \(length) bytes")
        }
    }

    @Test("a byte after the checkpoint, or another version, is refused")
    func trailingByteAndVersion() {
        #expect(Self.refusal { _ = try WitnessRequest(parsing: Self.request + [0]) } == .malformedWitnessMessage)
        var version2 = Self.request
        version2[0] = 0x02
        #expect(Self.refusal { _ = try WitnessRequest(parsing: version2) } == .malformedWitnessMessage)
    }

    @Test("counts and lengths above their caps are refused before anything is read for them")
    func capsEnforced() {
        let cases: [(String, [UInt8])] = [
            ("65 proof hashes", Self.header(proofCount: 65)),
            ("1025 key transitions", Self.header(transitionCount: 1025)),
            ("an empty key transition", Self.header(transitionCount: 1) + [0, 0]),
            ("a key transition of 2049 bytes", Self.header(transitionCount: 1) + [0x08, 0x01]),
            ("an empty checkpoint", Self.header() + [0, 0, 0, 0]),
            ("a checkpoint of 65537 bytes", Self.header() + [0, 1, 0, 1]),
            ("a checkpoint of 2^32 - 1 bytes", Self.header() + [0xFF, 0xFF, 0xFF, 0xFF]),
        ]
        for (name, body) in cases {
            let error = peerChannelError { _ = try WitnessRequest(parsing: body) }
            #expect(error?.code == .malformedWitnessMessage, "\(name)")
            #expect(error?.message.contains("ends early") == false, "\(name) was read before its cap was checked: \(error?.message ?? "")")
        }
    }

    @Test("a request that would not parse cannot be built")
    func buildingChecksBounds() {
        let key = [UInt8](repeating: 1, count: 32)
        #expect(Self.refusal { _ = try WitnessRequest(oldSize: 0, genesisPublicKey: [1], consistencyProof: [], keyTransitions: [], checkpointNote: [1]) }
                == .malformedWitnessMessage)
        #expect(Self.refusal { _ = try WitnessRequest(oldSize: 0, genesisPublicKey: key, consistencyProof: [[1]], keyTransitions: [], checkpointNote: [1]) }
                == .malformedWitnessMessage)
        #expect(Self.refusal { _ = try WitnessRequest(oldSize: 0, genesisPublicKey: key, consistencyProof: [], keyTransitions: [[]], checkpointNote: [1]) }
                == .malformedWitnessMessage)
        #expect(Self.refusal { _ = try WitnessRequest(oldSize: 0, genesisPublicKey: key, consistencyProof: [], keyTransitions: [], checkpointNote: []) }
                == .malformedWitnessMessage)
    }

    static let malformedAnswerBodies: [(String, [UInt8])] = {
        let emDashLine: [UInt8] = Array("\u{2014} w ".utf8) + [UInt8](repeating: UInt8(ascii: "A"), count: 1024) + [0x0A]
        let conflictPrefix: [UInt8] = [0x02, 0, 0, 0, 0, 0, 0, 0, 7]
        let cases: [(String, [UInt8])] = [
            ("empty", []),
            ("unknown tag", [0x03]),
            ("conflict without its reason", conflictPrefix),
            ("conflict with a trailing byte", conflictPrefix + [0x01, 0x00]),
            ("conflict with an unknown reason", conflictPrefix + [0x03]),
            ("cosigned without a line", [0x01]),
            ("a line without its newline", Array(answer.dropLast())),
            ("two lines", answer + Array(answer.dropFirst())),
            ("a hyphen for the em dash", [0x01] + Array("- w AAAAAQ==\n".utf8)),
            ("a line above 1024 bytes", [0x01] + emDashLine),
        ]
        return cases
    }()

    @Test("answers: only a cosignature line or an exact conflict parse", arguments: malformedAnswerBodies.map(\.0))
    func malformedAnswers(_ name: String) throws {
        let body = try #require(Self.malformedAnswerBodies.first { $0.0 == name }?.1)
        #expect(Self.refusal { _ = try WitnessAnswer(parsing: body) } == .malformedWitnessMessage, "\(name)")
    }

    @Test("the service refuses a kind it does not answer (the daemon never routes one) and records a malformed request")
    func serviceRefusesMalformed() throws {
        let pair = try WitnessPair()
        let unknownKind = peerChannelError { _ = try pair.service.respond(to: "witness.other", body: Self.request, from: pair.log.keys.profile) }
        #expect(unknownKind?.code == .malformedWitnessMessage)
        let garbage = peerChannelError { _ = try pair.service.respond(to: WitnessRequest.kind, body: [0x01, 0x02], from: pair.log.keys.profile) }
        #expect(garbage?.code == .malformedWitnessMessage)
        #expect(try WitnessPair.entries(of: pair.witness, ["witness.refuse"]).map { $0.details["reason"] } == ["malformedWitnessMessage"])
    }
}
