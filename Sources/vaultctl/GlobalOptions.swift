/// The options that may come before the command's name (`vaultctl --vault D ls`, `vaultctl --version`):
/// they are split off here and handed to the command's parser with the rest, so `--vault D ls` and
/// `ls --vault D` mean the same, and giving one twice is refused the same way.
enum GlobalOptions {
    static let beforeCommand: Set<String> = ["--vault", "--json", "--help", "-h", "--version"]

    /// The leading global options (a `--vault` with its value) and the words from the command on.
    static func split(_ arguments: [String]) throws -> (globals: [String], rest: [String]) {
        var index = 0
        while index < arguments.count, arguments[index].hasPrefix("-"), arguments[index] != "-" {
            let spelling = String(arguments[index].split(separator: "=", maxSplits: 1).first ?? "")
            guard beforeCommand.contains(spelling) else {
                throw UsageError(message: "unknown option \(spelling) before the command (only --vault, --json, --help and --version go there)",
                                 usage: "Usage: vaultctl [--vault DIR] COMMAND [OPTIONS]")
            }
            if arguments[index] == "--vault" {
                guard index + 1 < arguments.count else {
                    throw UsageError(message: "--vault needs a value", usage: "Usage: vaultctl [--vault DIR] COMMAND [OPTIONS]")
                }
                index += 1
            }
            index += 1
        }
        return (Array(arguments[..<index]), Array(arguments[index...]))
    }
}
