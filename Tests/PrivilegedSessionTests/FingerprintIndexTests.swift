import CryptoVault
@testable import PrivilegedSession
import Testing
import TestSupport

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
            normalizer.forEachWord(in: bytes) { word, _ in words.append(String(decoding: word.utf8, as: UTF8.self)) }
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
            normalizer.forEachWord(in: bytes) { word, _ in words.append(String(decoding: word.utf8, as: UTF8.self)) }
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

    /// Self-made known answer: pins the key derivation, the polynomials and the SipHash finish so
    /// that a change to any of them (which would orphan every stored index) fails here. Computed
    /// independently by testvectors/independent/leak_guard_fingerprints.py; FingerprintVectorTests
    /// checks its whole vector file.
    @Test func fingerprintOfAKnownShingle() throws {
        let hasher = try ShingleHasher(key: key())
        let index = try makeIndex(of: ["One, two; THREE four\nfive six seven eight."])
        #expect(hasher.keyCheck == KnownAnswers.keyCheck)
        #expect(Array("one two three four five six seven eight".utf8).withUnsafeBytes { index.fingerprints(of: $0) } == [KnownAnswers.fingerprint])
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
        #expect(try parseFailure(with(4, 1)) == .unsupportedFingerprintIndex)    // version 1: SipHash of the joined words
        #expect(try parseFailure(with(4, 3)) == .unsupportedFingerprintIndex)
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
/// SipHash-2-4, checked there against the SipHash paper's vectors), from SECURITY.md §11 alone, for the
/// key of 32 bytes 0x42 and the words "one" ... "eight" (fingerprint format version 2).
enum KnownAnswers {
    static let keyCheck: [UInt8] = knownHex("fa168325b397af8f")
    static let fingerprint: UInt64 = 0xf643_3fc4_6720_62bd
    static let serializedIndex: [UInt8] = knownHex("53564650020801fa168325b397af8f00000001f6433fc4672062bd")
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

extension FingerprintIndexTests {
    /// The shingler reads most words in place (ASCII, lowercased by a bit mask, 8 bytes per load) and
    /// the rest through a buffer; both must give what §11.2-11.3 say. Random texts built to hit every
    /// branch (capitals, apostrophes inside and after words, invisible and accented letters, words of
    /// 1 to 70 bytes, ill-formed bytes, text ending mid-word) are fingerprinted both ways: by the index,
    /// and by a plain reference here (scalar by scalar, Horner's rule over all eight words, libsodium's
    /// SipHash over the 16 bytes).
    @Test func fastWordPathsAgreeWithAPlainReference() throws {
        let key = try self.key()
        let index = try FingerprintIndex(key: key)
        var random = SeededRandom(seed: 7)
        let pieces = ["Patient", "SETTLEMENT", "o'clock", "don't", "'quoted'", "Amélie", "naïve", "ＦＵＬＬ", "pa\u{200B}tient",
                      "re\u{00AD}cord", "x", "2024", "abcdefg", "ABCDEFGH", "Straße", "İstanbul", "ﬁle", "\u{FF07}s"]
        for round in 0..<300 {
            var bytes: [UInt8] = []
            for _ in 0..<random.int(0...40) {
                switch random.int(0...9) {
                case 0: bytes += Array(repeating: UInt8(ascii: random.int(0...1) == 0 ? "a" : "Z"), count: random.int(1...70))
                case 1: bytes += [[0xFF], [0xE2, 0x82], [0xC0, 0xAF], [0x27]][random.int(0...3)]
                default: bytes += Array(pieces[random.int(0...(pieces.count - 1))].utf8)
                }
                if random.int(0...3) > 0 { bytes += Array([" ", ", ", "\n", "-", "'", "’"][random.int(0...5)].utf8) }
            }
            let fast = bytes.withUnsafeBytes { index.fingerprints(of: $0) }
            #expect(fast == (try referenceFingerprints(bytes, key: key)), "round \(round): \(bytes)")
        }
    }

    private func referenceFingerprints(_ bytes: [UInt8], key: SecureBytes) throws -> [UInt64] {
        var words: [[UInt8]] = []
        var current = String.UnicodeScalarView()
        var scalarCount = 0
        func finish() {
            if scalarCount > 0 { words.append(WordNormalizer.normalize(Array(String(current).utf8))) }
            current = String.UnicodeScalarView()
            scalarCount = 0
        }
        bytes.withUnsafeBufferPointer { buffer in
            var position = 0
            while position < buffer.count {
                guard let (scalar, length) = UTF8Scalar.decode(buffer, at: position) else {
                    finish()
                    position += 1
                    continue
                }
                switch WordNormalizer.role(of: scalar) {
                case .deleted: break
                case .separator: finish()
                case .word:
                    current.append(scalar)
                    scalarCount += 1
                    if scalarCount == WordNormalizer.maximumWordScalars { finish() }
                }
                position += length
            }
        }
        finish()
        let hasher = try ShingleHasher(key: key)
        let sipKey = try SipHash.Key(try derive("SealedVault leak guard shingle key v2", 16, key))
        return hasher.withShingleFunctions { polynomial, _ in
            func value(_ word: [UInt8], _ a: UInt64) -> UInt64 {
                var value = UInt64(word.count)
                for start in stride(from: 0, to: word.count, by: 7) {
                    var chunk: UInt64 = 0
                    for (offset, byte) in word[start..<min(start + 7, word.count)].enumerated() { chunk |= UInt64(byte) << UInt64(8 * offset) }
                    value = Mersenne61.add(Mersenne61.multiply(value, a), chunk)
                }
                return value
            }
            guard words.count >= 8 else { return [] }
            return (0...(words.count - 8)).map { first in
                var sums: (UInt64, UInt64) = (0, 0)
                for word in words[first..<(first + 8)] {
                    sums.0 = Mersenne61.add(Mersenne61.multiply(sums.0, polynomial.b1), value(word, polynomial.a1))
                    sums.1 = Mersenne61.add(Mersenne61.multiply(sums.1, polynomial.b2), value(word, polynomial.a2))
                }
                let message = withUnsafeBytes(of: sums.0.littleEndian, Array.init) + withUnsafeBytes(of: sums.1.littleEndian, Array.init)
                return SipHash.hash(message, key: sipKey)
            }
        }
    }

    private func derive(_ label: String, _ count: Int, _ key: SecureBytes) throws -> SecureBytes {
        try SecureBytes(copying: try BLAKE2b.hash(Array(label.utf8), outputCount: count, key: key))
    }
}

extension FingerprintIndexTests {
    /// A large batch of queries is answered in the order of the table (sorted by place), a small one
    /// as given; either way each answer must land at its own query's index. Half the queries are
    /// present (zero among them, which the table keeps apart), half absent, shuffled.
    @Test(arguments: [100, FingerprintTable.sortedBatchMinimum, 3 * FingerprintTable.sortedBatchMinimum + 5])
    func batchedLookupsAnswerEachQueryInPlace(count: Int) {
        var random = SeededRandom(seed: UInt64(count))
        var table = FingerprintTable()
        var present = Set<UInt64>()
        for index in 0..<count {
            let value = index == 0 ? 0 : random.next()
            table.insert(value)
            present.insert(value)
        }
        var queries = Array(present) + (0..<count).map { _ in random.next() }
        for index in stride(from: queries.count - 1, to: 0, by: -1) { queries.swapAt(index, random.int(0...index)) }
        var answers = [Bool](repeating: false, count: queries.count)
        queries.withUnsafeBufferPointer { values in
            answers.withUnsafeMutableBufferPointer { table.containment(of: values, into: $0.baseAddress!) }
        }
        #expect(answers == queries.map(present.contains))
        #expect(answers.filter { $0 }.count == count)
    }
}
