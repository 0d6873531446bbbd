import CryptoVault
import Foundation
import Writing

/// The assistant's tables (`AssistantSchema`): this type is their one reader and writer. Every
/// change is made in a vault transaction with its audit entry; what is read back is checked again
/// as anything read from the file is.
public struct AssistantStore {
    public let transaction: VaultTransaction
    public let clock: VaultClock

    public init(_ transaction: VaultTransaction, clock: VaultClock = .system) {
        self.transaction = transaction
        self.clock = clock
    }

    var database: Database { transaction.database }

    // MARK: Providers

    public static let maximumProviders = 64

    public func addProvider(_ provider: ProviderConfiguration) throws {
        guard try database.queryOne("SELECT 1 AS taken FROM assistant_providers WHERE name = ?", [.text(provider.name)]) == nil else {
            throw AssistantError(.invalidSetting, "a provider named '\(provider.name)' is already added")
        }
        guard try providers().count < Self.maximumProviders else { throw AssistantError(.invalidSetting, "at most \(Self.maximumProviders) providers") }
        guard !provider.isLocal || provider.endpoint.reach == .loopback || provider.endpoint.reach == .privateNetwork else {
            throw AssistantError(.invalidSetting, "a local provider is on loopback or a private network")
        }
        try database.query("INSERT INTO assistant_providers (name, kind, url, model, local, added_at) VALUES (?, ?, ?, ?, ?, ?)",
                           [.text(provider.name), .text(provider.kind.rawValue), .text(provider.endpoint.description), .text(provider.model),
                            .integer(provider.isLocal ? 1 : 0), .integer(clock.now())])
        try transaction.record(.aiProviderAdd, details: [.init("name", provider.name), .init("kind", provider.kind.rawValue),
                                                         .init("destination", provider.destination.description),
                                                         .init("local", provider.isLocal ? "yes" : "no"), .init("reach", provider.endpoint.reach.rawValue)])
    }

    /// Removes `name`; false when no provider has it (nothing recorded then).
    @discardableResult
    public func removeProvider(_ name: String) throws -> Bool {
        guard try providers().contains(where: { $0.name == name }) else { return false }
        try database.query("DELETE FROM assistant_providers WHERE name = ?", [.text(name)])
        try transaction.record(.aiProviderRemove, details: [.init("name", name)])
        return true
    }

    public func providers() throws -> [ProviderConfiguration] { try Self.providers(in: database) }

    /// The providers, read without unlocking (nothing in the table is sealed).
    public static func providers(in vault: Vault) throws -> [ProviderConfiguration] { try vault.read { try providers(in: $0) } }

    static func providers(in database: Database) throws -> [ProviderConfiguration] {
        try database.query("SELECT name, kind, url, model, local FROM assistant_providers ORDER BY added_at, name").map { row in
            guard let kind = ProviderConfiguration.Kind(rawValue: try row.text("kind")) else {
                throw AssistantError(.damagedRecord, "a stored provider has an unknown kind")
            }
            return try ProviderConfiguration(name: try row.text("name"), kind: kind, url: try row.text("url"), model: try row.text("model"),
                                             isLocal: try row.integer("local") == 1)
        }
    }

    // MARK: Policies

    /// The project's policy: its own if set, else its register's default.
    public func policy(of project: WritingProject) throws -> AIPolicy {
        guard let row = try database.queryOne("SELECT policy FROM assistant_policies WHERE project_id = ?", [.blob(project.id.bytes)]) else {
            return .default(for: project.register, privileged: project.isPrivileged)
        }
        return try AIPolicyEncoding.decode(try row.text("policy"))
    }

    public func setPolicy(_ policy: AIPolicy, of project: WritingProject, action: AuditAction = .aiPolicySet, details: [VaultEvent.Detail] = []) throws {
        try database.query("INSERT INTO assistant_policies (project_id, policy, updated_at) VALUES (?, ?, ?) "
                           + "ON CONFLICT (project_id) DO UPDATE SET policy = excluded.policy, updated_at = excluded.updated_at",
                           [.blob(project.id.bytes), .text(AIPolicyEncoding.encode(policy)), .integer(clock.now())])
        try transaction.record(action, compartment: project.compartment.id, subject: project.id,
                               details: details + [.init("policy_sha256", ByteEncoding.hex(SHA256.hash(Array(AIPolicyEncoding.encode(policy).utf8))))])
    }

    /// A privileged project's owner allows (or withdraws) a local provider for a lane: an `ai.allow-local` entry.
    public func allowLocal(_ providerName: String, lane: Lane, for project: WritingProject, allowed: Bool = true) throws {
        guard let provider = try providers().first(where: { $0.name == providerName }) else {
            throw AssistantError(.unknownProvider, "no provider '\(providerName)' ('vaultctl ai providers list')")
        }
        guard provider.isLocal || !allowed else {
            throw AssistantError(.refusedByPolicy, "provider \(providerName) is not marked local: privileged content never goes to it")
        }
        var policy = try policy(of: project)
        var names = policy.privilegedAllowances[lane.name] ?? []
        if allowed { names.insert(providerName) } else { names.remove(providerName) }
        policy.privilegedAllowances[lane.name] = names.isEmpty ? nil : names
        try setPolicy(policy, of: project, action: .aiAllowLocal,
                      details: [.init("lane", lane.name), .init("provider", provider.destination.description), .init("allowed", allowed ? "yes" : "no")])
    }

    // MARK: Interactions

    public struct InteractionRow: Sendable {
        public let id: AIInteractionID
        public let project: ProjectID
        public let document: NodeID
        public let lane: String
        public let provider: String
        public let outcome: String
        public let branch: BranchID?
        public let createdAt: Int64
    }

    /// Stores an interaction: its row, and its record sealed in the project's compartment.
    func addInteraction(_ id: AIInteractionID, project: WritingProject, record: AIInteractionRecord) throws {
        let parts = record.parts()
        try database.query("INSERT INTO assistant_interactions (id, project_id, document_id, lane, provider, outcome, branch_id, parts, created_at) "
                           + "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                           [.blob(id.bytes), .blob(project.id.bytes), .blob(record.document), .text(record.lane), .text(record.provider),
                            .text(record.outcome), record.branch.isEmpty ? .null : .blob(record.branch), .integer(Int64(parts.count)), .integer(clock.now())])
        for (index, part) in parts.enumerated() {
            try transaction.sealRecord(part, at: try Self.location(id, part: index), in: project.compartment)
        }
    }

    static func location(_ id: AIInteractionID, part: Int) throws -> SealedRecordLocation {
        try SealedRecordLocation(module: "assistant", table: "assistant_interactions", record: id, field: "part\(part)")
    }

    /// The interactions, newest first (at most `limit`), of one project or all.
    public func interactions(of project: ProjectID? = nil, limit: Int = 200) throws -> [InteractionRow] {
        let filter = project.map { _ in "WHERE project_id = ? " } ?? ""
        return try database.query("SELECT id, project_id, document_id, lane, provider, outcome, branch_id, created_at FROM assistant_interactions "
                                  + filter + "ORDER BY created_at DESC, rowid DESC LIMIT ?",
                                  (project.map { [SQLValue.blob($0.bytes)] } ?? []) + [.integer(Int64(limit))]).map { row in
            let branchBytes = try row.blob("branch_id")
            let branch: [UInt8]? = branchBytes.isEmpty ? nil : branchBytes
            return InteractionRow(id: try AIInteractionID(bytes: try row.blob("id")), project: try ProjectID(bytes: try row.blob("project_id")),
                                  document: try NodeID(bytes: try row.blob("document_id")), lane: try row.text("lane"), provider: try row.text("provider"),
                                  outcome: try row.text("outcome"), branch: try branch.map { try BranchID(bytes: $0) }, createdAt: try row.integer("created_at"))
        }
    }
}

/// A policy as stored: canonical JSON (keys sorted) of lane and provider names and flags.
enum AIPolicyEncoding {
    static func encode(_ policy: AIPolicy) -> String {
        let object: [String: Any] = ["lanes": policy.laneProviders, "local_only": policy.localOnly, "on_finding": policy.onFinding.rawValue,
                                     "allow_local": policy.privilegedAllowances.mapValues { $0.sorted() }]
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    static func decode(_ text: String) throws -> AIPolicy {
        guard let object = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any],
              let lanes = object["lanes"] as? [String: [String]], let localOnly = object["local_only"] as? Bool,
              let onFinding = (object["on_finding"] as? String).flatMap(AIPolicy.OnFinding.init(rawValue:)),
              let allowed = object["allow_local"] as? [String: [String]] else {
            throw AssistantError(.damagedRecord, "a stored AI policy is not well formed")
        }
        return AIPolicy(laneProviders: lanes, localOnly: localOnly, onFinding: onFinding, privilegedAllowances: allowed.mapValues(Set.init))
    }
}
