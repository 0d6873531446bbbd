/// A small, strict command-line parser over a command's declared options (`Option`): `--name value`,
/// `--name=value`, boolean `--flag`, repeatable options, and positionals. Anything unknown, an option
/// given twice (unless repeatable), and an option where a value belongs is a usage error (exit 64).
struct UsageError: Error {
    let message: String
    let usage: String
}

struct ParsedArguments {
    private(set) var positionals: [String] = []
    private(set) var values: [String: [String]] = [:]
    private(set) var flags: Set<String> = []
    let usage: String

    init(usage: String) { self.usage = usage }

    /// Values and flags are filed under the option's declared name, whichever alias was typed.
    func value(_ name: String) -> String? { values[name]?.last }
    func allValues(_ name: String) -> [String] { values[name] ?? [] }
    func has(_ flag: String) -> Bool { flags.contains(flag) }

    func required(_ name: String) throws -> String {
        guard let value = value(name) else { throw UsageError(message: "missing \(name)", usage: usage) }
        return value
    }

    /// An optional whole number within `range`.
    func integer(_ name: String, in range: ClosedRange<Int>) throws -> Int? {
        guard let text = value(name) else { return nil }
        guard let number = Int(text), range.contains(number) else {
            throw UsageError(message: "\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound), not '\(text)'",
                             usage: usage)
        }
        return number
    }

    static func parse(_ arguments: [String], options: [Option], positionals: ClosedRange<Int>, usage: String,
                      refusing refused: [String: String] = [:]) throws -> ParsedArguments {
        var parsed = ParsedArguments(usage: usage)
        var index = 0
        var onlyPositionals = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if onlyPositionals || !argument.hasPrefix("-") || argument == "-" {
                parsed.positionals.append(argument)
                continue
            }
            if argument == "--" { onlyPositionals = true; continue }
            try parsed.takeOption(argument, options: options, refused: refused, arguments: arguments, index: &index)
        }
        guard positionals.contains(parsed.positionals.count) else {
            let problem = parsed.positionals.count < positionals.lowerBound ? "missing argument" : "unexpected argument '\(parsed.positionals.last ?? "")'"
            throw UsageError(message: problem, usage: usage)
        }
        return parsed
    }

    private mutating func takeOption(_ argument: String, options: [Option], refused: [String: String], arguments: [String],
                                     index: inout Int) throws {
        let parts = argument.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        let spelling = String(parts[0])
        guard let option = options.first(where: { $0.isSpelled(spelling) }) else {
            throw UsageError(message: refused[spelling] ?? "unknown option \(spelling)", usage: usage)
        }
        let name = option.name
        switch option.kind {
        case .flag:
            guard parts.count == 1 else { throw UsageError(message: "\(spelling) takes no value", usage: usage) }
            guard flags.insert(name).inserted else { throw UsageError(message: "\(name) was given twice", usage: usage) }
        case .value, .repeatedValue:
            let value: String
            if parts.count == 2 {
                value = String(parts[1])
            } else {
                guard index < arguments.count else { throw UsageError(message: "\(spelling) needs a value", usage: usage) }
                value = arguments[index]
                // "--action --json" is a forgotten value, not an action named "--json"; "--name=--json" still says it.
                if options.contains(where: { $0.isSpelled(value) }) {
                    throw UsageError(message: "\(spelling) needs a value, but the next argument is the option \(value)", usage: usage)
                }
                index += 1
            }
            if option.kind == .value, values[name] != nil {
                throw UsageError(message: "\(name) was given twice", usage: usage)
            }
            values[name, default: []].append(value)
        }
    }
}
