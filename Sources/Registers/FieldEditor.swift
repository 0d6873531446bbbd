import CryptoVault

/// The labels of the field editors in one register: a legal party shows party type and
/// identification, a clinical record relationship and background (the seed's examples). A slot
/// with no label is hidden, and every slot of a hidden concept is hidden.
public struct FieldEditor: Sendable, Equatable {
    public let register: Register
    private let labels: [FieldSlot: String]

    public init(_ register: Register) {
        self.register = register
        let lexicon = Lexicon(register)
        self.labels = Self.table(register).filter { !lexicon.isHidden($0.key.concept) }
    }

    /// The label to show for `slot`, or nil when this register hides it.
    public func label(_ slot: FieldSlot) -> String? { labels[slot] }

    public func isVisible(_ slot: FieldSlot) -> Bool { labels[slot] != nil }

    /// The visible slots, in the model's order.
    public var visibleSlots: [FieldSlot] { FieldSlot.allCases.filter(isVisible) }

    private static func table(_ register: Register) -> [FieldSlot: String] {
        switch register {
        case .healthcare:
            [.personRelationship: "Relationship", .personBackground: "Background",
             .documentDate: "Date of service", .documentReference: "Record number", .documentAuthor: "Clinician"]
        case .legal:
            [.personRole: "Party type", .personIdentification: "Identification", .placeDescription: "Court or forum",
             .documentDate: "Date", .documentReference: "Matter number", .documentAuthor: "Attorney"]
        case .journalism:
            [.personRole: "Role", .personIdentification: "Attribution", .personBackground: "Background",
             .placeDescription: "Description", .documentDate: "Date", .documentReference: "Slug", .documentAuthor: "Byline"]
        case .academic:
            [.personRole: "Role", .personIdentification: "Participant ID", .personBackground: "Demographics",
             .placeDescription: "Site description", .documentDate: "Date", .documentReference: "DOI", .documentAuthor: "Authors"]
        case .founder:
            [.personRole: "Role", .personIdentification: "Organisation", .personRelationship: "Relationship",
             .personBackground: "Notes", .placeDescription: "Market notes", .documentDate: "Date", .documentAuthor: "Owner"]
        case .general:
            [.personRole: "Role", .personRelationship: "Relationship", .personBackground: "Notes",
             .placeDescription: "Description", .documentDate: "Date", .documentAuthor: "Author"]
        case .fiction:
            [.personRole: "Role", .personRelationship: "Relationships", .personBackground: "Backstory", .personArc: "Arc",
             .placeDescription: "Description", .documentAuthor: "Author"]
        case .screenwriting:
            [.personRole: "Role", .personRelationship: "Relationships", .personBackground: "Backstory", .personArc: "Arc",
             .placeDescription: "Description", .documentReference: "Draft", .documentAuthor: "Written by"]
        case .marketing:
            [.personRole: "Segment", .personBackground: "Needs and goals", .placeDescription: "Market notes",
             .documentDate: "Launch date", .documentReference: "Campaign code", .documentAuthor: "Owner"]
        case .technical:
            [.personRole: "Role", .personIdentification: "Identifier", .personBackground: "Background",
             .documentDate: "Date", .documentReference: "Document number", .documentAuthor: "Author"]
        }
    }
}
