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

    /// Adds `provider`. Its headers' values are sealed in the vault (records in the compartment
    /// `assistant provider keys`, made the first time one is needed), read where they lie in locked
    /// memory; the row keeps only their names. `ai.provider-add` names the headers, never a value.
    public func addProvider(_ provider: ProviderConfiguration) throws {
        guard try database.queryOne("SELECT 1 AS taken FROM assistant_providers WHERE name = ?", [.text(provider.name)]) == nil else {
            throw AssistantError(.invalidSetting, "a provider named '\(provider.name)' is already added")
        }
        guard try summaries().count < Self.maximumProviders else { throw AssistantError(.invalidSetting, "at most \(Self.maximumProviders) providers") }
        guard !provider.isLocal || provider.endpoint.reach == .loopback || provider.endpoint.reach == .privateNetwork else {
            throw AssistantError(.invalidSetting, "a local provider is on loopback or a private network")
        }
        guard provider.headers.count <= Self.maximumHeaders, Set(provider.headerNames.map { $0.lowercased() }).count == provider.headers.count else {
            throw AssistantError(.invalidSetting, "at most \(Self.maximumHeaders) headers, each name once")
        }
        let secrets = provider.headers.isEmpty ? nil : try secretsCompartment()
        try database.query("INSERT INTO assistant_providers (name, kind, url, model, local, added_at, header_names, secrets_compartment) "
                           + "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                           [.text(provider.name), .text(provider.kind.rawValue), .text(provider.endpoint.description), .text(provider.model),
                            .integer(provider.isLocal ? 1 : 0), .integer(clock.now()), .text(Self.encodeNames(provider.headerNames)),
                            secrets.map { .blob($0.id.bytes) } ?? .null])
        for (index, header) in provider.headers.enumerated() {
            try transaction.sealRecord(header.value, at: try Self.headerLocation(provider.name, index), in: secrets!)
        }
        try transaction.record(.aiProviderAdd, details: [.init("name", provider.name), .init("kind", provider.kind.rawValue),
                                                         .init("destination", provider.destination.description),
                                                         .init("local", provider.isLocal ? "yes" : "no"), .init("reach", provider.endpoint.reach.rawValue),
                                                         .init("headers", provider.headerNames.joined(separator: ","))])
    }

    public static let maximumHeaders = 8

    /// Removes `name` and the sealed values of its headers; false when no provider has it (nothing
    /// recorded then).
    @discardableResult
    public func removeProvider(_ name: String) throws -> Bool {
        guard let row = try database.queryOne("SELECT header_names, secrets_compartment FROM assistant_providers WHERE name = ?", [.text(name)]) else {
            return false
        }
        let names = try Self.decodeNames(try row.text("header_names"))
        if !names.isEmpty, let secrets = try? transaction.vault.compartment(withID: try CompartmentID(bytes: try row.blob("secrets_compartment"))) {
            for index in names.indices { try? transaction.removeRecord(at: try Self.headerLocation(name, index), in: secrets) }
        }
        try database.query("DELETE FROM assistant_providers WHERE name = ?", [.text(name)])
        try transaction.record(.aiProviderRemove, details: [.init("name", name)])
        return true
    }

    /// The providers, ready to call: each header's value opened from the vault into locked memory
    /// (a `record.open` entry). A value that cannot be opened (its record removed, its compartment
    /// destroyed) is an error that names the provider and the header, never a value.
    public func providers() throws -> [ProviderConfiguration] {
        try database.query("SELECT name, kind, url, model, local, header_names, secrets_compartment FROM assistant_providers ORDER BY added_at, name")
            .map { row in
                let names = try Self.decodeNames(try row.text("header_names"))
                let provider = try Self.configuration(row)
                guard !names.isEmpty else { return provider }
                let headers = try names.enumerated().map { index, headerName in
                    try ProviderConfiguration.Header(name: headerName, value: try openHeader(provider.name, headerName, index, row))
                }
                return try ProviderConfiguration(name: provider.name, kind: provider.kind, url: provider.endpoint.description,
                                                 model: provider.model, isLocal: provider.isLocal, headers: headers)
            }
    }

    private func openHeader(_ provider: String, _ header: String, _ index: Int, _ row: Row) throws -> SecureBytes {
        do {
            let secrets = try transaction.vault.compartment(withID: try CompartmentID(bytes: try row.blob("secrets_compartment")))
            return try transaction.openRecord(at: try Self.headerLocation(provider, index), in: secrets)
        } catch {
            throw AssistantError(.damagedRecord, "the value of header \(header) of provider \(provider) cannot be opened (removed or damaged): "
                                 + "remove the provider and add it again ('vaultctl ai providers rm \(provider)')")
        }
    }

    /// What may be shown of the providers (the console, `ai providers list`): no header value.
    public func summaries() throws -> [ProviderSummary] { try Self.summaries(in: database) }

    /// The providers' summaries, read without unlocking (nothing in the table is secret).
    public static func providerSummaries(in vault: Vault) throws -> [ProviderSummary] { try vault.read { try summaries(in: $0) } }

    /// The providers without their header values, for routing a lane (`ai lanes`) where nothing is sent.
    public static func providers(in vault: Vault) throws -> [ProviderConfiguration] {
        try vault.read { database in try database.query("SELECT name, kind, url, model, local FROM assistant_providers ORDER BY added_at, name").map(configuration) }
    }

    static func summaries(in database: Database) throws -> [ProviderSummary] {
        try database.query("SELECT name, kind, url, model, local, header_names FROM assistant_providers ORDER BY added_at, name").map { row in
            ProviderSummary(try configuration(row), headerNames: try decodeNames(try row.text("header_names")))
        }
    }

    static func configuration(_ row: Row) throws -> ProviderConfiguration {
        guard let kind = ProviderConfiguration.Kind(rawValue: try row.text("kind")) else {
            throw AssistantError(.damagedRecord, "a stored provider has an unknown kind")
        }
        return try ProviderConfiguration(name: try row.text("name"), kind: kind, url: try row.text("url"), model: try row.text("model"),
                                         isLocal: try row.integer("local") == 1)
    }

    /// Where header `index` of `provider` is sealed.
    static func headerLocation(_ provider: String, _ index: Int) throws -> SealedRecordLocation {
        try SealedRecordLocation(module: "assistant", table: "assistant_providers", recordID: Array(provider.utf8), field: "header\(index)")
    }

    /// The compartment provider secrets are sealed in: an ordinary one (its records open without a
    /// session), made in this transaction the first time a header is added.
    static let secretsCompartmentName = "assistant provider keys"

    private func secretsCompartment() throws -> VaultCompartment {
        if let id = try database.queryOne("SELECT secrets_compartment FROM assistant_providers WHERE secrets_compartment IS NOT NULL LIMIT 1"),
           let compartment = try? transaction.vault.compartment(withID: try CompartmentID(bytes: try id.blob("secrets_compartment"))) {
            return compartment
        }
        if let existing = try? transaction.vault.compartment(named: Self.secretsCompartmentName) { return existing }
        return try transaction.createCompartment(named: Self.secretsCompartmentName, register: .technical, privileged: false)
    }

    static func encodeNames(_ names: [String]) -> String {
        String(decoding: (try? JSONSerialization.data(withJSONObject: names)) ?? Data("[]".utf8), as: UTF8.self)
    }

    static func decodeNames(_ text: String) throws -> [String] {
        guard let names = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String], names.count <= maximumHeaders else {
            throw AssistantError(.damagedRecord, "a stored provider's header names are not well formed")
        }
        return names
    }

    // MARK: Policies

    /// The project's policy: its own if set, else its register's default.
    public func policy(of project: WritingProject) throws -> AIPolicy {
        guard let row = try database.queryOne("SELECT policy FROM assistant_policies WHERE project_id = ?", [.blob(project.id.bytes)]) else {
            return .default(for: project.register, privileged: project.isPrivileged)
        }
        return try AIPolicyEncoding.decode(try row.text("policy"))
    }

    /// Whether the project has a policy of its own (else its register's defaults apply).
    public func hasOwnPolicy(_ project: WritingProject) throws -> Bool {
        try database.queryOne("SELECT 1 AS set_here FROM assistant_policies WHERE project_id = ?", [.blob(project.id.bytes)]) != nil
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
        guard let provider = try summaries().first(where: { $0.name == providerName }) else {
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
