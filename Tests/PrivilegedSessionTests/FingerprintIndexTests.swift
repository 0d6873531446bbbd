import CryptoVault
@testable import PrivilegedSession
import Testing

/// Fingerprints of privileged text: what counts as the same words, that a quote of eight words is
/// caught through edits and a shorter one is not, that the key matters, and the strict index format.
struct FingerprintIndexTests {
    static let note = """
        Ms. Alvarez described the night of the accident in detail: she had left the pharmacy at nine,
        crossed Harbour Street without looking, and remembers only the headlights and the cold pavement.
        Counsel's advice was that the statement should not be shared with the insurer's adjusters.
        """

    private func key(_ byte: UInt8 = 0x42) throws -> SecureBytes {
        try SecureBytes(copying: [UInt8](repeating: byte, count: 32))
    }

    private func makeIndex(of documents: [String], key byte: UInt8 = 0x42) throws -> FingerprintIndex {
        var index = try FingerprintIndex(key: key(byte))
        for document in documents { try index.add(document) }
        return index
    }

    private func quotes(_ payload: String, in index: FingerprintIndex) -> [String] {
        let bytes = Array(payload.utf8)
        return LeakGuard(fingerprints: index).scan(payload).filter { $0.kind == .privilegedQuote }
            .map { String(decoding: bytes[$0.range], as: UTF8.self) }
    }

    // MARK: Normalisation

    private func words(_ text: String) -> [String] {
        var normalizer = WordNormalizer()
        var words: [String] = []
        Array(text.utf8).withUnsafeBufferPointer { bytes in
            normalizer.forEachWord(in: bytes) { word, _ in words.append(String(decoding: word, as: UTF8.self)) }
        }
        return words
    }

    @Test func wordsAreLowercasedAndSplitOnPunctuationAndWhitespace() {
        #expect(words("The  Patient's\nfollow-up, (2024)!") == ["the", "patients", "follow", "up", "2024"])
    }

    @Test func presentationFormsNormaliseToTheSameWords() {
        // Full-width letters, a ligature, a typographic apostrophe, a zero-width space inside a word,
        // a soft hyphen, and a decomposed accent all give the plain words.
        #expect(words("ＣＯＵＮＳＥＬ’S ad\u{FB01}ce pa\u{200B}tient re\u{00AD}cord Ame\u{0301}lie") == ["counsels", "adfice", "patient", "record", "amélie"])
        #expect(words("AMÉLIE") == words("amélie"))
        #expect(words("İstanbul") == ["i\u{0307}stanbul"])
        #expect(words("ΣΟΦΙΑ") == ["σοφια"])
    }

    @Test func illFormedBytesSeparateWords() {
        var normalizer = WordNormalizer()
        var words: [String] = []
        let bytes: [UInt8] = Array("ab".utf8) + [0xFF] + Array("cd".utf8) + [0xE2, 0x82] + Array("ef".utf8) + [0xED, 0xA0, 0x80] + Array("g".utf8)
        bytes.withUnsafeBufferPointer { bytes in
            normalizer.forEachWord(in: bytes) { word, _ in words.append(String(decoding: word, as: UTF8.self)) }
        }
        #expect(words == ["ab", "cd", "ef", "g"])
    }

    @Test func longRunsAreCutIntoWordsOfSixtyFourScalars() {
        let run = String(repeating: "a", count: 150)
        #expect(words(run).map(\.count) == [64, 64, 22])
        #expect(words(String(repeating: "é", count: 70)).map { $0.unicodeScalars.count } == [64, 6])
    }

    // MARK: Quotes

    @Test func aVerbatimQuoteOfEightWordsIsCaughtWithItsRange() throws {
        let index = try makeIndex(of: [Self.note])
        let payload = "Forwarding: crossed Harbour Street without looking, and remembers only the headlights. Thanks"
        #expect(quotes(payload, in: index) == ["crossed Harbour Street without looking, and remembers only the headlights"])
    }

    @Test func exactlyEightWordsAreEnoughAndSevenAreNot() throws {
        let index = try makeIndex(of: [Self.note])
        #expect(quotes("x crossed Harbour Street without looking and remembers only y", in: index)
            == ["crossed Harbour Street without looking and remembers only"])
        #expect(quotes("x crossed Harbour Street without looking and remembers y", in: index) == [])
    }

    @Test(arguments: [
        "COUNSEL'S ADVICE WAS THAT THE STATEMENT SHOULD NOT BE SHARED",
        "counsels advice was that the statement should not be shared",
        "Counsel’s advice was that\nthe statement should\r\nnot be shared",
        "counsel's advice -- was that, the statement; should not (be) shared!",
        "Ｃｏｕｎｓｅｌ's advice was that the statement should not be shared",
        "counsel's advice was that the state\u{200B}ment should not be shared",
    ])
    func aLightlyEditedQuoteIsCaught(payload: String) throws {
        let index = try makeIndex(of: [Self.note])
        #expect(quotes(payload, in: index).count == 1)
    }

    @Test func aQuoteWithAWordChangedEveryFewWordsIsNotCaught() throws {
        let index = try makeIndex(of: [Self.note])
        #expect(quotes("counsel's advice was that this statement should not go to the insurer's adjusters", in: index) == [])
    }

    @Test func overlappingQuotedShinglesBecomeOneQuote() throws {
        let index = try makeIndex(of: [Self.note])
        let payload = "she had left the pharmacy at nine, crossed Harbour Street without looking -- end"
        #expect(quotes(payload, in: index) == ["she had left the pharmacy at nine, crossed Harbour Street without looking"])
    }

    @Test func anotherKeyFindsNothing() throws {
        let index = try makeIndex(of: [Self.note], key: 0x43)
        let other = try makeIndex(of: [Self.note], key: 0x42)
        #expect(index.count == other.count)
        #expect(index.serialized().suffix(8 * index.count) != other.serialized().suffix(8 * other.count))
    }

    @Test func documentsShorterThanAShingleAddNothing() throws {
        #expect(try makeIndex(of: ["only seven words are in this note"]).count == 0)
        #expect(try makeIndex(of: ["exactly eight words are in this short note"]).count == 1)
    }

    @Test(arguments: [0, 15, 65])
    func keysOutsideSixteenToSixtyFourBytesAreRefused(size: Int) throws {
        let key = try SecureBytes(count: size)
        #expect(throws: PrivilegedSessionError(.invalidFingerprintKey, "")) { try FingerprintIndex(key: key) }
    }

    /// Self-made known answer: pins the key derivation, the shingle encoding and SipHash so that a
    /// change to any of them (which would orphan every stored index) fails here. Computed independently
    /// with Python (hashlib.blake2b keyed, and a reference SipHash-2-4) over the same bytes.
    @Test func fingerprintOfAKnownShingle() throws {
        let hasher = try ShingleHasher(key: key())
        let shingle = Array("one\u{0}two\u{0}three\u{0}four\u{0}five\u{0}six\u{0}seven\u{0}eight".utf8)
        #expect(hasher.keyCheck == KnownAnswers.keyCheck)
        #expect(shingle.withUnsafeBytes { hasher.fingerprint($0) } == KnownAnswers.fingerprint)
        let index = try makeIndex(of: ["One, two; THREE four\nfive six seven eight."])
        #expect(index.serialized() == KnownAnswers.serializedIndex)
    }

    // MARK: Serialization

    @Test func serializationRoundTripsAndIsCanonical() throws {
        let index = try makeIndex(of: [Self.note, "a second privileged document with enough words to make several shingles of its own"])
        let bytes = index.serialized()
        #expect(bytes.count == FingerprintIndex.headerSize + 8 * index.count)
        let parsed = try FingerprintIndex(parsing: bytes, key: key())
        #expect(parsed.count == index.count)
        #expect(parsed.serialized() == bytes)
        #expect(quotes("crossed Harbour Street without looking, and remembers only the headlights", in: parsed).count == 1)
    }

    @Test func theEmptyIndexIsItsHeader() throws {
        let bytes = try makeIndex(of: []).serialized()
        #expect(bytes.count == FingerprintIndex.headerSize)
        #expect(try FingerprintIndex(parsing: bytes, key: key()).count == 0)
    }

    private func parseFailure(_ bytes: [UInt8], key byte: UInt8 = 0x42) throws -> PrivilegedSessionErrorCode? {
        let key = try key(byte)
        do {
            _ = try FingerprintIndex(parsing: bytes, key: key)
            return nil
        } catch {
            return error.code
        }
    }

    @Test func malformedIndexesAreRefusedForTheirReason() throws {
        let valid = try makeIndex(of: [Self.note]).serialized()
        let count = (valid.count - FingerprintIndex.headerSize) / 8
        #expect(count > 2)
        func with(_ offset: Int, _ value: UInt8) -> [UInt8] {
            var bytes = valid
            bytes[offset] = value
            return bytes
        }
        func fingerprints(_ values: [UInt64]) -> [UInt8] {
            var bytes = Array(valid.prefix(15)) + withUnsafeBytes(of: UInt32(values.count).bigEndian, Array.init)
            for value in values { bytes += withUnsafeBytes(of: value.bigEndian, Array.init) }
            return bytes
        }
        #expect(try parseFailure([]) == .notAFingerprintIndex)
        #expect(try parseFailure(Array("SVF".utf8)) == .notAFingerprintIndex)
        #expect(try parseFailure(with(0, UInt8(ascii: "X"))) == .notAFingerprintIndex)
        #expect(try parseFailure(Array(valid.prefix(18))) == .truncatedFingerprintIndex)
        #expect(try parseFailure(with(4, 2)) == .unsupportedFingerprintIndex)
        #expect(try parseFailure(with(5, 7)) == .unsupportedFingerprintIndex)
        #expect(try parseFailure(with(6, 2)) == .unsupportedFingerprintIndex)
        #expect(try parseFailure(with(7, valid[7] ^ 1)) == .fingerprintKeyMismatch)
        #expect(try parseFailure(valid, key: 0x43) == .fingerprintKeyMismatch)
        #expect(try parseFailure(Array(valid.dropLast())) == .truncatedFingerprintIndex)
        #expect(try parseFailure(valid + [0]) == .trailingData)
        #expect(try parseFailure(with(18, valid[18] + 1)) == .truncatedFingerprintIndex)
        #expect(try parseFailure(with(18, valid[18] - 1)) == .trailingData)
        #expect(try parseFailure(with(15, 0x04)) == .tooManyFingerprints)       // 2^26 + n: over the bound
        #expect(try parseFailure(fingerprints([1, 3, 2])) == .fingerprintsOutOfOrder)
        #expect(try parseFailure(fingerprints([1, 2, 2])) == .fingerprintsOutOfOrder)
        #expect(try parseFailure(fingerprints([0, 1, UInt64.max])) == nil)
    }

    @Test func clusteredFingerprintsFromAHostileFileLoadQuickly() throws {
        // 200,000 consecutive values: with slots taken from the value's top bits alone every insert
        // would walk the whole cluster. The table's random multiplier spreads them.
        let header = Array(try makeIndex(of: []).serialized().prefix(15))
        var bytes = header + withUnsafeBytes(of: UInt32(200_000).bigEndian, Array.init)
        for value in UInt64(1)...200_000 { bytes += withUnsafeBytes(of: value.bigEndian, Array.init) }
        let start = ContinuousClock.now
        #expect(try FingerprintIndex(parsing: bytes, key: key()).count == 200_000)
        #expect(ContinuousClock.now - start < .seconds(20))
    }
}

/// Computed by testvectors/independent/leak_guard_fingerprints.py (hashlib's keyed BLAKE2b and its own
/// SipHash-2-4, checked there against the SipHash paper's vector), from SECURITY.md §11 alone, for the
/// key of 32 bytes 0x42 and the words "one" ... "eight".
enum KnownAnswers {
    static let keyCheck: [UInt8] = hex("2ae2befc5206f222")
    static let fingerprint: UInt64 = 0x0bf4_155a_282f_57d0
    static let serializedIndex: [UInt8] = hex("535646500108012ae2befc5206f222000000010bf4155a282f57d0")

    static func hex(_ text: String) -> [UInt8] {
        let digits = Array(text.utf8).map { $0 <= 0x39 ? $0 - 0x30 : $0 - 0x57 }
        return stride(from: 0, to: digits.count, by: 2).map { digits[$0] << 4 | digits[$0 + 1] }
    }
}

extension FingerprintIndexTests {
    /// A long document moves its words through the shingle arena many times (64 KiB, compacted when
    /// full); every shingle, the last ones included, must still be found, as one quote.
    @Test func aLongDocumentIsFingerprintedAndQuotedWhole() throws {
        var random = SeededRandom(seed: 99)
        let document = (0..<30_000).map { _ in LeakCorpus.vocabulary[random.int(0...(LeakCorpus.vocabulary.count - 1))] + "\u{00E9}" }
            .joined(separator: " ")
        var index = try FingerprintIndex(key: SecureBytes(copying: [UInt8](repeating: 1, count: 16)))
        try index.add(document)
        #expect(index.count > 29_000)
        let hits = LeakGuard(fingerprints: index).scan(document)
        #expect(hits.map(\.range) == [0..<document.utf8.count])
    }
}
