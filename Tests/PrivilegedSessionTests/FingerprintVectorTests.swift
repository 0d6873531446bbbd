import CryptoVault
import Foundation
@testable import PrivilegedSession
import Testing
import TestSupport

/// Checks the fingerprint code against testvectors/leakguard/fingerprints.json, written by the
/// independent implementation testvectors/independent/leak_guard_fingerprints.py from SECURITY.md
/// §11.2-11.4 alone: for every case (three keys, five texts), the normalised words, the fingerprint
/// of every shingle in order, and the serialized index must match byte for byte. A change to the
/// normalisation, the key derivation, the polynomials, the SipHash finish or the index format fails
/// here, since it would orphan every fingerprint a vault has stored.
@Suite("Known-answer vectors for leak guard fingerprints (testvectors/leakguard)")
struct FingerprintVectorTests {
    struct File: Decodable {
        let spec: String
        let keyChecks: [String: String]
        let cases: [Case]

        enum CodingKeys: String, CodingKey {
            case spec, cases
            case keyChecks = "key_checks"
        }
    }

    struct Case: Decodable {
        let key: String
        let text: String
        let words: [String]
        let fingerprints: [String]
        let index: String
    }

    static func load() throws -> File {
        try PackageFiles.decode("testvectors/leakguard/fingerprints.json")
    }

    @Test func everyCaseMatchesTheIndependentImplementation() throws {
        let file = try Self.load()
        #expect(file.spec.hasPrefix("SECURITY.md §11.2-11.4 (fingerprint format version 2)"))
        #expect(file.cases.count == 15)
        #expect(file.keyChecks.count == 3)
        var shingles = 0
        for (number, vector) in file.cases.enumerated() {
            let key = try SecureBytes(copying: (try TestSupport.hex(vector.key)))
            var index = try FingerprintIndex(key: key)
            let text = Array(vector.text.utf8)
            #expect(Self.words(of: text) == vector.words, "case \(number): words")
            let fingerprints = text.withUnsafeBytes { index.fingerprints(of: $0) }.map { Self.hex($0) }
            #expect(fingerprints == vector.fingerprints, "case \(number): fingerprints")
            try index.add(vector.text)
            #expect(index.serialized() == (try TestSupport.hex(vector.index)), "case \(number): serialized index")
            #expect(try ShingleHasher(key: key).keyCheck == (try TestSupport.hex(file.keyChecks[vector.key] ?? "")), "case \(number): key check")
            shingles += vector.fingerprints.count
        }
        // Five texts under three keys: 1 + 1 + 12 + 33 + 0 shingles each.
        #expect(shingles == 3 * 47)
    }

    static func words(of text: [UInt8]) -> [String] {
        var normalizer = WordNormalizer()
        var words: [String] = []
        text.withUnsafeBufferPointer { bytes in
            normalizer.forEachWord(in: bytes) { word, _ in words.append(String(decoding: word.utf8, as: UTF8.self)) }
        }
        return words
    }

    static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
