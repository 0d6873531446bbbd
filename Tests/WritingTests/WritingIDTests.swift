import Testing
@testable import Writing

/// A writing id is exactly 16 bytes; a caller's argument or a damaged row of any other length, or
/// text that is not lowercase hex, is refused with a reason rather than truncated or padded.
struct WritingIDTests {
    @Test func aRandomIDRoundTripsThroughHex() throws {
        let id = try BlockID.random()
        #expect(id.bytes.count == 16)
        #expect(id.hex.count == 32)
        #expect(try BlockID(hex: id.hex) == id)
    }

    @Test func twoRandomIDsDiffer() throws {
        #expect(try ProjectID.random() != ProjectID.random())
    }

    @Test func anIDOfTheWrongLengthIsRefusedSayingSo() {
        for count in [0, 15, 17, 32] {
            do {
                _ = try NodeID(bytes: Array(repeating: 7, count: count))
                Issue.record("a \(count)-byte id was accepted")
            } catch {
                #expect(error.code == .invalidIdentifier)
                #expect(error.message.contains("not \(count)"))
            }
        }
    }

    @Test func hexIsReadByTheRuleOfTheVaultsOtherIDs() throws {
        let id = try ProjectID.random()
        #expect(try ProjectID(hex: id.hex.uppercased()) == id)
    }

    @Test func hexThatIsNotThirtyTwoDigitsIsRefused() {
        let valid = String(repeating: "ab", count: 16)
        for text in ["", String(valid.dropLast()), valid + "00", String(repeating: "zz", count: 16)] {
            do {
                _ = try ProjectID(hex: text)
                Issue.record("'\(text)' was accepted")
            } catch {
                #expect(error.code == .invalidIdentifier)
                #expect(error.message.contains("project id"))
            }
        }
    }
}
