import CryptoVault
import Registers

/// The text form of a character's, place's, plot beat's or snippet's fields and body, as `vaultctl
/// entry add` reads it and `entry show` prints it, in the register's words:
///
///     entry-text = *(field-line newline) [empty-line] body
///     field-line = label ": " value       ; label: one the register shows for a slot of the entry's kind
///
/// Lines are read as `PlainText` reads them (UTF-8, no NUL or control character but tab, line feed
/// and carriage return; CR LF and a lone CR end a line). The field lines come first, each label at
/// most once (a second is refused: it would overwrite the first): the first line that is not one
/// ends them, one empty line there is dropped, and the rest is the body, its last line break dropped
/// (so a body that starts like a field line is written after an empty line).
/// A label the register hides is not one (so a hidden slot is never written from text), and neither
/// is a label of another kind's slot. The whole text is at most `WritingLimits.maximumBlockBytes`,
/// refused before any parsing; values and the body are never quoted in an error.
public enum EntryText {
    public struct Parsed: Equatable, Sendable {
        public var fields: [FieldSlot: String]
        public var body: String
    }

    /// Reads `text` where it lies (locked memory, as a command reads its input).
    public static func parse(_ text: SecureBytes, kind: EntryKind, labels: FieldEditor) throws -> Parsed {
        try text.withUnsafeBytes { try parse($0, kind: kind, labels: labels) }
    }

    /// The same for bytes in ordinary memory (a test's text, a fuzzer's input).
    public static func parse(_ bytes: [UInt8], kind: EntryKind, labels: FieldEditor) throws -> Parsed {
        try bytes.withUnsafeBytes { try parse($0, kind: kind, labels: labels) }
    }

    static func parse(_ bytes: UnsafeRawBufferPointer, kind: EntryKind, labels: FieldEditor) throws -> Parsed {
        guard bytes.count <= WritingLimits.maximumBlockBytes else {
            throw WritingError(.blockTooLarge, "the text is \(bytes.count) bytes; an entry holds at most \(WritingLimits.maximumBlockBytes)")
        }
        let slots = Dictionary(uniqueKeysWithValues: kind.slots.compactMap { slot in labels.label(slot).map { ($0 + ": ", slot) } })
        var lines = try PlainText.lines(bytes)[...]
        var fields: [FieldSlot: String] = [:]
        while let line = lines.first, let (prefix, slot) = slots.first(where: { line.hasPrefix($0.key) }) {
            guard fields[slot] == nil else {
                throw WritingError(.invalidText, "the field '\(prefix.dropLast(2))' is given twice")
            }
            fields[slot] = String(line.dropFirst(prefix.count))
            lines = lines.dropFirst()
        }
        if lines.first == "" { lines = lines.dropFirst() }
        var body = Array(lines)
        if body.last == "" { body.removeLast() }
        return Parsed(fields: fields, body: body.joined(separator: "\n"))
    }

    /// The text of `entry`'s visible fields (in the model's slot order) and its body: what `parse`
    /// reads back. Hidden fields are not printed (the register hides them); they are kept.
    public static func render(_ entry: ProjectEntry, labels: FieldEditor) -> String {
        let fields = entry.kind.slots.compactMap { slot -> String? in
            guard let label = labels.label(slot), let value = entry.fields[slot] else { return nil }
            return label + ": " + value
        }
        guard !entry.body.isEmpty else { return fields.isEmpty ? "" : fields.joined(separator: "\n") + "\n" }
        // An empty line before the body whenever one is needed to read it back as the body.
        let first = entry.body.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false)[0]
        let separated = !fields.isEmpty || first.isEmpty || entry.kind.slots.contains { slot in
            labels.label(slot).map { first.hasPrefix($0 + ": ") } ?? false
        }
        let gap = !separated ? "" : fields.isEmpty ? "\n" : "\n\n"
        return fields.joined(separator: "\n") + gap + entry.body + "\n"
    }
}
