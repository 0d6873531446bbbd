import CryptoVault
@testable import Sync
import Testing
import TestSupport
import Writing

/// The exchange's messages against testvectors/sync/exchange-messages.json, written by the
/// independent testvectors/independent/sync_exchange.py from SECURITY.md §19.9 alone: each valid
/// message parses to its fields and the fields encode to its bytes; each variant is refused as
/// malformed.
@Suite struct SyncWireTests {
    let vectors: SyncWireVectors

    init() throws {
        vectors = try PackageFiles.decode("testvectors/sync/exchange-messages.json", keys: .convertFromSnakeCase)
    }

    typealias Fields = SyncWireVectors.Fields

    /// Parses `bytes` as the message of `kind` and `direction`, and encodes it back.
    static func roundTrip(_ kind: String, _ direction: String, _ bytes: [UInt8]) throws -> (fields: Fields, encoded: [UInt8]) {
        switch (kind, direction) {
        case (SyncWire.projectsKind, "request"):
            let request = try SyncProjectsRequest(parsing: bytes)
            return (Fields(after: request.after?.hex, heldProjects: request.held.isEmpty ? nil : request.held.map(\.hex)), request.serialized())
        case (SyncWire.projectsKind, _):
            let page = try SyncProjectsPage(parsing: bytes)
            return (Fields(offers: page.offers.map(fields), more: page.more), page.serialized())
        case (SyncWire.offerKind, "request"):
            let offers = try SyncOffers.parse(bytes)
            return (Fields(offers: offers.map(fields)), SyncOffers.serialize(offers))
        case (SyncWire.offerKind, _):
            let taken = try SyncOffers.parseTaken(bytes)
            let pairs = taken.map { ($0.key, $0.value) }.sorted { $0.0.bytes.lexicographicallyPrecedes($1.0.bytes) }
            return (Fields(taken: pairs.map { Fields.Pair(id: $0.0.hex, value: $0.1) }), SyncOffers.serializeTaken(pairs))
        case (SyncWire.pullKind, "request"):
            let request = try SyncPullRequest(parsing: bytes)
            return (Fields(project: request.project.hex, held: held(request.held), tips: tips(request.tips)), request.serialized())
        case (SyncWire.pullKind, _):
            let answer = try SyncPullAnswer(parsing: bytes)
            return (Fields(held: held(answer.held), tips: tips(answer.tips), more: answer.more, records: answer.records.map(ByteEncoding.hex)),
                    answer.serialized())
        case (SyncWire.demotionsKind, _):
            let list = try SyncDemotionList(parsing: bytes)
            return (Fields(demotions: list.demotions.map {
                Fields.Demotion(device: $0.device.hex, signingKey: ByteEncoding.hex($0.signingKey), demotedAt: $0.demotedAt, demotedBy: $0.demotedBy.hex,
                                 signature: ByteEncoding.hex($0.signature))
            }), list.serialized())
        case (SyncWire.pushKind, "request"):
            let request = try SyncPushRequest(parsing: bytes)
            return (Fields(project: request.project.hex, records: request.records.map(ByteEncoding.hex)), request.serialized())
        default:
            let answer = try SyncPushAnswer(parsing: bytes)
            return (Fields(stored: answer.stored, refused: answer.refused), answer.serialized())
        }
    }

    static func held(_ vector: [DeviceID: UInt64]) -> [Fields.Pair<UInt64>] {
        vector.sorted { $0.key.bytes.lexicographicallyPrecedes($1.key.bytes) }.map { Fields.Pair(id: $0.key.hex, value: $0.value) }
    }

    static func tips(_ tips: [DeviceID: [UInt8]]) -> [Fields.Pair<String>] {
        tips.sorted { $0.key.bytes.lexicographicallyPrecedes($1.key.bytes) }.map { Fields.Pair(id: $0.key.hex, value: ByteEncoding.hex($0.value)) }
    }

    static func fields(_ offer: SyncProjectOffer) -> Fields.Offer {
        Fields.Offer(project: offer.project.hex, access: offer.access.name, origin: offer.origin?.hex, roleSince: offer.roleSince,
                     privileged: offer.privileged, kind: offer.kind.rawValue,
                     register: offer.register.rawValue, name: offer.name,
                     roster: offer.roster.map { Fields.Member(device: $0.device.hex, signingKey: ByteEncoding.hex($0.signingKey),
                                                              noiseKey: ByteEncoding.hex($0.noiseKey)) })
    }

    @Test func everyKnownMessageParsesToItsFieldsAndEncodesToItsBytes() throws {
        #expect(vectors.valid.count == 19)
        for vector in vectors.valid {
            let (fields, encoded) = try Self.roundTrip(vector.kind, vector.direction, vector.hex.bytes)
            #expect(encoded == vector.hex.bytes, "\(vector.name)")
            #expect(fields == vector.fields, "\(vector.name)")
        }
    }

    @Test func everyKnownVariantIsRefusedAsMalformed() throws {
        #expect(vectors.invalid.count == 43)
        for vector in vectors.invalid {
            #expect(throws: SyncExchangeError(.malformedMessage, ""), "\(vector.name)") {
                try Self.roundTrip(vector.kind, vector.direction, vector.hex.bytes)
            }
        }
    }

    /// The signed encoding of a demotion (SECURITY.md §19.9, "Demotions among own devices") against
    /// the independent code's known answers: the same bytes are signed, a signature verifies with the
    /// demoting device's key exactly where it should, and signing with its seed gives the same one.
    @Test func aDemotionIsSignedOverItsKnownEncoding() throws {
        #expect(vectors.demotionSignatures.count == 6)
        #expect(vectors.demotionSignatures.filter(\.verifies).count == 1)
        for vector in vectors.demotionSignatures {
            let demotion = SyncDemotion(device: try DeviceID(bytes: vector.device.bytes), signingKey: vector.signingKey.bytes,
                                        demotedAt: vector.demotedAt, demotedBy: try DeviceID(bytes: vector.demotedBy.bytes),
                                        signature: vector.signature.bytes)
            #expect(SyncDemotion.signingInput(device: demotion.device, signingKey: demotion.signingKey, demotedBy: demotion.demotedBy,
                                              demotedAt: demotion.demotedAt) == vector.signingInput.bytes, "\(vector.name)")
            #expect(demotion.isSigned(byKey: vector.publicKey.bytes) == vector.verifies, "\(vector.name)")
            if let seed = vector.seed {
                #expect(try Ed25519PrivateKey(seed: try SecureBytes(copying: seed.bytes)).signature(for: vector.signingInput.bytes) == vector.signature.bytes, "\(vector.name)")
            }
        }
    }

    @Test func aBatchStopsAtItsBudgetAndARecordTooLargeForAMessageIsNotSent() throws {
        let records = Array(repeating: [UInt8](repeating: 7, count: 1 << 20), count: 5)
        #expect(try SyncWire.batch(records[...]).count == 3)
        let huge = [[UInt8](repeating: 7, count: SyncWire.batchBudget)]
        #expect(throws: SyncExchangeError(.recordTooLarge, "")) { try SyncWire.batch(huge[...]) }
        #expect(try SyncWire.batch([][...]).isEmpty)
    }
}
