/// The structured fields the writing model keeps for its records, whatever the register. A register
/// only decides each slot's label and whether it is shown (`FieldEditor`), so changing a project's
/// register relabels its fields and never migrates its data.
public enum FieldSlot: String, Sendable, CaseIterable, Codable {
    // A person (the model's Character): a legal party, a client, a source, a participant.
    case personRole, personIdentification, personRelationship, personBackground, personArc
    // A place (the model's Place).
    case placeDescription
    // A document (the model's Scene).
    case documentDate, documentReference, documentAuthor

    /// The concept the slot belongs to: a slot is hidden wherever its concept is.
    public var concept: TermKey {
        switch self {
        case .personRole, .personIdentification, .personRelationship, .personBackground, .personArc: .character
        case .placeDescription: .place
        case .documentDate, .documentReference, .documentAuthor: .scene
        }
    }
}
