@testable import PrivilegedSession

/// A labelled corpus for the leak guard, generated from a fixed seed: synthetic clinical and legal
/// notes with planted identifiers (every one valid by construction, in the forms people write),
/// quotes of fingerprinted documents (verbatim and lightly edited: case, punctuation, line breaks,
/// typographic apostrophes), and clean notes full of near misses (invalid cards, order and account
/// numbers, ordinary dates, numbers shaped like phones or SSNs that are neither).
struct LeakCorpus {
    struct Planted: Equatable {
        let kind: LeakKind
        let range: Range<Int>
    }

    struct Sample {
        let bytes: [UInt8]
        let planted: [Planted]
        var isClean: Bool { planted.isEmpty }
    }

    private(set) var documents: [String] = []
    private var documentWords: [[String]] = []
    private(set) var samples: [Sample] = []
    private var random: SeededRandom

    init(seed: UInt64, documents documentCount: Int, identifierNotes: Int, quoteNotes: Int, cleanNotes: Int) {
        random = SeededRandom(seed: seed)
        for _ in 0..<documentCount { addDocument() }
        for _ in 0..<identifierNotes { samples.append(identifierNote()) }
        for _ in 0..<quoteNotes { samples.append(quoteNote()) }
        for _ in 0..<cleanNotes { samples.append(cleanNote()) }
    }

    // MARK: Documents and notes

    private mutating func addDocument() {
        var words: [String] = []
        for _ in 0..<random.int(6...14) { words += sentenceWords() }
        var builder = SampleBuilder()
        render(words, into: &builder, edited: false)
        documents.append(String(decoding: builder.bytes, as: UTF8.self))
        documentWords.append(words)
    }

    private mutating func identifierNote() -> Sample {
        var builder = SampleBuilder()
        for _ in 0..<random.int(3...6) {
            filler(into: &builder)
            plantIdentifier(into: &builder)
            if random.int(0...2) == 0 { builder.append(" " + nearMiss()) }
        }
        filler(into: &builder)
        return builder.sample
    }

    private mutating func quoteNote() -> Sample {
        var builder = SampleBuilder()
        filler(into: &builder)
        let words = documentWords[random.int(0...(documentWords.count - 1))]
        let length = random.int(8...24)
        let start = random.int(0...(words.count - length))
        builder.append(" ")
        let quoted = render(Array(words[start..<(start + length)]), into: &builder, edited: random.int(0...2) != 0, quote: true)
        builder.plant(.privilegedQuote, quoted)
        builder.append(" ")
        filler(into: &builder)
        return builder.sample
    }

    private mutating func cleanNote() -> Sample {
        var builder = SampleBuilder()
        for _ in 0..<random.int(3...6) {
            filler(into: &builder)
            builder.append(" " + nearMiss() + ".")
        }
        filler(into: &builder)
        return builder.sample
    }

    // MARK: Text

    static let vocabulary: [String] = """
        patient client counsel reports describes denies notes stated mother father sister employer court hearing
        deposition motion filed records reviewed medication dosage pain sleep anxiety mood therapy session plan
        follow referral discharge admission symptoms history allergy insurer claim settlement liability contract
        witness statement exhibit privileged confidential draft memo brief appeal judge ruling objection evidence
        custody agreement tenant landlord lease notice breach damages injury accident vehicle intersection night
        morning evening weekly daily increased decreased stable improved worsened chronic acute mild severe
        recommended advised declined requested discussed agreed considered scheduled cancelled returned arrived
        the a an of to in on at with for from by about after before during without under over between
        and but or because although while when where which that this these those his her their its our
        was were is are has had have will would should could may might must not also again still only
        blood pressure heart rate weight fever cough headache nausea fatigue dizziness fracture wound infection
        office clinic hospital pharmacy street harbour kitchen school work home car phone letter email report
        """.split(whereSeparator: { $0 == " " || $0 == "\n" }).map(String.init)

    private mutating func sentenceWords() -> [String] {
        (0..<random.int(6...14)).map { _ in Self.vocabulary[random.int(0...(Self.vocabulary.count - 1))] }
    }

    private mutating func filler(into builder: inout SampleBuilder) {
        for _ in 0..<random.int(1...3) {
            builder.append(" ")
            render(sentenceWords(), into: &builder, edited: false)
        }
    }

    /// Words as a sentence: capitalised, a comma now and then, a full stop. Edited renderings change
    /// case, punctuation and spacing the way a person re-typing or pasting a passage would. Returns the
    /// bytes from the first letter of the first word to the last letter of the last.
    @discardableResult
    private mutating func render(_ words: [String], into builder: inout SampleBuilder, edited: Bool, quote: Bool = false) -> Range<Int> {
        var first = builder.bytes.count
        for (index, word) in words.enumerated() {
            if index > 0 { builder.append(edited ? editedGap() : (random.int(0...7) == 0 ? ", " : " ")) }
            var (before, text, after) = ("", index == 0 && !quote ? word.prefix(1).uppercased() + word.dropFirst() : word, "")
            if edited { (before, text, after) = editedWord(text) }
            builder.append(before)
            if index == 0 { first = builder.bytes.count }
            builder.appendWord(text)
            builder.append(after)
        }
        if !quote { builder.append(".") }
        return first..<builder.lastWordEnd
    }

    private mutating func editedGap() -> String {
        ["\n", "\r\n", "  ", ", ", "; ", " -- ", ". ", " (", ") ", " \"", "\" ", ": ", "\n\n", " "][random.int(0...13)]
    }

    /// A word with its case changed or quote marks around it; the letters stay the same.
    private mutating func editedWord(_ word: String) -> (String, String, String) {
        switch random.int(0...9) {
        case 0: ("", word.uppercased(), "")
        case 1: ("", word.prefix(1).uppercased() + word.dropFirst(), "")
        case 2: ("'", word, "'")
        case 3: ("“", word, "”")
        default: ("", word, "")
        }
    }

    // MARK: Planted identifiers

    private mutating func plantIdentifier(into builder: inout SampleBuilder) {
        let kinds: [LeakKind] = [.socialSecurityNumber, .nationalProviderIdentifier, .medicalRecordNumber, .phone, .email,
                                 .dateOfBirth, .paymentCard, .iban]
        let kind = kinds[random.int(0...(kinds.count - 1))]
        let (label, value) = identifier(kind)
        builder.append(pick([" ", "\n", " (", "\n- ", "\t", "; "]) + label)
        builder.plant(kind, value: value)
        builder.append(pick([".", ",", ";", ")", "", "\n", ":", "!", "?"]))
    }

    /// A label or lead-in the way notes write it, and a valid value of `kind`.
    private mutating func identifier(_ kind: LeakKind) -> (String, String) {
        switch kind {
        case .socialSecurityNumber: ssn()
        case .nationalProviderIdentifier: (pick(["NPI ", "provider NPI: ", "referring provider ", "NPI# "]), npi())
        case .medicalRecordNumber: (pick(["MRN: ", "MRN ", "MRN #", "Medical record no. ", "Medical Record Number: ", "med rec # ", "Patient ID: "]), mrn())
        case .phone: (pick(["call ", "cell ", "tel: ", "phone ", "reachable at ", "(home) "]), phone())
        case .email: (pick(["email ", "mail: ", "write to ", "contact "]), email())
        case .dateOfBirth: (pick(["DOB: ", "DOB ", "D.O.B. ", "Date of birth: ", "date of birth ", "born on ", "Birthdate: ", "born "]), birthDate())
        case .paymentCard: (pick(["card ", "paid with card ", "Visa ", "card number: ", "cc "]), card())
        case .iban: (pick(["IBAN ", "IBAN: ", "account ", "wire to "]), iban())
        case .privilegedQuote: ("", "")
        }
    }

    private mutating func ssn() -> (String, String) {
        var area = random.int(1...899)
        if area == 666 { area = 665 }
        let group = random.int(1...99), serial = random.int(1...9999)
        switch random.int(0...3) {
        case 0: return ("SSN: ", digits(area, 3) + digits(group, 2) + digits(serial, 4))
        case 1: return ("Social Security No. ", digits(area, 3) + " " + digits(group, 2) + " " + digits(serial, 4))
        default: return (pick(["SSN ", "ss# ", "social security number ", "id "]), digits(area, 3) + "-" + digits(group, 2) + "-" + digits(serial, 4))
        }
    }

    private mutating func npi() -> String {
        let body = String(random.int(1...2)) + (0..<8).map { _ in String(random.int(0...9)) }.joined()
        let check = (0...9).first { Luhn.isValid("80840" + body + String($0)) }!
        return body + String(check)
    }

    private mutating func mrn() -> String {
        switch random.int(0...2) {
        case 0: (0..<random.int(6...10)).map { _ in String(random.int(0...9)) }.joined()
        case 1: pick(["A", "H", "K", "MR"]) + digits(random.int(0...9_999_999), 7)
        default: digits(random.int(0...99), 2) + "-" + digits(random.int(0...99_999), 5)
        }
    }

    private mutating func northAmerican() -> (String, String, String) {
        func nxx(_ random: inout SeededRandom) -> String {
            while true {
                let value = random.int(200...999)
                if value % 100 != 11 { return String(value) }
            }
        }
        return (nxx(&random), nxx(&random), digits(random.int(0...9999), 4))
    }

    private mutating func phone() -> String {
        let (area, exchange, line) = northAmerican()
        let uk = digits(random.int(0...999), 3)
        switch random.int(0...9) {
        case 0: return "(\(area)) \(exchange)-\(line)"
        case 1: return "\(area)-\(exchange)-\(line)"
        case 2: return "\(area).\(exchange).\(line)"
        case 3: return "1-\(area)-\(exchange)-\(line)"
        case 4: return "+1 \(area) \(exchange) \(line)"
        case 5: return "+1\(area)\(exchange)\(line)"
        case 6: return "020 7946 0" + uk
        case 7: return pick(["0161 496 0", "0117 496 0", "0131 496 0"]) + uk
        case 8: return pick(["07700 900", "01632 960"]) + uk
        default: return pick(["+44 20 7946 0", "+44 161 496 0", "+33 1 09 75 8"]) + uk
        }
    }

    private mutating func email() -> String {
        let first = pick(["jane", "omar", "li", "maria", "k", "t.nguyen", "dr_ames", "office"])
        let last = pick(["doe", "haddad", "wei", "alvarez", "smith42", "records", "intake"])
        return first + pick([".", "_", "", "+"]) + last + "@" + pick(["clinic.example.org", "mail.com", "lawfirm.co.uk", "hospital.nhs.uk", "x.io"])
    }

    private mutating func birthDate() -> String {
        let year = random.int(1920...2015), month = random.int(1...12)
        let day = random.int(1...CalendarDate.daysIn(month: month, year: year))
        let months = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"]
        switch random.int(0...6) {
        case 0: return "\(digits(month, 2))/\(digits(day, 2))/\(year)"
        case 1: return "\(month)/\(day)/\(digits(year % 100, 2))"
        case 2: return "\(year)-\(digits(month, 2))-\(digits(day, 2))"
        case 3: return "\(digits(day, 2)).\(digits(month, 2)).\(year)"
        case 4: return "\(months[month - 1]) \(day), \(year)"
        case 5: return "\(day) \(months[month - 1]) \(year)"
        default: return "\(day)-\(months[month - 1].prefix(3))-\(year)"
        }
    }

    /// A card of a known scheme with its Luhn digit, grouped as the scheme prints it.
    private mutating func card() -> String {
        let (prefix, length, grouping): (String, Int, [Int]) = switch random.int(0...4) {
        case 0: ("4", 16, [4, 4, 4, 4])
        case 1: (String(random.int(51...55)), 16, [4, 4, 4, 4])
        case 2: (pick(["34", "37"]), 15, [4, 6, 5])
        case 3: ("6011", 16, [4, 4, 4, 4])
        default: (String(random.int(2221...2720)), 16, [4, 4, 4, 4])
        }
        let digitsOnly = Self.withLuhnDigit(prefix + (0..<(length - prefix.count - 1)).map { _ in String(random.int(0...9)) }.joined())
        let separator = pick([" ", "-", ""])
        var groups: [String] = []
        var rest = Substring(digitsOnly)
        for size in grouping {
            groups.append(String(rest.prefix(size)))
            rest = rest.dropFirst(size)
        }
        return groups.joined(separator: separator)
    }

    static func withLuhnDigit(_ body: String) -> String {
        body + String((0...9).first { Luhn.isValid(body + String($0)) }!)
    }

    private mutating func iban() -> String {
        let letters = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
        let (country, bban): (String, String) = switch random.int(0...3) {
        case 0: ("GB", String((0..<4).map { _ in letters[random.int(0...25)] }) + digits(random.int(0...999_999), 6) + digits(random.int(0...99_999_999), 8))
        case 1: ("DE", digits(random.int(0...999_999_999), 9) + digits(random.int(0...999_999_999), 9))
        case 2: ("NL", String((0..<4).map { _ in letters[random.int(0...25)] }) + digits(random.int(0...9_999_999_999), 10))
        default: ("FR", digits(random.int(0...9_999_999_999), 10) + digits(random.int(0...99_999_999_999), 11) + digits(random.int(0...99), 2))
        }
        let iban = Self.ibanWithCheckDigits(country: country, bban: bban)
        guard random.int(0...1) == 0 else { return iban }
        return stride(from: 0, to: iban.count, by: 4).map { String(Array(iban)[$0..<min($0 + 4, iban.count)]) }.joined(separator: " ")
    }

    /// ISO 13616 check digits: 98 minus the BBAN || country || "00" (letters as 10...35) modulo 97.
    static func ibanWithCheckDigits(country: String, bban: String) -> String {
        var remainder = 0
        for character in (bban + country + "00").unicodeScalars {
            let value = character.properties.numericType != nil ? Int(character.value) - 48 : Int(character.value) - 55
            remainder = (value >= 10 ? remainder * 100 + value : remainder * 10 + value) % 97
        }
        return country + digits(98 - remainder, 2) + bban
    }

    // MARK: Near misses

    /// Text that looks like an identifier and is none, by construction.
    private mutating func nearMiss() -> String {
        switch random.int(0...17) {
        case 0: return "card " + Self.invalidated(card())
        case 1: return "ref " + Self.withLuhnDigit("9" + (0..<14).map { _ in String(random.int(0...9)) }.joined())
        case 2: return "Order #" + String(random.int(100_000...999_999_999))
        case 3: return "order ORD-\(random.int(2019...2025))-\(random.int(100_000...999_999))"
        case 4: return "account " + digits(random.int(0...9_999_999_999), 10)
        case 5: return pick(["Seen on ", "follow-up ", "filed ", "next visit ", "hearing set for "]) + birthDate()
        case 6: return "\(random.int(100...199))-\(random.int(200...999))-\(digits(random.int(0...9999), 4))"
        case 7: return "\(pick(["000", "666", String(random.int(900...999))]))-\(digits(random.int(1...99), 2))-\(digits(random.int(1...9999), 4))"
        case 8: return "\(digits(random.int(1...899), 3))-00-\(digits(random.int(1...9999), 4))"
        case 9: return "\(digits(random.int(1...899), 3))-\(digits(random.int(1...99), 2))-0000"
        case 10: return "ISBN 978-\(random.int(0...9))-\(random.int(100...999))-\(random.int(10_000...99_999))-\(random.int(0...9))"
        case 11: return "ext. \(random.int(1000...9999)), room \(random.int(100...999))"
        case 12: return "\(random.int(1...2000)) mg twice daily, BP \(random.int(90...180))/\(random.int(50...110)) at \(random.int(1...12)):\(digits(random.int(0...59), 2))"
        case 13: return "$\(random.int(1...999)),\(digits(random.int(0...999), 3)).\(digits(random.int(0...99), 2))"
        case 14: return "Case No. \(random.int(1...9)):\(random.int(10...25))-cv-\(digits(random.int(0...99_999), 5))"
        case 15: return "IBAN " + Self.invalidatedIBAN(iban())
        case 16: return "v\(random.int(1...20)).\(random.int(0...9)).\(random.int(0...99))"
        default: return "MRN pending, " + pick(["mail at clinic dot org", "user@localhost", "see @records"])
        }
    }

    /// The same digits with the last digit changed: the Luhn check now fails.
    static func invalidated(_ card: String) -> String {
        var characters = Array(card)
        let last = characters.count - 1
        characters[last] = Character(String((Int(String(characters[last]))! + 1) % 10))
        return String(characters)
    }

    /// Check digits moved by one (never to 00, 01 or 99): MOD 97-10 now fails.
    static func invalidatedIBAN(_ iban: String) -> String {
        var characters = Array(iban)
        let check = Int(String(characters[2...3]))!
        let wrong = check >= 97 ? check - 1 : check + 1
        characters.replaceSubrange(2...3, with: Array(digits(wrong, 2)))
        return String(characters)
    }

    // MARK: Helpers

    private mutating func pick<T>(_ choices: [T]) -> T {
        choices[random.int(0...(choices.count - 1))]
    }

    static func digits(_ value: Int, _ count: Int) -> String {
        let text = String(value)
        return String(repeating: "0", count: max(0, count - text.count)) + text
    }

    private func digits(_ value: Int, _ count: Int) -> String {
        Self.digits(value, count)
    }
}

/// Builds a sample's bytes and remembers where planted items are.
private struct SampleBuilder {
    var bytes: [UInt8] = []
    var planted: [LeakCorpus.Planted] = []
    var lastWordEnd = 0

    mutating func append(_ text: String) {
        bytes += text.utf8
    }

    mutating func appendWord(_ text: String) {
        bytes += text.utf8
        lastWordEnd = bytes.count
    }

    mutating func plant(_ kind: LeakKind, value: String) {
        let start = bytes.count
        bytes += value.utf8
        planted.append(.init(kind: kind, range: start..<bytes.count))
    }

    mutating func plant(_ kind: LeakKind, _ range: Range<Int>) {
        planted.append(.init(kind: kind, range: range))
    }

    var sample: LeakCorpus.Sample { .init(bytes: bytes, planted: planted) }
}

/// SplitMix64: a fixed seed gives the same corpus on every machine.
struct SeededRandom {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func int(_ range: ClosedRange<Int>) -> Int {
        range.lowerBound + Int(next() % UInt64(range.count))
    }
}
