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
///
/// The writing store (the modules `writing` and `sync`) and the exchange's tables are registered as
/// mending their own damaged rows (`ModuleSchema.mendsDamagedRows`, SECURITY.md §19.10): a row of
/// theirs that breaks a CHECK opens the vault all the same, and the layers above say so and mend it:
/// the writing store's in memory (`WritingStoreHealth`, `repair --from`), the exchange's local-only
/// (`SyncExchangeHealth`, `repair`). Every other module's damage refuses the vault as a whole.
public enum VaultModules {
    public static let all: [ModuleSchema] = [
        WritingSchema.module.mendingDamagedRows(), AgentsSchema.module, AssistantSchema.module,
        SyncSchema.module.mendingDamagedRows(), SyncExchangeSchema.module.mendingDamagedRows(),
    ]
}
