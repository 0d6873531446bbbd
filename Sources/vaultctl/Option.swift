/// One command-line option, declared once: the parser accepts it, `--help`, `vaultctl help CMD`, the
/// man page and the shell completions describe it, all from this declaration, so they cannot drift.
///
/// How to declare an option (read this before adding one):
///
///     Option("--force", "replace OUT if it exists")                          // a flag
///     Option("--threads", value: "N", "cores to use (default: all)")         // takes one value
///     Option("--share-file", repeated: "PATH", "unlock with recovery shares (repeat once per share)")
///     Option("-o", value: "OUT", "where to write it (- for standard output)", aliases: ["--output"])
///
/// - `name` is the spelling the help shows. `aliases` are other spellings the parser also accepts
///   (kept for scripts, never shown); the parsed value is filed under `name` whichever was typed, so a
///   command reads `arguments.value("-o")` and never asks for an alias.
/// - `help` is one sentence fragment in lower case with no final period; it is wrapped for you. Say
///   the default and the range where there is one ("1 to 100, default 1").
/// - Put the option in the command's `options:` list. An option several commands share (the
///   credentials, `--socket`, `-o`) is a `static let` beside the code that reads it
///   (`Credentials.options`, `DaemonSocket.option`, `Option.output`), and each command lists it.
/// - `--vault`, `--help` and `--json` are global (`Command.globalOptions`): never declare them. A
///   command that prints something says `json: true` and honours `--json`; without it `--json` is
///   refused as a usage error rather than silently ignored.
/// - Every command gives at least one example (`examples:`); a test walks every command's help.
struct Option: Sendable {
    enum Kind: Sendable { case flag, value, repeatedValue }

    let name: String
    let aliases: [String]
    let kind: Kind
    /// What the value is called in the help ("PATH", "ADDR:PORT"); nil for a flag.
    let valueName: String?
    let help: String

    /// A flag: present or not.
    init(_ name: String, _ help: String, aliases: [String] = []) {
        self.init(name: name, aliases: aliases, kind: .flag, valueName: nil, help: help)
    }

    /// An option that takes one value, given at most once.
    init(_ name: String, value: String, _ help: String, aliases: [String] = []) {
        self.init(name: name, aliases: aliases, kind: .value, valueName: value, help: help)
    }

    /// An option that takes a value and may be given several times.
    init(_ name: String, repeated value: String, _ help: String, aliases: [String] = []) {
        self.init(name: name, aliases: aliases, kind: .repeatedValue, valueName: value, help: help)
    }

    private init(name: String, aliases: [String], kind: Kind, valueName: String?, help: String) {
        self.name = name
        self.aliases = aliases
        self.kind = kind
        self.valueName = valueName
        self.help = help
    }

    /// Whether `spelling` (as typed, before any `=`) names this option.
    func isSpelled(_ spelling: String) -> Bool { spelling == name || aliases.contains(spelling) }

    /// "-o OUT" or "--force", as the help's left column shows it.
    var signature: String { valueName.map { "\(name) \($0)" } ?? name }
}

extension Option {
    /// `-o`: where a command writes the file it makes (`-` for standard output). One spelling on every
    /// command that writes a file; `--output` and `--out` are the older spellings, still accepted.
    static func output(_ help: String) -> Option {
        Option("-o", value: "OUT", help, aliases: ["--output", "--out"])
    }

    static let force = Option("--force", "replace OUT if it exists")
}
