/// A small, strict command-line parser: `--name value`, `--name=value`, boolean `--flag`,
/// repeatable options, and positionals. Anything unknown, an option given twice (unless repeatable),
/// and an option where a value belongs is a usage error (exit 64).
struct OptionSpec: Sendable {
    enum Kind: Sendable { case flag, value, repeatedValue }
    let name: String
    let kind: Kind
}

struct CommandSpec: Sendable {
    let path: String            // "compartment create"
    let synopsis: String        // one line shown in lists
    let usage: String           // the full --help text
    let options: [OptionSpec]
    let positionals: ClosedRange<Int>
}

struct UsageError: Error {
    let message: String
    let usage: String
}

struct ParsedArguments {
    private(set) var positionals: [String] = []
    private(set) var values: [String: [String]] = [:]
    private(set) var flags: Set<String> = []
    let usage: String

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

    static func parse(_ arguments: [String], spec: CommandSpec) throws -> ParsedArguments {
        var parsed = ParsedArguments(usage: spec.usage)
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
            try parsed.takeOption(argument, spec: spec, arguments: arguments, index: &index)
        }
        guard spec.positionals.contains(parsed.positionals.count) else {
            let problem = parsed.positionals.count < spec.positionals.lowerBound ? "missing argument" : "unexpected argument '\(parsed.positionals.last ?? "")'"
            throw UsageError(message: problem, usage: spec.usage)
        }
        return parsed
    }

    private mutating func takeOption(_ argument: String, spec: CommandSpec, arguments: [String], index: inout Int) throws {
        let parts = argument.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        let name = String(parts[0])
        guard let option = spec.options.first(where: { $0.name == name }) else {
            throw UsageError(message: "unknown option \(name)", usage: spec.usage)
        }
        switch option.kind {
        case .flag:
            guard parts.count == 1 else { throw UsageError(message: "\(name) takes no value", usage: spec.usage) }
            guard flags.insert(name).inserted else { throw UsageError(message: "\(name) was given twice", usage: spec.usage) }
        case .value, .repeatedValue:
            let value: String
            if parts.count == 2 {
                value = String(parts[1])
            } else {
                guard index < arguments.count else { throw UsageError(message: "\(name) needs a value", usage: spec.usage) }
                value = arguments[index]
                // "--action --json" is a forgotten value, not an action named "--json"; "--name=--json" still says it.
                if spec.options.contains(where: { $0.name == value }) {
                    throw UsageError(message: "\(name) needs a value, but the next argument is the option \(value)", usage: spec.usage)
                }
                index += 1
            }
            if option.kind == .value, values[name] != nil {
                throw UsageError(message: "\(name) was given twice", usage: spec.usage)
            }
            values[name, default: []].append(value)
        }
    }
}
