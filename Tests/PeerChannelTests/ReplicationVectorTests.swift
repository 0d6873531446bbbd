import CryptoVault
import Foundation
@testable import PeerChannel
import Testing
import TestSupport

/// Checks the replication messages against testvectors/peer/replication.json, written by the
/// independent testvectors/independent/replication_messages.py from SECURITY.md §9.13 alone: every
/// valid case must serialize to its bytes and parse back to its fields, every invalid one must be
/// refused as malformed. Case counts are checked, so a file cut short fails.
@Suite("Known-answer vectors for the replication messages (testvectors/peer/replication.json)")
struct ReplicationVectorTests {
    struct Cases<Valid: Decodable>: Decodable {
        let valid: [Valid]
        let invalid: [Invalid]
    }

    struct Invalid: Decodable {
        let reason: String
        let encoded: Hex
        let first_bundle_id: Hex?
        let length: UInt64?
    }

    struct InventoryRequestCase: Decodable { let vault_id, first_bundle_id, encoded: Hex }
    struct NextCase: Decodable { let last: Hex; let next: Hex? }
    struct EntryCase: Decodable { let bundle_id: Hex; let length, received: UInt64; let sha256: Hex }
    struct PageCase: Decodable { let first_bundle_id: Hex; let entries: [EntryCase]; let encoded: Hex }
    struct AnnouncementCase: Decodable { let vault_id, bundle_id: Hex; let length: UInt64; let sha256, encoded: Hex }
    struct ChunkCase: Decodable { let bundle_id: Hex; let offset: UInt64; let data, encoded: Hex }
    struct FetchCase: Decodable { let vault_id, bundle_id: Hex; let offset: UInt64; let count: Int; let encoded: Hex }
    struct ReceivedCase: Decodable { let length, value: UInt64; let encoded: Hex }

    struct ChunkCases: Decodable {
        let valid: [ChunkCase]
        let invalid: [Invalid]
        let invalid_zero_filled_length: Int
    }

    struct File: Decodable {
        let maximum_body_length, inventory_page_size: Int
        let inventory_requests: [InventoryRequestCase]
        let inventory_next: [NextCase]
        let inventory_pages: Cases<PageCase>
        let announcements: Cases<AnnouncementCase>
        let chunks: ChunkCases
        let fetches: Cases<FetchCase>
        let received: Cases<ReceivedCase>
    }

    let file: File

    init() throws {
        file = try PackageFiles.decode("testvectors/peer/replication.json")
    }

    static let malformed = PeerChannelError(.malformedReplicationMessage, "")

    @Test func limits() {
        #expect(file.maximum_body_length == ChannelLimits.maximumBodyLength)
        #expect(file.inventory_page_size == ReplicaInventory.pageSize)
    }

    @Test func inventoryRequests() throws {
        try #require(file.inventory_requests.count == 2 && file.inventory_next.count == 4)
        for test in file.inventory_requests {
            let request = ReplicaInventory.Request(vaultID: try VaultID(bytes: test.vault_id.bytes), firstBundleID: try BundleID(bytes: test.first_bundle_id.bytes))
            #expect(request.serialized() == test.encoded.bytes)
            #expect(try ReplicaInventory.Request(parsing: test.encoded.bytes) == request)
        }
        for test in file.inventory_next {
            let request = ReplicaInventory.Request(vaultID: try VaultID(bytes: [UInt8](repeating: 0, count: 16)), firstBundleID: try BundleID(bytes: [UInt8](repeating: 0, count: 16)))
            #expect(request.next(after: try BundleID(bytes: test.last.bytes))?.firstBundleID.bytes == test.next?.bytes)
        }
    }

    @Test func inventoryPages() throws {
        try #require(file.inventory_pages.valid.count == 3 && file.inventory_pages.invalid.count == 9)
        for test in file.inventory_pages.valid {
            let entries = try test.entries.map {
                ReplicaInventory.Entry(bundleID: try BundleID(bytes: $0.bundle_id.bytes), length: $0.length, received: $0.received, sha256: $0.sha256.bytes)
            }
            let request = ReplicaInventory.Request(vaultID: try VaultID(bytes: [UInt8](repeating: 0, count: 16)), firstBundleID: try BundleID(bytes: test.first_bundle_id.bytes))
            #expect(ReplicaInventory.serialize(entries) == test.encoded.bytes)
            #expect(try ReplicaInventory.parsePage(test.encoded.bytes, answering: request) == entries)
        }
        for test in file.inventory_pages.invalid {
            let request = ReplicaInventory.Request(vaultID: try VaultID(bytes: [UInt8](repeating: 0, count: 16)), firstBundleID: try BundleID(bytes: try #require(test.first_bundle_id).bytes))
            #expect(throws: Self.malformed, "\(test.reason)") { try ReplicaInventory.parsePage(test.encoded.bytes, answering: request) }
        }
    }

    @Test func announcements() throws {
        try #require(file.announcements.valid.count == 3 && file.announcements.invalid.count == 3)
        for test in file.announcements.valid {
            let announcement = ReplicaAnnouncement(vaultID: try VaultID(bytes: test.vault_id.bytes), bundleID: try BundleID(bytes: test.bundle_id.bytes), length: test.length,
                                                   sha256: test.sha256.bytes)
            #expect(announcement.serialized() == test.encoded.bytes)
            #expect(try ReplicaAnnouncement(parsing: test.encoded.bytes) == announcement)
        }
        for test in file.announcements.invalid {
            #expect(throws: Self.malformed, "\(test.reason)") { try ReplicaAnnouncement(parsing: test.encoded.bytes) }
        }
    }

    @Test func chunks() throws {
        try #require(file.chunks.valid.count == 3 && file.chunks.invalid.count == 3)
        for test in file.chunks.valid {
            var body = ReplicaChunk.body(bundleID: try BundleID(bytes: test.bundle_id.bytes), offset: test.offset, dataCount: test.data.bytes.count)
            body.replaceSubrange(ReplicaChunk.headerSize..., with: test.data.bytes)
            #expect(body == test.encoded.bytes)
            let chunk = try ReplicaChunk(parsing: test.encoded.bytes)
            #expect(chunk.bundleID.bytes == test.bundle_id.bytes && chunk.offset == test.offset)
            #expect(Array(test.encoded.bytes[chunk.dataRange]) == test.data.bytes)
        }
        for test in file.chunks.invalid {
            #expect(throws: Self.malformed, "\(test.reason)") { try ReplicaChunk(parsing: test.encoded.bytes) }
        }
        #expect(throws: Self.malformed) { try ReplicaChunk(parsing: [UInt8](repeating: 0, count: file.chunks.invalid_zero_filled_length)) }
    }

    @Test func fetches() throws {
        try #require(file.fetches.valid.count == 3 && file.fetches.invalid.count == 4)
        for test in file.fetches.valid {
            let fetch = ReplicaFetch(vaultID: try VaultID(bytes: test.vault_id.bytes), bundleID: try BundleID(bytes: test.bundle_id.bytes), offset: test.offset, count: test.count)
            #expect(fetch.serialized() == test.encoded.bytes)
            #expect(try ReplicaFetch(parsing: test.encoded.bytes) == fetch)
        }
        for test in file.fetches.invalid {
            #expect(throws: Self.malformed, "\(test.reason)") { try ReplicaFetch(parsing: test.encoded.bytes) }
        }
    }

    @Test func receivedCounts() throws {
        try #require(file.received.valid.count == 3 && file.received.invalid.count == 3)
        for test in file.received.valid {
            #expect(ReplicationWire.received(test.value) == test.encoded.bytes)
            #expect(try ReplicationWire.parseReceived(test.encoded.bytes, atMost: test.length) == test.value)
        }
        for test in file.received.invalid {
            let length = try #require(test.length)
            #expect(throws: Self.malformed, "\(test.reason)") { try ReplicationWire.parseReceived(test.encoded.bytes, atMost: length) }
        }
    }
}
