import CryptoVault
import Foundation
@testable import Sync
import Testing
import TestSupport
import Writing

/// The exchange's messages against testvectors/sync/exchange-messages.json, written by the
/// independent testvectors/independent/sync_exchange.py from SECURITY.md §19.9 alone: each valid
/// message parses to its fields and the fields encode to its bytes; each variant is refused as
/// malformed.
@Suite struct SyncWireTests {
    let root: [String: Any]

    init() throws {
        let path = PackageFiles.url("testvectors/sync/exchange-messages.json").path
        let data = try #require(FileManager.default.contents(atPath: path), "missing \(path)")
        root = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    /// Parses `bytes` as the message of `kind` and `direction`, and encodes it back.
    static func roundTrip(_ kind: String, _ direction: String, _ bytes: [UInt8]) throws -> (fields: [String: Any], encoded: [UInt8]) {
        switch (kind, direction) {
        case (SyncWire.projectsKind, "request"):
            guard bytes == [SyncWire.version] else { throw SyncWireReader.malformed("a projects request is the version byte alone") }
            return ([:], [SyncWire.version])
        case (SyncWire.projectsKind, "answer"), (SyncWire.offerKind, "request"):
            let offers = try SyncOffers.parse(bytes)
            return (["offers": offers.map(json)], SyncOffers.serialize(offers))
        case (SyncWire.offerKind, _):
            let taken = try SyncOffers.parseTaken(bytes)
            let pairs = taken.map { ($0.key, $0.value) }.sorted { $0.0.bytes.lexicographicallyPrecedes($1.0.bytes) }
            return (["taken": pairs.map { [$0.0.hex, $0.1] as [Any] }], SyncOffers.serializeTaken(pairs))
        case (SyncWire.pullKind, "request"):
            let request = try SyncPullRequest(parsing: bytes)
            return (["project": request.project.hex, "held": json(request.held)], request.serialized())
        case (SyncWire.pullKind, _):
            let answer = try SyncPullAnswer(parsing: bytes)
            return (["more": answer.more, "held": json(answer.held), "records": answer.records.map(ByteEncoding.hex)], answer.serialized())
        case (SyncWire.pushKind, "request"):
            let request = try SyncPushRequest(parsing: bytes)
            return (["project": request.project.hex, "records": request.records.map(ByteEncoding.hex)], request.serialized())
        default:
            let answer = try SyncPushAnswer(parsing: bytes)
            return (["stored": answer.stored, "refused": answer.refused], answer.serialized())
        }
    }

    static func json(_ vector: [DeviceID: UInt64]) -> [[Any]] {
        vector.sorted { $0.key.bytes.lexicographicallyPrecedes($1.key.bytes) }.map { [$0.key.hex, Int($0.value)] }
    }

    static func json(_ offer: SyncProjectOffer) -> [String: Any] {
        ["project": offer.project.hex, "access": offer.access.name, "privileged": offer.privileged, "kind": offer.kind.rawValue,
         "register": offer.register.rawValue, "name": offer.name,
         "roster": offer.roster.map { ["device": $0.device.hex, "signing_key": ByteEncoding.hex($0.signingKey), "noise_key": ByteEncoding.hex($0.noiseKey)] }]
    }

    static func same(_ a: Any, _ b: Any) -> Bool {
        (try? JSONSerialization.data(withJSONObject: ["v": a], options: .sortedKeys)) == (try? JSONSerialization.data(withJSONObject: ["v": b], options: .sortedKeys))
    }

    @Test func everyKnownMessageParsesToItsFieldsAndEncodesToItsBytes() throws {
        let valid = try #require(root["valid"] as? [[String: Any]])
        #expect(valid.count == 11)
        for vector in valid {
            let bytes = try hex(vector["hex"] as! String)
            let (fields, encoded) = try Self.roundTrip(vector["kind"] as! String, vector["direction"] as! String, bytes)
            #expect(encoded == bytes, "\(vector["name"]!)")
            #expect(Self.same(fields, vector["fields"]!), "\(vector["name"]!): \(fields)")
        }
    }

    @Test func everyKnownVariantIsRefusedAsMalformed() throws {
        let invalid = try #require(root["invalid"] as? [[String: Any]])
        #expect(invalid.count == 14)
        for vector in invalid {
            #expect(throws: SyncExchangeError(.malformedMessage, ""), "\(vector["name"]!)") {
                try Self.roundTrip(vector["kind"] as! String, vector["direction"] as! String, hex(vector["hex"] as! String))
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
