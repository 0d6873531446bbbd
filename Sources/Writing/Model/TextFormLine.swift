import Registers

/// The field labels one reading of the text form knows: the register's labels of a document's
/// fields (`Date of service`, `Matter number`), and every slot's own name (`documentDate`), which is
/// how a field is printed where the register hides it or no register is given. Only a document's
/// slots get their register label, so a paragraph `Notes: …` stays a paragraph.
struct TextFormFields {
    /// Longest label first, so no label is read as a shorter one's prefix.
    let labels: [(label: String, slot: FieldSlot)]
    let editor: FieldEditor?

    init(_ editor: FieldEditor?) {
        self.editor = editor
        var labels = FieldSlot.allCases.map { (label: $0.rawValue, slot: $0) }
        if let editor {
            labels += FieldSlot.allCases.filter { $0.concept == .scene }.compactMap { slot in editor.label(slot).map { (label: $0, slot: slot) } }
        }
        self.labels = labels.sorted { $0.label.count > $1.label.count }
    }

    /// The label `render` prints for `slot`.
    func label(_ slot: FieldSlot) -> String {
        slot.concept == .scene ? editor?.label(slot) ?? slot.rawValue : slot.rawValue
    }

    /// The field a line begins (`Label:` alone, or `Label: ` then its text), if any.
    func field(_ line: String) -> (slot: FieldSlot, text: String)? {
        for (label, slot) in labels where line.hasPrefix(label) {
            let rest = line.dropFirst(label.count)
            if rest == ":" { return (slot, "") }
            if rest.hasPrefix(": ") { return (slot, String(rest.dropFirst(2))) }
        }
        return nil
    }
}

/// What one line of the text form is.
enum TextFormLine: Equatable {
    case blank
    case heading(level: Int, text: String)
    case listItem(String)
    case quote(String)
    case row([String])
    case field(FieldSlot, String)
    /// A `\` line: its text as it is.
    case more(String)
    case text(String)

    init(_ line: String, fields: TextFormFields, number: Int) throws(WritingError) {
        if line.allSatisfy({ $0 == " " || $0 == "\t" }) { self = .blank }
        else if line.hasPrefix("\\") { self = .more(String(line.dropFirst())) }
        else if let level = Self.headingLevel(line) { self = .heading(level: level, text: String(line.dropFirst(level + 1))) }
        else if line.hasPrefix("- ") { self = .listItem(String(line.dropFirst(2))) }
        else if line == ">" || line.hasPrefix("> ") { self = .quote(String(line.dropFirst(line == ">" ? 1 : 2))) }
        else if line.hasPrefix("|") { self = .row(try TableRowText.parse(line, number: number)) }
        else if let (slot, text) = fields.field(line) { self = .field(slot, text) }
        else { self = .text(line) }
    }

    /// Whether `line`, as the text of a paragraph or a field's later line, must be printed after a
    /// `\` to be read back as itself.
    static func needsEscape(_ line: String, fields: TextFormFields) -> Bool {
        guard let read = try? TextFormLine(line, fields: fields, number: 0) else { return true }   // a malformed row
        if case .text = read { return false }
        return true
    }

    private static func headingLevel(_ line: String) -> Int? {
        let hashes = line.prefix { $0 == "#" }.count
        guard (1...6).contains(hashes), line.dropFirst(hashes).first == " " else { return nil }
        return hashes
    }
}

/// A table row's line, `| cell | cell |`: each cell between a space after one bar and a space
/// before the next, with `\|`, `\\` and `\n` its only escapes (any other `\` is refused).
enum TableRowText {
    static func render(_ cells: [String]) -> String {
        "|" + cells.map { " " + escape($0) + " |" }.joined()
    }

    static func parse(_ line: String, number: Int) throws(WritingError) -> [String] {
        var cells: [String] = []
        var rest = Substring(line.dropFirst())
        while !rest.isEmpty {
            guard rest.first == " " else { throw malformed(number, "a cell starts after '| '") }
            rest = rest.dropFirst()
            var cell = ""
            var closed = false
            while let character = rest.popFirst() {
                if character == "|" { closed = true; break }
                guard character == "\\" else { cell.append(character); continue }
                switch rest.popFirst() {
                case "|": cell.append("|")
                case "\\": cell.append("\\")
                case "n": cell.append("\n")
                default: throw malformed(number, "a cell's '\\' is followed by '|', '\\' or 'n'")
                }
            }
            guard closed, cell.last == " " else { throw malformed(number, "a cell ends with ' |'") }
            cells.append(String(cell.dropLast()))
        }
        return cells
    }

    private static func escape(_ cell: String) -> String {
        var out = ""
        for character in cell {
            switch character {
            case "\\": out += "\\\\"
            case "|": out += "\\|"
            case "\n": out += "\\n"
            default: out.append(character)
            }
        }
        return out
    }

    private static func malformed(_ number: Int, _ rule: String) -> WritingError {
        WritingError(.invalidText, "line \(number) starts with '|' but is not a table row (\(rule)); write '\\|' to start a paragraph's line with a bar")
    }
}
