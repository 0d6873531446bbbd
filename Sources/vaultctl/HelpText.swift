/// The help a person reads, generated from the command declarations (`Command`, `Option`): a
/// command's `--help` (also `vaultctl help CMD`) and the overview. Nothing here is written by hand
/// per command, so the help says what the parser accepts.
enum HelpText {
    static let width = 100
    /// The left column of an options list; a longer signature puts its help on the next line.
    static let optionColumn = 28

    /// Usage, the description, Options, Global options, Examples.
    static func usage(of command: Command) -> String {
        var sections = [usageLine(of: command), command.about]
        if !command.options.isEmpty { sections.append("Options:\n" + optionList(command.options)) }
        sections.append("Global options (also before the command, as in 'vaultctl --vault DIR ls'):\n" + optionList(command.globalOptions))
        sections.append("Examples:\n" + command.examples.map { "  " + $0 }.joined(separator: "\n"))
        return sections.joined(separator: "\n\n")
    }

    /// The Usage line, wrapped under the command's arguments when it is long.
    static func usageLine(of command: Command) -> String {
        let lead = "Usage: vaultctl \(command.path) "
        let rest = String(command.usageLine.dropFirst(lead.count))
        let lines = wrap(rest, width: width - lead.count)
        return lead + lines.joined(separator: "\n" + String(repeating: " ", count: lead.count))
    }

    static func optionList(_ options: [Option]) -> String {
        options.map(optionLine).joined(separator: "\n")
    }

    /// "  --threads N                 cores to use (default: all)", wrapped under its column.
    static func optionLine(_ option: Option) -> String {
        let left = "  " + option.signature
        let indent = String(repeating: " ", count: optionColumn)
        let lines = wrap(option.help, width: width - optionColumn)
        let first = left.count < optionColumn - 1
            ? left.padding(toLength: optionColumn, withPad: " ", startingAt: 0) + lines[0]
            : left + "\n" + indent + lines[0]
        return ([first] + lines.dropFirst().map { indent + $0 }).joined(separator: "\n")
    }

    /// The overview: every command with its synopsis, in one column wide enough for the longest name.
    static func overview(_ commands: [Command], exitCodes: String) -> String {
        let column = (commands.map(\.path.count).max() ?? 0) + 2
        let list = commands.map { "  " + $0.path.padding(toLength: column, withPad: " ", startingAt: 0) + $0.synopsis }
        return """
            Usage: vaultctl [--vault DIR] COMMAND [OPTIONS]
                   vaultctl help COMMAND | --help | --version

            A sealed vault for privileged notes and files, with an audit trail.

            Commands:
            \(list.joined(separator: "\n"))

            Run 'vaultctl help COMMAND' (or 'vaultctl COMMAND --help') for a command's options and examples.

            \(exitCodes)
            """
    }

    /// Words of `text` in lines of at most `width` characters (a longer word gets a line of its own).
    static func wrap(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        var current = ""
        for word in text.split(separator: " ") {
            if current.isEmpty {
                current = String(word)
            } else if current.count + 1 + word.count <= width {
                current += " " + word
            } else {
                lines.append(current)
                current = String(word)
            }
        }
        return lines + [current]
    }
}
