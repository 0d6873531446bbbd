@testable import PeerChannel
import Testing

/// The message layer on its own (SECURITY.md §9.9): one encoding per message, records cut at fixed
/// lengths, and a reader that refuses anything else, for the right reason.
struct ChannelMessageTests {
    static let everyType: Set<ChannelMessage.MessageType> = [.request, .answer, .refusal, .ready]

    private func read(_ records: [[UInt8]], allowing types: Set<ChannelMessage.MessageType> = everyType,
                      recordLength: Int = ChannelMessage.recordLength) throws(PeerChannelError) -> [ChannelMessage] {
        var reader = ChannelMessageReader(allowedTypes: types, recordLength: recordLength)
        var messages: [ChannelMessage] = []
        for record in records {
            if let message = try reader.take(record) { messages.append(message) }
        }
        return messages
    }

    @Test func aRequestIsEncodedByteByByte() throws {
        let message = try ChannelMessage.request("ping", body: [0xAA, 0xBB])
        #expect(message.encoding() == [0x01, 0x04, 0x70, 0x69, 0x6E, 0x67, 0x00, 0x00, 0x00, 0x02, 0xAA, 0xBB])
        #expect(ChannelMessage.ready.encoding() == [0x04, 0x00, 0x00, 0x00, 0x00, 0x00])
    }

    @Test(arguments: [0, 1, 65_519 - 10, 65_519 - 9, 65_519, 200_000])
    func messagesAreCutIntoFullRecordsAndReadBack(bodyLength: Int) throws {
        let message = try ChannelMessage.request("echo", body: (0..<bodyLength).map { UInt8(truncatingIfNeeded: $0) })
        let records = message.records()
        let total = 10 + bodyLength
        #expect(records.count == (total + 65_518) / 65_519)
        #expect(records.dropLast().allSatisfy { $0.count == 65_519 })
        #expect(records.last?.count == total - 65_519 * (records.count - 1))
        #expect(try read(records) == [message])
    }

    @Test func refusalsAndAnswersRoundTrip() throws {
        let refusal = ChannelMessage.refusal(PeerChannelError(.unknownRequestKind, "no service answers 'x'"))
        #expect(refusal.label == "unknownRequestKind")
        let answer = try ChannelMessage(.answer, body: [1, 2, 3])
        #expect(try read(refusal.records() + answer.records() + ChannelMessage.ready.records()) == [refusal, answer, .ready])
    }

    @Test func aLongRefusalTextIsCutAtACharacterBoundary() {
        let refusal = ChannelMessage.refusal(PeerChannelError(.serviceFailed, String(repeating: "é", count: 600)))
        #expect(refusal.body.count == 1024)
        #expect(String(validating: refusal.body, as: UTF8.self) != nil)
    }

    // MARK: Refusals by the reader

    @Test(arguments: [
        ([0x00, 0x00, 0, 0, 0, 0], PeerChannelErrorCode.malformedChannelMessage),      // unknown type
        ([0x05, 0x00, 0, 0, 0, 0], .malformedChannelMessage),                          // unknown type
        ([0x01, 0x00, 0, 0, 0, 0], .malformedChannelMessage),                          // request without a kind
        ([0x01, 0x41] + [UInt8](repeating: 0x61, count: 65) + [0, 0, 0, 0], .malformedChannelMessage),  // kind of 65 bytes
        ([0x01, 0x02, 0x61, 0x20, 0, 0, 0, 0], .malformedChannelMessage),              // a space in the kind
        ([0x01, 0x02, 0x61, 0x80, 0, 0, 0, 0], .malformedChannelMessage),              // a non-ASCII byte
        ([0x02, 0x01, 0x61, 0, 0, 0, 0], .malformedChannelMessage),                    // an answer with a label
        ([0x04, 0x00, 0, 0, 0, 1, 0x00], .messageTooLarge),                            // ready with a body
        ([0x02, 0x00, 0x00, 0x40, 0x00, 0x01], .messageTooLarge),                      // body of 4 MiB + 1
        ([0x03, 0x01, 0x61, 0x00, 0x00, 0x04, 0x01], .messageTooLarge),                // refusal text over 1024
        ([0x03, 0x01, 0x61, 0, 0, 0, 1, 0xFF], .malformedChannelMessage),              // refusal text not UTF-8
        ([0x01, 0x04, 0x65, 0x63], .malformedChannelMessage),                          // header cut short
        ([0x02, 0x00, 0, 0, 0, 1], .malformedChannelMessage),                          // a short first record
        ([0x02, 0x00, 0, 0, 0, 0, 0x00], .malformedChannelMessage),                    // trailing byte
        ([], .malformedChannelMessage),
    ] as [([UInt8], PeerChannelErrorCode)])
    func aBadRecordIsRefused(record: [UInt8], code: PeerChannelErrorCode) {
        #expect(throws: PeerChannelError(code, "")) { try read([record]) }
    }

    @Test func aTypeTheSenderMayNotSendIsRefused() throws {
        let answer = try ChannelMessage(.answer, body: [])
        #expect(throws: PeerChannelError(.malformedChannelMessage, "")) { try read(answer.records(), allowing: [.request]) }
    }

    @Test func aLaterRecordMustHaveTheCanonicalLength() throws {
        let records = try ChannelMessage.request("echo", body: [UInt8](repeating: 9, count: 100)).records(recordLength: 40)
        #expect(records.map(\.count) == [40, 40, 30])
        #expect(try read(records, recordLength: 40).count == 1)
        #expect(throws: PeerChannelError(.malformedChannelMessage, "")) { try read([records[0], records[1] + [0], records[2]], recordLength: 40) }
        #expect(throws: PeerChannelError(.malformedChannelMessage, "")) { try read([records[0], Array(records[1].prefix(39))], recordLength: 40) }
    }

    @Test func aReaderThatRefusedStaysClosed() throws {
        var reader = ChannelMessageReader(allowedTypes: Self.everyType)
        #expect(throws: PeerChannelError(.malformedChannelMessage, "")) { _ = try reader.take([0xFF]) }
        #expect(throws: PeerChannelError(.malformedChannelMessage, "")) { _ = try reader.take(ChannelMessage.ready.encoding()) }
    }

    /// Reads records the way the channel does: each written by its opener straight into the reader.
    private func readOpening(_ records: [[UInt8]], recordLength: Int) throws(PeerChannelError) -> [ChannelMessage] {
        var reader = ChannelMessageReader(allowedTypes: Self.everyType, recordLength: recordLength)
        var messages: [ChannelMessage] = []
        for record in records {
            let message = try reader.take(recordOfLength: record.count) { (output) throws(PeerChannelError) in
                output.copyBytes(from: record)
            }
            if let message { messages.append(message) }
        }
        return messages
    }

    @Test func recordsOpenedIntoTheReaderReadBackTheSameMessages() throws {
        let message = try ChannelMessage.request("echo", body: (0..<100).map { UInt8($0) })
        let records = message.records(recordLength: 40)
        #expect(try readOpening(records, recordLength: 40) == [message])
        #expect(try readOpening(records + [ChannelMessage.ready.encoding()] + records, recordLength: 40) == [message, .ready, message])
        #expect(throws: PeerChannelError(.malformedChannelMessage, "")) { try readOpening([records[0], records[1] + [0], records[2]], recordLength: 40) }
        #expect(throws: PeerChannelError(.malformedChannelMessage, "")) { try readOpening([records[0], Array(records[1].prefix(39))], recordLength: 40) }
    }

    /// A record that does not open (not authentic) ends the reader with that reason, whether it would
    /// have gone straight into the body or has a wrong length (opened first, so a forgery is refused
    /// as a forgery).
    @Test(arguments: [40, 41])
    func aRecordThatFailsToOpenEndsTheReader(length: Int) throws {
        let records = try ChannelMessage.request("echo", body: [UInt8](repeating: 9, count: 100)).records(recordLength: 40)
        var reader = ChannelMessageReader(allowedTypes: Self.everyType, recordLength: 40)
        #expect(try reader.take(records[0]) == nil)
        #expect(throws: PeerChannelError(.messageAuthenticationFailed, "")) {
            _ = try reader.take(recordOfLength: length) { (_) throws(PeerChannelError) in
                throw PeerChannelError(.messageAuthenticationFailed, "a forged record")
            }
        }
        #expect(throws: PeerChannelError(.messageAuthenticationFailed, "")) { _ = try reader.take(records[1]) }
    }
}
