/// One forward pass over the payload's bytes that finds candidates cheaply and hands each to the
/// detector that validates it:
///
/// - a digit (or "+" / "(" before one) starts a `NumberRun`, offered to the card, SSN, phone and NPI
///   detectors in that order, group by group;
/// - a letter at the start of a word may be a label (MRN, date of birth, SSN), whose value is then
///   checked by its detector, or the start of an IBAN; the rest of the word is skipped;
/// - an "@" may sit inside an email address.
///
/// Every step moves forward by at least one byte and every detector looks at a bounded stretch
/// around its candidate (a number run is read once), so the pass is linear in the payload.
struct IdentifierScanner {
    private let bytes: UnsafeBufferPointer<UInt8>
    private let labels = Label.Phrases.shared
    private(set) var hits: [LeakHit] = []

    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    mutating func scan() {
        var position = 0
        while position < bytes.count {
            let byte = bytes[position]
            if ASCIIBytes.isDigit(byte) || (isNumberPrefix(byte) && position + 1 < bytes.count && ASCIIBytes.isDigit(bytes[position + 1])) {
                position = scanNumberRun(at: position)
            } else if ASCIIBytes.isLetter(byte) {
                position = scanWord(at: position)
            } else if byte == UInt8(ascii: "@") {
                position = scanEmail(at: position)
            } else {
                position += 1
            }
        }
    }

    private func isNumberPrefix(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "+") || byte == UInt8(ascii: "(")
    }

    // MARK: Numbers

    private mutating func scanNumberRun(at start: Int) -> Int {
        let run = NumberRun(bytes, at: start)
        var group = 0
        while group < run.groups.count {
            if let (kind, last) = numericMatch(run, from: group) {
                record(kind, run.span(group, last, prefix: kind == .phone))
                group = last + 1
            } else {
                group += 1
            }
        }
        return run.end
    }

    private func numericMatch(_ run: NumberRun, from group: Int) -> (LeakKind, Int)? {
        if let last = PaymentCardDetector.match(run, from: group, in: bytes) { return (.paymentCard, last) }
        if let last = SocialSecurityNumberDetector.match(run, from: group, in: bytes) { return (.socialSecurityNumber, last) }
        if let last = PhoneDetector.match(run, from: group, in: bytes) { return (.phone, last) }
        if let last = NationalProviderIdentifierDetector.match(run, from: group, in: bytes) { return (.nationalProviderIdentifier, last) }
        return nil
    }

    // MARK: Words

    /// A word starting at `start`: a label and its value, an IBAN, or nothing; returns where to go on.
    private mutating func scanWord(at start: Int) -> Int {
        let atWordStart = start == 0 || !ASCIIBytes.isAlphanumeric(bytes[start - 1])
        if atWordStart, let (label, end) = labels.match(bytes, at: start) {
            if let value = Label.valueStart(bytes, after: end), let range = labelledValue(label, at: value) {
                record(label.kind, range)
                return range.upperBound
            }
            return end
        }
        // An IBAN starts with two letters and two digits: the third byte rules out nearly every word.
        let mayBeIBAN = atWordStart && start + 3 < bytes.count && ASCIIBytes.isDigit(bytes[start + 2])
        switch mayBeIBAN ? IBANDetector.match(bytes, at: start) : nil {
        case .iban(let range)?:
            record(.iban, range)
            return range.upperBound
        case .invalid(let end)?:
            return end
        case nil:
            break
        }
        return start + ASCIIBytes.alphanumericRunLength(bytes, from: start, limit: bytes.count)
    }

    private func labelledValue(_ label: Label, at start: Int) -> Range<Int>? {
        switch label {
        case .medicalRecordNumber:
            return MedicalRecordNumberDetector.match(bytes, valueAt: start)
        case .dateOfBirth:
            return DateOfBirthDetector.match(bytes, valueAt: start)
        case .socialSecurityNumber:
            guard ASCIIBytes.isDigit(bytes[start]) else { return nil }
            return SocialSecurityNumberDetector.matchLabelled(NumberRun(bytes, at: start), in: bytes)
        }
    }

    // MARK: Email

    private mutating func scanEmail(at position: Int) -> Int {
        guard let range = EmailDetector.match(bytes, at: position) else { return position + 1 }
        record(.email, range)
        return range.upperBound
    }

    private mutating func record(_ kind: LeakKind, _ range: Range<Int>) {
        hits.append(LeakHit(kind: kind, range: range))
    }
}

extension Label {
    var kind: LeakKind {
        switch self {
        case .socialSecurityNumber: .socialSecurityNumber
        case .medicalRecordNumber: .medicalRecordNumber
        case .dateOfBirth: .dateOfBirth
        }
    }
}
