/// One thing the leak guard found: its kind and where it is.
///
/// `range` counts bytes of the payload as given (for a `String`, bytes of its UTF-8 form), so that a
/// hit in a payload of invalid UTF-8 still names exact bytes. For a labelled identifier (a medical
/// record number, a date of birth, an SSN found through its label) the range covers the value only:
/// the label stays readable in a redacted payload ("MRN: [MRN]").
public struct LeakHit: Sendable, Hashable {
    public let kind: LeakKind
    public let range: Range<Int>

    public init(kind: LeakKind, range: Range<Int>) {
        self.kind = kind
        self.range = range
    }

    /// The text that replaces this hit when the payload is redacted.
    public var placeholder: String { kind.placeholder }
}
