import Assistant
import CryptoVault
import Foundation
import Writing

/// `vaultctl ai policy` and `ai policy set`: a project's AI policy, shown and changed (SECURITY.md
/// §17.2). Each change is one `ai.policy-set` entry naming what changed and the policy's digest.
enum AIPolicyCommands {
    static let all = [show, set]

    static let show = Command("ai policy", synopsis: "show a project's AI policy", about: """
        Shows a project's AI policy: whether it may use any provider or only local ones, what a
        leak-guard finding in a prompt does (redact it, or refuse the call), and for each lane the
        providers it may use, in order (any, when the policy names none) and, for a privileged
        project, the local providers its owner allowed ('vaultctl ai allow-local'). Without
        --project, one line per project. A project whose policy was never set has its register's
        defaults. 'vaultctl ai policy set' changes it.
        """, options: Credentials.options + [AICommands.projectOption, WritingContext.purposeOption], json: true,
        examples: ["vaultctl ai policy --project \"The harbour\"", "vaultctl ai policy --json"]) { arguments in
            let context = try WritingContext(arguments)
            defer { context.end() }
            guard let name = arguments.value("--project") else { return try listAll(context, json: arguments.has("--json")) }
            let project = try context.project(name)
            let (policy, customized) = try context.vault.transaction { tx in
                let store = AssistantStore(tx)
                return (try store.policy(of: project), try store.hasOwnPolicy(project))
            }
            report(policy, of: project, customized: customized, json: arguments.has("--json"))
        }

    static let set = Command("ai policy set", synopsis: "change a project's AI policy", usage: "[LANE] --project P", about: """
        Changes a project's AI policy. With LANE, --providers A,B lets the lane use only those
        providers, in that order, and --any-provider lifts the restriction. For the whole project,
        --local-only yes|no keeps every lane to providers added with --local (or not), and
        --on-finding redact|refuse says what a leak-guard finding in a prompt does: the identifier
        is replaced by a numbered placeholder, or nothing is sent. A privileged project is always
        local-only and sends nothing unless its owner allows a local provider for a lane
        ('vaultctl ai allow-local'): --local-only no and --on-finding are refused for it. Each
        change is recorded as ai.policy-set, and the policy is printed as 'ai policy' shows it.
        """, options: Credentials.options + [
            AICommands.projectOption, WritingContext.purposeOption,
            Option("--providers", value: "LIST", "with LANE: the providers it may use, in order, comma-separated"),
            Option("--any-provider", "with LANE: it may use any provider the rest of the policy allows"),
            Option("--local-only", value: "yes|no", "only providers added with --local, or any"),
            Option("--on-finding", value: "redact|refuse", "what a leak-guard finding in a prompt does"),
        ], positionals: 0...1, json: true, examples: [
            "vaultctl ai policy set coauthor.draft --providers local,lan-box --project \"The harbour\"",
            "vaultctl ai policy set --local-only yes --on-finding refuse --project \"The harbour\"",
            "vaultctl ai policy set coauthor.draft --any-provider --project \"The harbour\"",
        ]) { arguments in
            let change = try PolicyChange(arguments)
            let context = try WritingContext(arguments)
            defer { context.end() }
            guard let name = arguments.value("--project") else { throw UsageError(message: "give --project PROJECT", usage: arguments.usage) }
            let project = try context.project(name)
            let policy = try context.vault.transaction { tx in
                let store = AssistantStore(tx)
                let changed = try change.applied(to: try store.policy(of: project), project: project, providers: try store.summaries().map(\.name))
                try store.setPolicy(changed, of: project, details: change.details)
                return changed
            }
            report(policy, of: project, customized: true, json: arguments.has("--json"))
        }

    /// What `ai policy set` was asked to change, checked before anything is opened.
    struct PolicyChange {
        var lane: Lane?
        var providers: [String]??
        var localOnly: Bool?
        var onFinding: AIPolicy.OnFinding?

        init(_ arguments: ParsedArguments) throws {
            lane = try arguments.positionals.first.map { try Lane.named($0) }
            let list = arguments.value("--providers")
            guard !(list != nil && arguments.has("--any-provider")) else {
                throw UsageError(message: "give --providers or --any-provider, not both", usage: arguments.usage)
            }
            if let list {
                let names = list.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
                guard !names.contains(where: \.isEmpty), Set(names).count == names.count else {
                    throw UsageError(message: "--providers is a comma-separated list of provider names, each once", usage: arguments.usage)
                }
                providers = .some(names)
            } else if arguments.has("--any-provider") {
                providers = .some(nil)
            }
            guard (lane == nil) == (providers == nil) else {
                throw UsageError(message: lane == nil ? "--providers and --any-provider need a LANE" : "with LANE give --providers LIST or --any-provider",
                                 usage: arguments.usage)
            }
            if let text = arguments.value("--local-only") {
                guard text == "yes" || text == "no" else { throw UsageError(message: "--local-only is yes or no", usage: arguments.usage) }
                localOnly = text == "yes"
            }
            if let text = arguments.value("--on-finding") {
                guard let value = AIPolicy.OnFinding(rawValue: text) else {
                    throw UsageError(message: "--on-finding is redact or refuse", usage: arguments.usage)
                }
                onFinding = value
            }
            guard lane != nil || localOnly != nil || onFinding != nil else {
                throw UsageError(message: "nothing to change: give LANE with --providers or --any-provider, --local-only or --on-finding",
                                 usage: arguments.usage)
            }
        }

        func applied(to policy: AIPolicy, project: WritingProject, providers known: [String]) throws -> AIPolicy {
            var policy = policy
            if project.isPrivileged {
                guard localOnly != false else {
                    throw AssistantError(.refusedByPolicy, "a privileged project is always local-only")
                }
                guard onFinding == nil else {
                    throw AssistantError(.refusedByPolicy, "a privileged project sends nothing unless its owner allows a local provider for a lane "
                                         + "('vaultctl ai allow-local'): --on-finding applies to ordinary projects")
                }
            }
            if let lane, let providers {
                if let names = providers {
                    if let unknown = names.first(where: { !known.contains($0) }) {
                        throw AssistantError(.unknownProvider, "no provider '\(unknown)' ('vaultctl ai providers list')")
                    }
                    policy.laneProviders[lane.name] = names
                } else {
                    policy.laneProviders[lane.name] = nil
                }
            }
            if let localOnly { policy.localOnly = localOnly }
            if let onFinding { policy.onFinding = onFinding }
            return policy
        }

        /// The entry's details: what changed (lane and provider names, flags; nothing secret).
        var details: [VaultEvent.Detail] {
            var details: [VaultEvent.Detail] = []
            if let lane, let providers { details += [.init("lane", lane.name), .init("providers", providers.map { $0.joined(separator: ",") } ?? "any")] }
            if let localOnly { details.append(.init("local_only", localOnly ? "yes" : "no")) }
            if let onFinding { details.append(.init("on_finding", onFinding.rawValue)) }
            return details
        }
    }

    // MARK: Output

    static func report(_ policy: AIPolicy, of project: WritingProject, customized: Bool, json: Bool) {
        let lanes = Lane.known.map { lane -> [String: Any] in
            ["lane": lane.name, "providers": policy.laneProviders[lane.name] ?? NSNull(),
             "allowed_local": (policy.privilegedAllowances[lane.name] ?? []).sorted()]
        }
        if json {
            Output.json(["project": project.id.hex, "register": project.register.rawValue, "privileged": project.isPrivileged,
                         "customized": customized, "local_only": policy.localOnly || project.isPrivileged,
                         "on_finding": policy.onFinding.rawValue, "lanes": lanes])
            return
        }
        Output.line(summary(policy, project: project) + (customized ? "" : " (the \(project.register.rawValue) register's defaults)"))
        for lane in Lane.known {
            let providers = policy.laneProviders[lane.name].map { $0.isEmpty ? "none" : $0.joined(separator: ", ") } ?? "any provider"
            let allowed = project.isPrivileged ? "\tallowed locally: " + ((policy.privilegedAllowances[lane.name] ?? []).sorted().joined(separator: ", ")
                                                                           .nonEmpty ?? "none") : ""
            Output.line("\(lane.name)\t\(providers)\(allowed)")
        }
    }

    static func summary(_ policy: AIPolicy, project: WritingProject) -> String {
        if project.isPrivileged { return "Privileged: local providers only, and only those allowed per lane" }
        return "\(policy.localOnly ? "Local providers only" : "Any provider"), findings \(policy.onFinding == .redact ? "redacted" : "refuse the call")"
    }

    static func listAll(_ context: WritingContext, json: Bool) throws {
        let projects = try context.projects()
        let rows = try projects.map { project -> [String: Any] in
            let (policy, customized) = try context.vault.transaction { tx in
                (try AssistantStore(tx).policy(of: project), try AssistantStore(tx).hasOwnPolicy(project))
            }
            return ["project": project.id.hex, "name": try context.name(of: project) ?? NSNull(), "privileged": project.isPrivileged,
                    "customized": customized, "local_only": policy.localOnly || project.isPrivileged, "on_finding": policy.onFinding.rawValue,
                    "restricted_lanes": policy.laneProviders.keys.sorted(), "summary": summary(policy, project: project)]
        }
        if json { Output.json(rows); return }
        if rows.isEmpty { Output.line("No projects."); return }
        for row in rows {
            let name = (row["name"] as? String) ?? "\(row["project"]!) (privileged: its name is read in a session)"
            Output.line("\(name)\t\(row["summary"]!)\((row["customized"] as? Bool) == true ? "" : " (register defaults)")")
        }
    }
}

private extension String {
    var nonEmpty: String? { isEmpty ? nil : self }
}
