import CryptoVault
import Foundation
@testable import PeerChannel
import Testing
import TestSupport

/// Checks the whole-vault copy messages (SECURITY.md §13.6) against testvectors/peer/replication.json,
/// written by the independent testvectors/independent/replication_messages.py: every valid case must
/// serialize to its bytes and parse back to its fields, every invalid one must be refused as
/// malformed. Case counts are checked, so a file cut short fails.
@Suite("Known-answer vectors for the whole-vault copy messages (testvectors/peer/replication.json)")
struct VaultCopyVectorTests {
    struct Invalid: Decodable { let reason: String; let encoded: Hex }
    struct Cases<Valid: Decodable>: Decodable { let valid: [Valid]; let invalid: [Invalid] }
    struct OfferCase: Decodable { let vault_id: Hex; let entries: UInt64; let last_leaf_hash: Hex; let length: UInt64; let sha256, encoded: Hex }
    struct ChunkCase: Decodable { let offset: UInt64; let data, encoded: Hex }
    struct HeaderCase: Decodable { let source_device_id, offer, encoded: Hex }

    struct File: Decodable {
        let maximum_body_length: Int
        let vault_copy_offers: Cases<OfferCase>
        let vault_copy_chunks: Cases<ChunkCase>
        let handover_headers: Cases<HeaderCase>
    }

    let file: File

    init() throws {
        file = try PackageFiles.decode("testvectors/peer/replication.json")
    }

    static let malformed = PeerChannelError(.malformedReplicationMessage, "")

    @Test func offers() throws {
        try #require(file.vault_copy_offers.valid.count == 3 && file.vault_copy_offers.invalid.count == 4)
        for test in file.vault_copy_offers.valid {
            let offer = VaultCopyOffer(vaultID: try VaultID(bytes: test.vault_id.bytes), entries: test.entries, lastLeafHash: test.last_leaf_hash.bytes,
                                       length: test.length, sha256: test.sha256.bytes)
            #expect(offer.serialized() == test.encoded.bytes)
            #expect(try VaultCopyOffer(parsing: test.encoded.bytes) == offer)
        }
        for test in file.vault_copy_offers.invalid {
            #expect(throws: Self.malformed, "\(test.reason)") { try VaultCopyOffer(parsing: test.encoded.bytes) }
        }
    }

    @Test func chunks() throws {
        try #require(file.vault_copy_chunks.valid.count == 3 && file.vault_copy_chunks.invalid.count == 3)
        #expect(file.maximum_body_length == VaultCopyWire.maximumChunkDataCount + VaultCopyWire.chunkHeaderSize)
        for test in file.vault_copy_chunks.valid {
            #expect(VaultCopyWire.chunk(offset: test.offset, data: test.data.bytes[...]) == test.encoded.bytes)
            let parsed = try VaultCopyWire.parseChunk(test.encoded.bytes)
            #expect(parsed.offset == test.offset && Array(parsed.data) == test.data.bytes)
        }
        for test in file.vault_copy_chunks.invalid {
            #expect(throws: Self.malformed, "\(test.reason)") { try VaultCopyWire.parseChunk(test.encoded.bytes) }
        }
        #expect(throws: Self.malformed) { try VaultCopyWire.parseChunk([UInt8](repeating: 0, count: file.maximum_body_length + 1)) }
    }

    @Test func handoverHeaders() throws {
        try #require(file.handover_headers.valid.count == 2 && file.handover_headers.invalid.count == 3)
        for test in file.handover_headers.valid {
            let header = VaultCopyHandoverHeader(sourceDeviceID: try DeviceID(bytes: test.source_device_id.bytes), offer: try VaultCopyOffer(parsing: test.offer.bytes))
            #expect(header.serialized() == test.encoded.bytes)
            #expect(try VaultCopyHandoverHeader(parsing: test.encoded.bytes) == header)
        }
        for test in file.handover_headers.invalid {
            #expect(throws: Self.malformed, "\(test.reason)") { try VaultCopyHandoverHeader(parsing: test.encoded.bytes) }
        }
    }
}
