/// What a leak guard hit is: one kind of identifier, or a quote of fingerprinted privileged text.
///
/// The cases are in redaction priority order: where hits overlap, the merged span takes the
/// placeholder of the kind listed first (a quote of a privileged note outranks the identifier in it).
public enum LeakKind: String, Sendable, CaseIterable, Comparable {
    case privilegedQuote
    case socialSecurityNumber
    case nationalProviderIdentifier
    case medicalRecordNumber
    case paymentCard
    case iban
    case dateOfBirth
    case email
    case phone

    /// The typed text that replaces a hit of this kind in a redacted payload.
    public var placeholder: String {
        switch self {
        case .privilegedQuote: "[PRIVILEGED]"
        case .socialSecurityNumber: "[SSN]"
        case .nationalProviderIdentifier: "[NPI]"
        case .medicalRecordNumber: "[MRN]"
        case .paymentCard: "[CARD]"
        case .iban: "[IBAN]"
        case .dateOfBirth: "[DOB]"
        case .email: "[EMAIL]"
        case .phone: "[PHONE]"
        }
    }

    /// The numbered form (`[EMAIL-3]`), for redaction whose values are put back (§17.1).
    public func placeholder(number: Int) -> String {
        "\(placeholder.dropLast())-\(number)]"
    }

    var priority: Int {
        Self.allCases.firstIndex(of: self) ?? Self.allCases.count
    }

    public static func < (lhs: LeakKind, rhs: LeakKind) -> Bool {
        lhs.priority < rhs.priority
    }
}
