import CryptoVault

/// One character of a block's text, named by the record that typed it: the device, the record's
/// counter, and the character's place among the Unicode scalars that record inserted (its text
/// edits in order, from 0). A record is named once by its device and counter (a second record
/// with one counter is a fork, refused), so the name is unique in the project.
public struct CharacterID: Sendable, Hashable {
    public let device: DeviceID
    public let counter: UInt64
    public let offset: UInt32

    public init(device: DeviceID, counter: UInt64, offset: UInt32) {
        self.device = device
        self.counter = counter
        self.offset = offset
    }
}

/// One change of a block's text, as the device that made it saw the text.
public enum TextEdit: Sendable, Hashable {
    /// `text` (at least one scalar) typed right after `after`, or at the block's start for nil.
    /// Its scalars take the record's next offsets.
    case insert(after: CharacterID?, text: String)
    /// The characters from `first` through `last` in the text's order (the same one or a later
    /// one) deleted: those the device saw; characters typed between them by a record it had not
    /// seen stay.
    case delete(first: CharacterID, last: CharacterID)
}
