/// The words that announce an identifier whose value alone would be ambiguous: a medical record
/// number, a date of birth, a Social Security number written without dashes.
///
/// A label is matched case-insensitively at the start of a word and must end where a word does
/// ("DOB" matches, "Dobson" does not); a space in a phrase stands for one to three whitespace bytes,
/// line breaks included ("date of\nbirth"). After the label come at most a few filler bytes and words
/// (":", "#", "no.", "number", "is", "on", ...) and then the value, which the label's detector checks.
enum Label: CaseIterable {
    case socialSecurityNumber, medicalRecordNumber, dateOfBirth

    var phrases: [String] {
        switch self {
        case .socialSecurityNumber: ["ssn", "ss#", "social security", "soc sec", "soc. sec."]
        case .medicalRecordNumber: ["mrn", "medical record", "med rec", "med. rec.", "patient id", "hospital number"]
        case .dateOfBirth: ["dob", "d.o.b.", "d.o.b", "date of birth", "birth date", "birthdate", "born"]
        }
    }

    /// The phrase tables, built once. The scanner keeps a copy for the length of a scan, so that the
    /// lookup made at every word does not go through the lazily initialised global each time.
    struct Phrases: Sendable {
        static let shared = Phrases()

        /// Each phrase once, longest first so that "d.o.b." wins over "d.o.b", with its label.
        private let table: [(phrase: [UInt8], label: Label)]
        /// For each pair of first two bytes (lowercased), whether some phrase starts with it: most
        /// words start with no such pair and cost one lookup. Indexed by first byte * 128 + second.
        private let openingPairs: [Bool]
        /// The phrases by first letter ("a" = 0), longest first, so a word is compared with few of them.
        private let tableByFirstLetter: [[(phrase: [UInt8], label: Label)]]

        private init() {
            let table: [(phrase: [UInt8], label: Label)] = Label.allCases.flatMap { label in label.phrases.map { (Array($0.utf8), label) } }.sorted { $0.0.count > $1.0.count }
            var pairs = [Bool](repeating: false, count: 128 * 128)
            for (phrase, _) in table { pairs[Int(phrase[0]) * 128 + Int(phrase[1])] = true }
            self.table = table
            openingPairs = pairs
            tableByFirstLetter = (0..<26).map { letter in table.filter { Int($0.phrase[0]) - 0x61 == letter } }
        }

        /// The label that starts at `start` (the first letter of a word) and the byte after it.
        @inline(__always)
        func match(_ bytes: UnsafeBufferPointer<UInt8>, at start: Int) -> (label: Label, end: Int)? {
            guard start + 1 < bytes.count, bytes[start + 1] < 0x80 else { return nil }
            let first = ASCIIBytes.lowercased(bytes[start]), second = ASCIIBytes.lowercased(bytes[start + 1])
            guard openingPairs[Int(first) * 128 + Int(second)] else { return nil }
            return matchPhrases(bytes, at: start, first: first)
        }

        private func matchPhrases(_ bytes: UnsafeBufferPointer<UInt8>, at start: Int, first: UInt8) -> (label: Label, end: Int)? {
            for (phrase, label) in tableByFirstLetter[Int(first) - 0x61] {
                if let end = Label.matchPhrase(phrase, bytes, at: start), !ASCIIBytes.isLetter(end < bytes.count ? bytes[end] : 0) {
                    return (label, end)
                }
            }
            return nil
        }
    }

    /// Filler words that may stand between a label and its value.
    private static let fillers: [[UInt8]] = ["no", "nr", "num", "number", "is", "was", "on", "of", "id"].map { Array($0.utf8) }
    /// Filler bytes; together with filler words at most `maximumGap` bytes are skipped.
    static let maximumGap = 24

    private static func matchPhrase(_ phrase: [UInt8], _ bytes: UnsafeBufferPointer<UInt8>, at start: Int) -> Int? {
        var position = start
        for expected in phrase {
            if expected == UInt8(ascii: " ") {
                let spaceStart = position
                while position < bytes.count, position - spaceStart < 3, ASCIIBytes.isWhitespace(bytes[position]) { position += 1 }
                guard position > spaceStart else { return nil }
            } else {
                guard position < bytes.count, ASCIIBytes.lowercased(bytes[position]) == expected else { return nil }
                position += 1
            }
        }
        return position
    }

    /// Where the value after a label ending at `end` starts: past filler bytes and filler words.
    static func valueStart(_ bytes: UnsafeBufferPointer<UInt8>, after end: Int) -> Int? {
        var position = end
        while position < bytes.count, position - end <= maximumGap {
            let byte = bytes[position]
            if isFillerByte(byte) {
                position += 1
            } else if let next = fillerWordEnd(bytes, at: position) {
                position = next
            } else {
                return ASCIIBytes.isAlphanumeric(byte) ? position : nil
            }
        }
        return nil
    }

    private static func isFillerByte(_ byte: UInt8) -> Bool {
        ASCIIBytes.isWhitespace(byte) || byte == UInt8(ascii: ":") || byte == UInt8(ascii: "#") || byte == UInt8(ascii: ".")
            || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "=") || byte == UInt8(ascii: "(") || byte == UInt8(ascii: ",")
    }

    private static func fillerWordEnd(_ bytes: UnsafeBufferPointer<UInt8>, at start: Int) -> Int? {
        for word in fillers {
            guard let end = matchPhrase(word, bytes, at: start) else { continue }
            if end == bytes.count || !ASCIIBytes.isAlphanumeric(bytes[end]) { return end }
        }
        return nil
    }
}
