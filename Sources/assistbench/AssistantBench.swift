import Assistant
import AuditChain
import CryptoVault
import Foundation
import PrivilegedSession
import Writing

/// The vault the figures are measured on, and the two measurements.
final class AssistantBench {
    let root = NSTemporaryDirectory() + "assistbench-\(UUID().uuidString)"
    let vault: UnlockedVault
    let project: WritingProject

    init() throws {
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        vault = try Vault.create(at: root + "/vault", passphrase: try SecureBytes(copying: Array("bench passphrase".utf8)),
                                 kdf: .argon2idFloor, journal: AuditLog(), modules: [WritingSchema.module, AssistantSchema.module])
        project = try vault.createWritingProject(named: "Harbour", register: .fiction, kind: .document)
        // A vault with privileged notes has their fingerprints (SECURITY.md §11.7): the funnel loads
        // and checks them on every call. 20,000 is about 100 notes of 200 words.
        var generator = SystemRandomNumberGenerator()
        try vault.transaction { tx in try tx.storeLeakFingerprints((0..<20_000).map { _ in generator.next() }) }
    }

    deinit { try? FileManager.default.removeItem(atPath: root) }

    // MARK: Routing overhead

    func routingOverhead() throws {
        section("Assistant routing overhead (policy, transcript, funnel + leak guard, audit, restore), 10,000-word prompt")
        let prompt = Self.words(10_000)
        let request = ChatRequest(messages: [.system("You are a careful editor."), .user(PromptText(prompt))], maximumTokens: 64)
        let provider = try ProviderConfiguration(name: "instant", kind: .openai, url: "http://127.0.0.1:9", model: "none", isLocal: true)
        let service = AIService(vault: vault, providers: [provider]) { InstantProvider(configuration: $0) }
        var decision = ""
        var samples: [Double] = []
        for run in 0..<23 {
            let start = VaultClock.system.monotonic()
            let call = try service.run(.coauthorDraft, project: project, policy: AIPolicy(), request: request)
            let elapsed = (VaultClock.system.monotonic() - start) * 1000
            if run >= 3 { samples.append(elapsed) }   // the first runs warm caches and the database
            decision = "\(call.egress.decision.rawValue), \(call.egress.findings.values.reduce(0, +)) findings, \(call.egress.payloadSize) bytes"
        }
        let sorted = samples.sorted()
        note("\(samples.count) runs after 3 warm-up runs; the prompt: \(decision); 20,000 privileged fingerprints in the vault")
        report("routing overhead, fastest", sorted[0], "ms")
        report("routing overhead, slowest", sorted[sorted.count - 1], "ms")
        verdict("routing overhead, median", sorted[sorted.count / 2], "ms", atMost: 20)
        let guardOnly = median(10) { _ = LeakGuard().scan(Array(prompt.utf8)) }
        report("of which: leak-guard identifier scan alone, median", guardOnly, "ms")
        let funnel = try median(10) { _ = try EgressFunnel(vault: vault) }
        report("of which: making the funnel (fingerprints, pairings)", funnel, "ms")
        let index = try median(10) { _ = try PrivilegedFingerprints.index(of: vault) }
        report("   of which: reading the fingerprint index", index, "ms")
        let rows = try median(10) { _ = try vault.leakFingerprints() }
        report("      of which: the rows from SQLite", rows, "ms")
        let bare = try median(10) { _ = try EgressFunnel(vault: vault, leakGuard: LeakGuard()) }
        report("   of which: the rest (pairings, trust)", bare, "ms")
        let short = EgressRequest(destination: provider.destination, compartments: [project.compartment], payload: Array("chat-v1 short".utf8),
                                  placeholders: .numbered)
        let submit = try median(10) { _ = try EgressFunnel(vault: vault).submit(short) }
        report("a funnel made and a short prompt decided, recorded", submit, "ms")
        let entry = try median(10) { try vault.record(VaultEvent(.aiCall, compartmentID: project.compartment.id, details: [.init("bench", "x")])) }
        report("of which: one audit entry, committed", entry, "ms")
    }

    /// `count` words of prose with an identifier every 500 words (so redaction and restoration work).
    static func words(_ count: Int) -> String {
        let vocabulary = ["the", "ferry", "came", "in", "late", "and", "gulls", "followed", "it", "past", "breakwater", "where", "Mara",
                          "waited", "on", "pier", "counting", "boats", "rain", "did", "not", "stop", "lamps", "along", "quay", "harbour"]
        var words: [String] = []
        words.reserveCapacity(count)
        for index in 0..<count {
            if index % 500 == 499 { words.append(index % 1000 == 999 ? "sister\(index)@example.org" : "555-867-\(String(format: "%04d", index % 10_000))") }
            else { words.append(vocabulary[(index * 7 + index / 26) % vocabulary.count]) }
        }
        return words.joined(separator: " ")
    }

    // MARK: Time to first token

    func timeToFirstToken() throws {
        section("Assistant time to first streamed token: the whole path vs a direct request, same real model server")
        guard let base = ProcessInfo.processInfo.environment["MODEL_SERVER_URL"] else {
            note("SKIPPED: no model server. MODEL_SERVER_URL is unset: 'make bench' starts llama-cpp-python's server with SmolLM2")
            note("         (scripts/model-server run) when .build/venv has it ('make model-deps'); this run measured nothing here.")
            return
        }
        let model = ProcessInfo.processInfo.environment["MODEL_SERVER_MODEL"] ?? "smollm2-135m-instruct"
        let provider = try ProviderConfiguration(name: "local", kind: .openai, url: base.replacingOccurrences(of: "/v1", with: ""), model: model, isLocal: true)
        let system = "You are a careful editor. Answer with the text only."
        let user = "Continue in one sentence: the ferry came in late and the gulls followed it past the breakwater."
        let request = ChatRequest(messages: [.system(system), .user(PromptText(user))], maximumTokens: 2, temperature: 0)
        let direct = DirectRequest(endpoint: provider.endpoint, system: system, user: user, model: model, maximumTokens: 2)
        let service = AIService(vault: vault, providers: [provider])
        let whole = { try self.firstToken(service, request) }
        // Warm-up: the server caches the prompt's prefix; both paths then start from the same cache.
        for _ in 0..<2 { _ = try whole(); _ = try direct.firstToken() }
        var pairs: [(whole: Double, direct: Double)] = []
        for pair in 0..<40 {
            // A B, then B A: a drift in the server's speed during the run weighs on both sides alike.
            if pair % 2 == 0 { let a = try whole(); pairs.append((a, try direct.firstToken())) }
            else { let b = try direct.firstToken(); pairs.append((try whole(), b)) }
        }
        let wholeSorted = pairs.map(\.whole).sorted()
        let directSorted = pairs.map(\.direct).sorted()
        let differences = pairs.map { $0.whole - $0.direct }.sorted()
        note("\(pairs.count) pairs after 2 warm-up runs each; \(model) at \(provider.endpoint), 2-token answers, temperature 0")
        report("first token, direct request, median", directSorted[directSorted.count / 2], "ms")
        report("first token, whole path (lane, funnel, audit), median", wholeSorted[wholeSorted.count / 2], "ms")
        let routing = beforeSend.suffix(pairs.count).sorted()
        report("whole path: routing before the first byte is sent", routing[routing.count / 2], "ms")
        report("per-pair difference, fastest", differences[0], "ms")
        report("per-pair difference, slowest", differences[differences.count - 1], "ms")
        verdict("whole path minus direct, median of the pairs", differences[differences.count / 2], "ms", atMost: 10)
    }

    /// Milliseconds from the call to the first piece of text the provider streams; the time to the
    /// funnel's decision (recorded, just before the provider sends) goes to `beforeSend`.
    func firstToken(_ service: AIService, _ request: ChatRequest) throws -> Double {
        let start = VaultClock.system.monotonic()
        var first: Double?
        var decided: Double?
        _ = try service.run(.coauthorDraft, project: project, policy: AIPolicy(), request: request) { progress in
            if case .decided = progress { decided = VaultClock.system.monotonic() }
            if case .event(.text) = progress, first == nil { first = VaultClock.system.monotonic() }
        }
        guard let first, let decided else { throw AssistantError(.truncatedStream, "the model answered no text") }
        beforeSend.append((decided - start) * 1000)
        return (first - start) * 1000
    }

    var beforeSend: [Double] = []

    // MARK: Printing (vaultbench's format)

    func median(_ runs: Int, _ body: () throws -> Void) rethrows -> Double {
        var samples: [Double] = []
        for _ in 0..<runs {
            let start = VaultClock.system.monotonic()
            try body()
            samples.append((VaultClock.system.monotonic() - start) * 1000)
        }
        return samples.sorted()[samples.count / 2]
    }

    func report(_ name: String, _ value: Double, _ unit: String) {
        print("\(name.padding(toLength: 52, withPad: " ", startingAt: 0)) \(String(format: "%10.2f", value)) \(unit)")
    }

    func verdict(_ name: String, _ value: Double, _ unit: String, atMost target: Double) {
        report(name, value, "\(unit)   target <= \(Int(target)) \(unit)   \(value <= target ? "PASS" : "FAIL")")
    }

    func section(_ title: String) { print("\n== \(title)") }
    func note(_ text: String) { print("   \(text)") }
}

/// A provider that answers at once, so `run` measures everything but the model.
struct InstantProvider: ModelProvider {
    let configuration: ProviderConfiguration

    func stream(_ payload: ReleasedPayload, _ onEvent: (ChatEvent) throws -> Void) throws {
        try onEvent(.text("Call [PHONE-1] or write to [EMAIL-2]."))
        try onEvent(.finish(.stop))
    }
}
