extension ToolSchema {
    /// Checks `value` against the schema; throws `invalidArguments` naming the path that failed
    /// (a path of member names and indices, never the value, which may be privileged text).
    public func check(_ value: JSONValue) throws(AgentsError) {
        if let problem = problem(with: value, at: "$") {
            throw AgentsError(.invalidArguments, "the arguments do not match the tool's schema at \(problem)")
        }
    }

    /// The first failing path and why, or nil when `value` matches.
    func problem(with value: JSONValue, at path: String) -> String? {
        guard case .constrained(let rules) = self else { return nil }
        if let types = rules.types, !types.contains(where: { Self.value(value, isOfType: $0) }) {
            return "\(path) (expected \(types.sorted().joined(separator: " or ")))"
        }
        if let allowed = rules.allowed, !allowed.contains(value) { return "\(path) (not one of the allowed values)" }
        if let problem = alternativesProblem(rules, value, path) { return problem }
        switch value {
        case .string(let text): return stringProblem(rules, text, path)
        case .number(let number): return numberProblem(rules, number, path)
        case .array(let items): return arrayProblem(rules, items, path)
        case .object(let members): return objectProblem(rules, members, path)
        case .null, .bool: return nil
        }
    }

    private func alternativesProblem(_ rules: Constraints, _ value: JSONValue, _ path: String) -> String? {
        if let anyOf = rules.anyOf, !anyOf.contains(where: { $0.problem(with: value, at: path) == nil }) {
            return "\(path) (matches none of anyOf)"
        }
        if let oneOf = rules.oneOf, oneOf.filter({ $0.problem(with: value, at: path) == nil }).count != 1 {
            return "\(path) (does not match exactly one of oneOf)"
        }
        return nil
    }

    private func stringProblem(_ rules: Constraints, _ text: String, _ path: String) -> String? {
        // JSON Schema counts characters (code points), not bytes.
        guard let lengths = rules.lengths, !lengths.contains(text.unicodeScalars.count) else { return nil }
        return "\(path) (length outside \(lengths.lowerBound)...\(lengths.upperBound))"
    }

    private func numberProblem(_ rules: Constraints, _ number: Double, _ path: String) -> String? {
        if let minimum = rules.minimum, number < minimum { return "\(path) (below the minimum)" }
        if let maximum = rules.maximum, number > maximum { return "\(path) (above the maximum)" }
        return nil
    }

    private func arrayProblem(_ rules: Constraints, _ items: [JSONValue], _ path: String) -> String? {
        if let counts = rules.counts, !counts.contains(items.count) { return "\(path) (item count outside its bounds)" }
        guard let schema = rules.items else { return nil }
        for (index, item) in items.enumerated() {
            if let problem = schema.problem(with: item, at: "\(path)[\(index)]") { return problem }
        }
        return nil
    }

    private func objectProblem(_ rules: Constraints, _ members: [(key: String, value: JSONValue)], _ path: String) -> String? {
        for name in rules.required where !members.contains(where: { $0.key == name }) {
            return "\(path).\(name.prefix(64)) (required)"
        }
        for member in members {
            let memberPath = "\(path).\(member.key.prefix(64))"
            if let schema = rules.properties[member.key] {
                if let problem = schema.problem(with: member.value, at: memberPath) { return problem }
            } else if !rules.additionalProperties {
                // The name is the caller's, not the schema's: not quoted.
                return "\(path) (a member that is not a property of this tool)"
            }
        }
        return nil
    }

    static func value(_ value: JSONValue, isOfType type: String) -> Bool {
        switch (type, value) {
        case ("object", .object), ("string", .string), ("boolean", .bool), ("array", .array), ("null", .null), ("number", .number): true
        case ("integer", .number): value.integerValue != nil
        default: false
        }
    }
}
