import Assistant
import Agents
import CryptoVault
import Sync
import Writing

/// The schemas of the modules above CryptoVault that this appliance carries, in the order their
/// migrations run (SECURITY.md §4.1.1). Every open of a vault by vaultctl or the daemon passes this
/// one list, so a vault is never opened by the same binary with two different ideas of its schema.
/// A module adds its `ModuleSchema` here (the writing model, sync, the assistant) and never edits
/// another's list.
public enum VaultModules {
    public static let all: [ModuleSchema] = [WritingSchema.module, AgentsSchema.module, AssistantSchema.module, SyncSchema.module, SyncExchangeSchema.module]
}
