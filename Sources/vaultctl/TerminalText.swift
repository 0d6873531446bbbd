/// Text on its way to a terminal (review 17 s8, F11). A document's words may hold any character an
/// older vault or another device's records put there (a colleague's modified client, a console
/// before it refused them), and an escape sequence printed raw erases lines, hides text, sets the
/// window title or writes the clipboard: what the owner reads would not be what the vault holds.
/// So on a terminal each control character but tab and line feed (C0, DEL, C1) is shown as U+FFFD;
/// to a file or a pipe the text goes as it is (`doc show > f` keeps every character).
enum TerminalText {
    static let replacement: Unicode.Scalar = "\u{FFFD}"

    /// `text` with each control character but tab and line feed replaced by U+FFFD.
    static func shown(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isReplaced) else { return text }
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars { scalars.append(isReplaced(scalar) ? replacement : scalar) }
        return String(scalars)
    }

    /// A control character (Unicode Cc) other than tab and line feed.
    static func isReplaced(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.generalCategory == .control && scalar != "\t" && scalar != "\n"
    }
}
