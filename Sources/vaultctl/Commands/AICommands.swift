import Assistant
import CryptoVault
import Foundation
import PrivilegedSession
import Writing

/// `vaultctl ai providers add|list|test|rm`, `ai lanes`, `ai allow-local`, `ai run`, `ai log` (and `ai policy`, AIPolicyCommands): the
/// Assistant's side of the `ai` group (SECURITY.md §17). Agents and tools are AgentCommands'.
enum AICommands {
    static let all = [providersAdd, providersList, providersTest, providersRemove, lanes, allowLocal, run, log] + AIPolicyCommands.all

    static let projectOption = Option("--project", value: "PROJECT", "the project (its name or id)")

    static let providersAdd = Command("ai providers add", synopsis: "add a model provider", usage: "NAME --url URL --model MODEL", about: """
        Adds a model provider: an OpenAI-compatible chat-completions server (llama.cpp's server,
        vLLM, Ollama's /v1; --kind openai, the default, posts to URL/v1/chat/completions), Ollama's
        native API (--kind ollama), or a custom endpoint (--kind custom: the same protocol at a base
        URL you give whole, posting to URL/chat/completions, typically a gateway that wants a key).
        URL is http://HOST[:PORT][/PATH] with HOST an IP address or localhost on loopback or a
        private network (no TLS yet; a public address or another host name is refused). --local
        says it runs on this machine or one of your own devices: only a local provider can ever be
        allowed a privileged project's text ('vaultctl ai allow-local'). Recorded as ai.provider-add.
        NAME is 1 to 64 of a-z, 0-9, '.', '_' and '-'.

        --header NAME (repeatable) makes every request carry that header (an API key: Authorization,
        X-Api-Key). Its value is never taken from the command line: it is read from standard input,
        one line per --header in order (after the passphrase when --passphrase-file is -), or asked
        on the terminal without echo. It is sealed in the vault (compartment 'assistant provider
        keys') and sent from locked memory; lists, logs, errors and the audit log show its name only.
        """, options: Credentials.options + [
            Option("--url", value: "URL", "where it listens: http://HOST[:PORT][/PATH]"),
            Option("--model", value: "MODEL", "the model it serves, as the server names it"),
            Option("--kind", value: "KIND", "openai (the default), ollama or custom"),
            Option("--local", "it runs here or on one of your own devices"),
            Option("--header", repeated: "NAME", "send header NAME, its value read from standard input or the terminal (repeat per header)"),
        ], positionals: 1...1, json: true, examples: [
            "vaultctl ai providers add local --url http://127.0.0.1:8080 --model smollm2 --local",
            "vaultctl ai providers add ollama --url http://127.0.0.1:11434 --model llama3.2 --kind ollama",
            "vaultctl ai providers add gw --url http://10.0.0.5/v1 --model m --kind custom --header X-Api-Key",
        ]) { arguments in
            guard let url = arguments.value("--url"), let model = arguments.value("--model") else {
                throw UsageError(message: "give --url and --model", usage: arguments.usage)
            }
            guard let kind = ProviderConfiguration.Kind(rawValue: arguments.value("--kind") ?? "openai") else {
                throw UsageError(message: "--kind is openai, ollama or custom", usage: arguments.usage)
            }
            let name = arguments.positionals[0]
            _ = try ProviderConfiguration(name: name, kind: kind, url: url, model: model, isLocal: arguments.has("--local"))
            let vault = try VaultLocation.unlock(arguments)
            let headers = try ProviderHeaderInput.headers(named: arguments.allValues("--header"))
            let provider = try ProviderConfiguration(name: name, kind: kind, url: url, model: model, isLocal: arguments.has("--local"), headers: headers)
            try vault.transaction { tx in try AssistantStore(tx).addProvider(provider) }
            let summary = try AssistantStore.providerSummaries(in: vault.vault).first { $0.name == name }
            if arguments.has("--json") { Output.json(summary.map(json) ?? [:]); return }
            Output.line("Added provider \(provider.name): \(provider.destination) at \(provider.endpoint)\(provider.isLocal ? " (local)" : "")"
                        + (headers.isEmpty ? "." : ", sending \(provider.headerNames.joined(separator: ", ")) (sealed in the vault)."))
        }

    static let providersList = Command("ai providers list", synopsis: "list the model providers", about: """
        Lists the providers: name, kind, egress destination (model:NAME/MODEL), URL, whether local,
        and the names of the headers each sends (their values stay sealed in the vault and are never
        shown). Read without unlocking the vault.
        """, json: true, examples: ["vaultctl ai providers list"]) { arguments in
            let providers = try AssistantStore.providerSummaries(in: try VaultLocation.open(arguments))
            if arguments.has("--json") { Output.json(providers.map(json)); return }
            if providers.isEmpty { Output.line("No providers: 'vaultctl ai providers add NAME --url URL --model MODEL' adds one."); return }
            for provider in providers {
                Output.line("\(provider.name)\t\(provider.kind.rawValue)\t\(provider.destination)\t\(provider.url)\t\(provider.isLocal ? "local" : "not local")"
                            + (provider.headerNames.isEmpty ? "" : "\theaders: \(provider.headerNames.joined(separator: ", "))"))
            }
        }

    static let providersTest = Command("ai providers test", synopsis: "check a provider's address answers", usage: "NAME", about: """
        Opens a connection to the provider's address and closes it: it sends nothing, so no text
        leaves and nothing passes the egress funnel. Exits 69 when nothing answers within 5 seconds.
        """, positionals: 1...1, json: true, examples: ["vaultctl ai providers test local"]) { arguments in
            let name = arguments.positionals[0]
            guard let provider = try AssistantStore.providers(in: try VaultLocation.open(arguments)).first(where: { $0.name == name }) else {
                throw AssistantError(.unknownProvider, "no provider '\(name)' ('vaultctl ai providers list')")
            }
            try HTTPClient().probe(provider.endpoint)
            if arguments.has("--json") { Output.json(["name": name, "reachable": true]); return }
            Output.line("\(name) answers at \(provider.endpoint).")
        }

    static let providersRemove = Command("ai providers rm", synopsis: "remove a model provider", usage: "NAME", about: """
        Removes the provider (recorded as ai.provider-rm). Policies that name it keep the name; a
        lane whose providers are all gone is refused until another is listed.
        """, options: Credentials.options, positionals: 1...1, json: true, examples: ["vaultctl ai providers rm local"]) { arguments in
            let name = arguments.positionals[0]
            let vault = try VaultLocation.unlock(arguments)
            guard try vault.transaction({ tx in try AssistantStore(tx).removeProvider(name) }) else {
                throw AssistantError(.unknownProvider, "no provider '\(name)'")
            }
            if arguments.has("--json") { Output.json(["removed": name]); return }
            Output.line("Removed provider \(name).")
        }

    static let lanes = Command("ai lanes", synopsis: "each lane's provider under a project's policy", about: """
        For each lane: the provider the project's policy chooses, or why none may be used. A
        privileged project uses none until its owner allows a local provider for the lane.
        """, options: Credentials.options + [projectOption, WritingContext.purposeOption], json: true,
        examples: ["vaultctl ai lanes --project \"The harbour\""]) { arguments in
            let (context, project) = try openProject(arguments)
            defer { context.end() }
            // Routing only: nothing is sent, so no header value is opened.
            let policy = try context.vault.transaction { tx in try AssistantStore(tx).policy(of: project) }
            let providers = try AssistantStore.providers(in: context.vault.vault)
            let rows = Lane.known.map { lane -> [String: Any] in
                switch policy.route(lane, privileged: project.isPrivileged, providers: providers) {
                case .provider(let chosen): ["lane": lane.name, "provider": chosen.destination.description]
                case .refused(let reason): ["lane": lane.name, "refused": reason]
                }
            }
            if arguments.has("--json") {
                Output.json(["local_only": policy.localOnly, "on_finding": policy.onFinding.rawValue, "privileged": project.isPrivileged, "lanes": rows])
                return
            }
            Output.line("Policy: \(policy.localOnly ? "local providers only" : "any provider"), findings \(policy.onFinding == .redact ? "redacted" : "refuse the call")"
                        + (project.isPrivileged ? ", privileged (nothing leaves unless allowed)" : ""))
            for row in rows { Output.line("\(row["lane"]!)\t\(row["provider"] ?? "refused: \(row["refused"]!)")") }
        }

    static let allowLocal = Command("ai allow-local", synopsis: "let a local provider take a privileged lane", usage: "PROVIDER --project P --lane LANE",
        about: """
        Lets a privileged project send its text on LANE to PROVIDER, which must have been added
        with --local (a provider not marked local never receives privileged content). Recorded as
        ai.allow-local. --withdraw takes the allowance back.
        """, options: Credentials.options + [projectOption, WritingContext.purposeOption,
                                             Option("--lane", value: "LANE", "the lane (coauthor.draft, coauthor.revise, ...)"),
                                             Option("--withdraw", "take the allowance back")],
        positionals: 1...1, json: true, examples: ["vaultctl ai allow-local local --project \"Ward notes\" --lane coauthor.summarize"]) { arguments in
            guard let laneName = arguments.value("--lane") else { throw UsageError(message: "give --lane LANE", usage: arguments.usage) }
            let lane = try Lane.named(laneName)
            let (context, project) = try openProject(arguments)
            defer { context.end() }
            let allowed = !arguments.has("--withdraw")
            try context.vault.transaction { tx in try AssistantStore(tx).allowLocal(arguments.positionals[0], lane: lane, for: project, allowed: allowed) }
            if arguments.has("--json") { Output.json(["provider": arguments.positionals[0], "lane": lane.name, "allowed": allowed]); return }
            Output.line("\(allowed ? "Allowed" : "Withdrew") \(arguments.positionals[0]) for \(lane.name).")
        }

    static let run = Command("ai run", synopsis: "run a lane on a document into a branch", usage: "LANE --project P --doc D", about: """
        Runs LANE on document D: the project's policy chooses a provider, the prompt (the house
        style, the lane's task, --instruction, the document) passes the egress funnel, whose
        decision is printed before anything is sent; the answer streams in (progress on standard
        error) and must pass the output contract. A passing answer becomes a branch of kind
        ai-suggestion against the document's current version ('vaultctl branch show' shows it,
        'branch adopt' takes it); the document itself is not touched. An answer that echoes its
        prompt makes no branch and exits 1. Every run is recorded ('vaultctl ai log').

        \(WritingContext.sessionNote)
        """, options: Credentials.options + [projectOption, Option("--doc", value: "DOC", "the document (its title or id)"),
                                             Option("--instruction", value: "TEXT", "what to ask for (revise: how)"), WritingContext.purposeOption],
        positionals: 1...1, json: true, examples: [
            "vaultctl ai run coauthor.draft --project \"The harbour\" --doc Arrival",
            "vaultctl ai run coauthor.revise --project Harbour --doc Arrival --instruction \"cut it by half\"",
        ]) { arguments in
            let lane = try Lane.named(arguments.positionals[0])
            guard let doc = arguments.value("--doc") else { throw UsageError(message: "give --doc DOC", usage: arguments.usage) }
            let (context, project) = try openProject(arguments)
            defer { context.end() }
            let node = try context.node(doc, in: project)
            let access = try context.requireAccess(for: project)
            let (policy, providers) = try context.vault.transaction { tx in (try AssistantStore(tx).policy(of: project), try AssistantStore(tx).providers()) }
            let progress = RunProgress(json: arguments.has("--json"))
            let suggestion = try AIService(vault: context.vault, providers: providers)
                .suggest(lane, project: project, document: node.id, access: access, policy: policy, instruction: arguments.value("--instruction"),
                         progress: progress.show)
            progress.finish()
            let number = try suggestion.branch.map { branch in
                try context.store(for: project) { try $0.branches(of: node.id, in: project.id).firstIndex { $0.id == branch.id }.map { $0 + 1 } ?? 0 }
            }
            if arguments.has("--json") {
                var result: [String: Any] = ["lane": lane.name, "provider": suggestion.call.provider.destination.description,
                                             "decision": suggestion.call.egress.decision.rawValue, "interaction": suggestion.interaction.hex]
                if let branch = suggestion.branch { result["branch"] = branch.id.hex; result["branch_number"] = number ?? 0 }
                if let failure = suggestion.result.failure { result["failed"] = failure.rawValue }
                Output.json(result)
            } else if let branch = suggestion.branch {
                Output.line("Suggestion: \(WritingContext.term(.branch, project.register)) \(number ?? 0) of \(node.title) (\(branch.id)); "
                            + "'vaultctl branch show' shows it, 'vaultctl branch adopt' takes it.")
            }
            if let failure = suggestion.result.failure {
                throw CommandError(message: "the answer failed the output contract (\(failure.rawValue)): no branch was made", exitCode: .failure)
            }
        }

    static let log = Command("ai log", synopsis: "list the model calls made on documents", about: """
        Lists the AI interactions, newest first: when, lane, provider, outcome (suggested,
        failed:REASON) and the branch made. Prompts and answers are sealed in their project and
        never listed here.
        """, options: Credentials.options + [projectOption, WritingContext.purposeOption], json: true,
        examples: ["vaultctl ai log", "vaultctl ai log --project \"The harbour\" --json"]) { arguments in
            let context = try WritingContext(arguments)
            defer { context.end() }
            let project = try arguments.value("--project").map { try context.project($0) }
            let rows = try context.vault.transaction { tx in try AssistantStore(tx).interactions(of: project?.id) }
            if arguments.has("--json") {
                Output.json(rows.map { row -> [String: Any] in
                    ["id": row.id.hex, "time": row.createdAt, "project": row.project.hex, "document": row.document.hex, "lane": row.lane,
                     "provider": row.provider, "outcome": row.outcome, "branch": row.branch?.hex ?? NSNull()]
                })
                return
            }
            if rows.isEmpty { Output.line("No AI interactions."); return }
            for row in rows {
                Output.line("\(Output.timestamp(row.createdAt))\t\(row.lane)\t\(row.provider)\t\(row.outcome)\t\(row.branch?.hex ?? "-")")
            }
        }

    // MARK: Helpers

    static func openProject(_ arguments: ParsedArguments) throws -> (WritingContext, WritingProject) {
        guard let name = arguments.value("--project") else { throw UsageError(message: "give --project PROJECT", usage: arguments.usage) }
        let context = try WritingContext(arguments)
        return (context, try context.project(name))
    }

    static func json(_ provider: ProviderSummary) -> [String: Any] {
        ["name": provider.name, "kind": provider.kind.rawValue, "destination": provider.destination,
         "url": provider.url, "local": provider.isLocal, "headers": provider.headerNames]
    }

    /// Prints the funnel's decision as soon as it is made, then a count of what streams in.
    final class RunProgress {
        let json: Bool
        var characters = 0
        var nextShown = MonotonicDeadline.after(0.2)

        init(json: Bool) { self.json = json }

        func show(_ progress: AIService.Progress) {
            switch progress {
            case .decided(let provider, let record):
                let found = record.findings.isEmpty ? "nothing found" : "found " + record.findings.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", ")
                let line = "Egress: \(record.decision.rawValue) to \(provider.destination) (\(record.payloadSize) bytes, \(found))"
                if json { Output.note(line) } else { Output.line(line) }
            case .event(.text(let piece)):
                characters += piece.count
                if nextShown.hasPassed {
                    nextShown = .after(0.2)
                    Output.progress("\rReceiving: \(characters) characters")
                }
            case .event(.finish(let reason)):
                Output.progress("\rReceived \(characters) characters (\(reason.rawValue)).\n")
            case .event:
                break
            }
        }

        func finish() {}
    }
}
