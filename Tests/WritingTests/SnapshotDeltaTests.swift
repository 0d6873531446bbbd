import Testing
import TestSupport
@testable import Writing

@Suite struct SnapshotDeltaTests {
    @Test func typingInALongTextIsADeltaOfTheTypingNotOfTheText() throws {
        let base = Array(String(repeating: "A line of a long paper, with words. ", count: 2_000).utf8)
        var target = base
        target.insert(contentsOf: Array("new words typed here ".utf8), at: 40_000)
        let delta = try SnapshotDelta.between(base, target)
        #expect(try delta.apply(to: base) == target)
        #expect(delta.serialized().count < 100)
        #expect(try SnapshotDelta(parsing: delta.serialized()) == delta)
    }

    @Test func randomisedEditsRebuildTheTargetByteForByteAndRoundTripTheirEncoding() throws {
        var generator = SeededGenerator(seed: 0x5EED_0D17)
        for _ in 0..<2_000 {
            let base = Array(RandomText.text(&generator, maximumPieces: 80).utf8)
            let target = Bool.random(using: &generator)
                ? Array(RandomText.edited(String(decoding: base, as: UTF8.self), &generator).utf8)
                : Array(RandomText.text(&generator).utf8)
            let delta = try SnapshotDelta.between(base, target)
            #expect(try delta.apply(to: base) == target)
            #expect(try SnapshotDelta(parsing: delta.serialized()) == delta)
        }
    }

    @Test(arguments: [
        [UInt8]([2]),                                   // another version
        [1, 3, 0, 0, 0, 1],                             // an unknown operation
        [1, 1, 0, 0, 0, 0, 0, 0, 0, 0],                 // a copy of no bytes
        [1, 2, 0, 0, 0, 0],                             // an insert of no bytes
        [1, 2, 0, 0, 0, 1, 65, 2, 0, 0, 0, 1, 66],      // two inserts in a row
        [1, 1, 0, 0, 0, 0, 0, 0, 0, 2, 1, 0, 0, 0, 2, 0, 0, 0, 1], // a copy continuing the one before
        [1, 2, 0, 0, 0, 5, 65],                         // a length past the end
    ])
    func aDeltaNotInCanonicalFormIsRefusedAsDamage(_ bytes: [UInt8]) {
        #expect(throws: WritingError(.damagedRecord, "")) { try SnapshotDelta(parsing: bytes) }
    }

    @Test func aCopyOutsideTheBaseIsRefused() throws {
        let delta = try SnapshotDelta(parsing: [1, 1, 0, 0, 0, 2, 0, 0, 0, 5])
        #expect(throws: WritingError(.diffDoesNotApply, "")) { try delta.apply(to: Array("short".utf8)) }
        #expect(try delta.apply(to: Array("a longer base".utf8)) == Array("longe".utf8))
    }
}

/// The known answers of testvectors/writing/snapshot-delta.json, which the independent reader
/// (testvectors/independent/snapshot_delta.py) also checks.
@Suite struct SnapshotDeltaVectorTests {
    struct Vectors: Decodable {
        struct Valid: Decodable { let name: String; let base, delta, target: HexBytes }
        struct Invalid: Decodable { let name: String; let base, delta: HexBytes; let error: String }
        let valid: [Valid]
        let invalid: [Invalid]
    }

    static let vectors: Vectors = try! PackageFiles.decode("testvectors/writing/snapshot-delta.json")

    @Test func everyValidCaseParsesReEncodesAndApplies() throws {
        #expect(Self.vectors.valid.count == 5)
        for vector in Self.vectors.valid {
            let delta = try SnapshotDelta(parsing: vector.delta.bytes)
            #expect(delta.serialized() == vector.delta.bytes, "\(vector.name)")
            #expect(try delta.apply(to: vector.base.bytes) == vector.target.bytes, "\(vector.name)")
        }
    }

    @Test func everyInvalidCaseIsRefusedForItsReason() throws {
        #expect(Self.vectors.invalid.count == 8)
        for vector in Self.vectors.invalid {
            let code: WritingErrorCode? = {
                do { _ = try SnapshotDelta(parsing: vector.delta.bytes).apply(to: vector.base.bytes); return nil }
                catch let error as WritingError { return error.code } catch { return nil }
            }()
            #expect(code == (vector.error == "damaged" ? .damagedRecord : .diffDoesNotApply), "\(vector.name)")
        }
    }
}
