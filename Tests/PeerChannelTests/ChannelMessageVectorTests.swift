import CryptoVault
import Foundation
@testable import PeerChannel
import Testing
import TestSupport

/// Checks the message layer against testvectors/peer/channel-messages.json, written by the independent
/// implementation testvectors/independent/peer_channel_messages.py from SECURITY.md §9.9 alone:
/// every encoding and record, and every first record that must be refused, with its code.
@Suite("Known-answer vectors for the channel's message layer")
struct ChannelMessageVectorTests {
    struct File: Decodable {
        struct Valid: Decodable {
            let type, label: String
            let body_length: Int
            let body: Hex?
            let body_pattern: String?
            let body_sha256: Hex
            let encoding: Hex?
            let record_lengths: [Int]
            let record_sha256: [Hex]
        }

        struct Invalid: Decodable {
            let name: String
            let first_record: Hex
            let error: String
        }

        let record_length: Int
        let maximum_body_length: Int
        let valid: [Valid]
        let invalid: [Invalid]
    }

    // A missing or unreadable file must fail the suite, not skip it.
    static let file: File = try! PackageFiles.decode("testvectors/peer/channel-messages.json")

    static let types: [String: ChannelMessage.MessageType] = ["request": .request, "answer": .answer, "refusal": .refusal, "ready": .ready]

    @Test func theLimitsAreTheSpecifiedOnes() {
        #expect(Self.file.record_length == ChannelMessage.recordLength)
        #expect(Self.file.maximum_body_length == ChannelLimits.maximumBodyLength)
        #expect(Self.file.valid.count == 9)
        #expect(Self.file.invalid.count == 13)
    }

    @Test func everyValidMessageEncodesAndReadsBackAsTheVectorSays() throws {
        for vector in Self.file.valid {
            let body = vector.body?.bytes ?? (0..<vector.body_length).map { UInt8(truncatingIfNeeded: $0 * 7 + 3) }
            #expect(vector.body_pattern == nil || vector.body_pattern == "(i * 7 + 3) mod 256")
            #expect(SHA256.hash(body) == vector.body_sha256.bytes)
            let message = try ChannelMessage(try #require(Self.types[vector.type]), label: vector.label, body: body)
            let records = message.records()
            if let encoding = vector.encoding { #expect(message.encoding() == encoding.bytes, "\(vector.type) \(vector.label)") }
            #expect(records.map(\.count) == vector.record_lengths)
            #expect(records.map(SHA256.hash) == vector.record_sha256.map(\.bytes))
            var reader = ChannelMessageReader(allowedTypes: Set(Self.types.values))
            let read = try records.compactMap { try reader.take($0) }
            #expect(read == [message])
        }
    }

    @Test func everyInvalidFirstRecordIsRefusedWithItsCode() throws {
        for vector in Self.file.invalid {
            var reader = ChannelMessageReader(allowedTypes: Set(Self.types.values))
            let expected = try #require(PeerChannelErrorCode(rawValue: vector.error))
            #expect(errorCode { _ = try reader.take(vector.first_record.bytes) } == expected, "\(vector.name)")
        }
    }
}
