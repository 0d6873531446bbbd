import Foundation
@testable import Appliance
import Testing
import TestSupport

/// The control message encoding (SECURITY.md §10.6): what is encoded parses back to the same
/// fields, and every malformed message is refused with its reason, never half-read.
struct ControlMessageTests {
    @Test func aMessageRoundTripsWithItsFieldsInOrder() throws {
        var message = ControlMessage(["op": "session.start", "compartment": "notes"])
        message.set("data", bytes: [0, 1, 0xff])
        let parsed = try ControlMessage(parsing: try message.encoded())
        #expect(parsed == message)
        #expect(parsed.fields.map(\.name) == ["op", "compartment", "data"])
        #expect(parsed.text("op") == "session.start")
        #expect(parsed.bytes("data") == [0, 1, 0xff])
        #expect(try ControlMessage(parsing: [0]) == ControlMessage())
    }

    @Test func theEncodingIsTheOneSpecified() throws {
        let encoded = try ControlMessage(["op": "ls"]).encoded()
        #expect(encoded == [1, 2, 0x6f, 0x70, 0, 0, 0, 2, 0x6c, 0x73])
    }

    @Test func malformedMessagesAreRefusedWithTheirReason() {
        let cases: [([UInt8], String)] = [
            ([], "ends early"),
            ([1], "ends early"),
            ([1, 2, 0x6f, 0x70, 0, 0, 0, 3, 0x6c, 0x73], "ends early"),
            ([1, 0], "a field name of 0 bytes"),
            ([1, 33] + [UInt8](repeating: 0x61, count: 33) + [0, 0, 0, 0], "a field name of 33 bytes"),
            ([1, 2, 0x4f, 0x50, 0, 0, 0, 0], "outside a-z"),
            ([2, 1, 0x61, 0, 0, 0, 0, 1, 0x61, 0, 0, 0, 0], "appears twice"),
            ([0, 0], "after the last field"),
            ([33], "more than 32 fields"),
        ]
        for (bytes, reason) in cases {
            #expect {
                _ = try ControlMessage(parsing: bytes)
            } throws: { error in
                let error = error as? ApplianceError
                return error?.code == .malformedMessage && error?.message.contains(reason) == true
            }
        }
    }

    @Test func aMessageOverTheBoundIsRefusedBothWays() {
        var message = ControlMessage()
        message.set("data", bytes: [UInt8](repeating: 7, count: ControlMessage.maximumEncodedSize))
        #expect(throws: ApplianceError(.messageTooLarge, "")) { try message.encoded() }
        #expect(throws: ApplianceError(.messageTooLarge, "")) {
            try ControlMessage(parsing: [UInt8](repeating: 0, count: ControlMessage.maximumEncodedSize + 1))
        }
    }
}

/// testvectors/daemon/control-messages.json, written by the independent Python implementation
/// (testvectors/independent/control_messages.py): every entry, both ways.
struct ControlMessageVectorTests {
    struct Vectors: Decodable {
        struct Valid: Decodable { let fields: [[String]]; let encoded: String }
        struct Invalid: Decodable { let encoded: String; let reason: String }
        let maximum_encoded_size: Int
        let valid: [Valid]
        let invalid: [Invalid]
    }

    static func load() throws -> Vectors {
        try PackageFiles.decode("testvectors/daemon/control-messages.json")
    }

    /// The vector file's hex, by TestSupport's one decoder (malformed hex stops the test here).
    static func bytes(_ hex: String) -> [UInt8] { [UInt8](hex: hex)! }

    @Test func everyValidVectorEncodesAndParsesBothWays() throws {
        let vectors = try Self.load()
        #expect(vectors.maximum_encoded_size == ControlMessage.maximumEncodedSize)
        #expect(vectors.valid.count == 8)
        for vector in vectors.valid {
            var message = ControlMessage()
            for field in vector.fields { message.set(field[0], bytes: Self.bytes(field[1])) }
            #expect(try message.encoded() == Self.bytes(vector.encoded))
            #expect(try ControlMessage(parsing: Self.bytes(vector.encoded)) == message)
        }
    }

    @Test func everyInvalidVectorIsRefusedWithItsReason() throws {
        let vectors = try Self.load()
        #expect(vectors.invalid.count == 10)
        for vector in vectors.invalid {
            #expect {
                _ = try ControlMessage(parsing: Self.bytes(vector.encoded))
            } throws: { error in
                let error = error as? ApplianceError
                return error?.code == .malformedMessage && error?.message.contains(vector.reason) == true
            }
        }
    }
}
