import Foundation
import Synchronization
import Sync

/// It always launches (issue 17, SECURITY.md §19.10): when a vault's writing store cannot be opened
/// at all, every command (the daemon too) works on a copy of the vault in memory whose writing store
/// is empty (`InMemoryStore`), says so on stderr and in its `--json` (`in_memory`: the reason), and
/// writes nothing to the vault's files; `vaultctl sync now` fills the copy from an own device, and
/// `vaultctl repair --from DEVICE` (which works on the vault itself) rebuilds the store.
///
/// Only the commands of `allowed` run in this mode: reads, status, sync from an own device, repair.
/// Every other is refused before it starts (`gate`), in the client and in the daemon alike: a change
/// made on the copy is lost at exit, and a change that reaches the vault's files through it (a
/// bundle's header rewritten for a key version only the copy knows, review 17 F14) loses data.
enum InMemoryMode {
    private struct State {
        var bypassed = false
        var reason: String?
        var copies: [String: String] = [:]
        var healthy = Set<String>()
        /// What the health check found wrong with a vault this process has not copied (yet).
        var problems: [String: String] = [:]
        var roots: [String] = []
    }

    private static let state = Mutex(State())

    /// The reason this process works in memory, or nil.
    static var reason: String? { state.withLock { $0.reason } }

    /// The commands that run in in-memory mode: an allow-list, so a command added later is refused
    /// here until someone decides it reads only. Each reads the copy and changes nothing the vault
    /// keeps; what they record on the copy is the ordinary read's entry (`vault.unlock`, `bundle.get`,
    /// `record.open` of an unprivileged compartment, `sync.record-receive`), and what would need a
    /// record the vault must keep (a privileged session, an egress, a checkpoint) the layers below
    /// refuse on the copy whatever the command (`InMemoryCopyMarker`).
    static let allowed: Set<String> = [
        "status", "unlock", "device", "compartment list", "ls", "get", "open", "inspect", "egress log",
        "audit log", "audit verify", "audit verify-export", "audit checkpoint", "audit key", "audit hash", "audit prove", "audit consistency",
        "audit check-inclusion", "audit check-consistency", "session list", "peers list", "peers ping", "peers discover",
        "serve", "console", "backup verify",
        "project list", "project show", "project versions", "doc list", "doc show", "history", "snapshot list", "snapshot show",
        "snapshot diff", "branch list", "branch show", "branch diff", "conflicts", "entry list", "entry show", "search",
        "lexicon", "template list", "snippet list", "ai lanes", "ai log", "ai policy", "ai providers list", "ai mcp list", "ai agents",
        // What the mode is for: read what an own device holds, and rebuild the store from it.
        "sync now", "sync status", "repair",
    ]

    /// The commands that run on the vault itself in this mode, not on a copy: pairing writes only the
    /// vault's own tables (the pairing, its trust, the audit log), never the writing store, and a
    /// device whose store is broken and that has no paired own device yet has no other way to
    /// `repair --from` (reviewer s17, F17-5).
    static let onTheVaultItself: Set<String> = ["pair host", "pair join"]

    /// Refuses `path` before it runs when the vault its arguments name is in in-memory mode and the
    /// command is not on `allowed` (exit 65, with the mode, the reason and what to run instead).
    /// Only the health check runs here (once per process): no copy is made for a refused command.
    static func gate(_ path: String, _ arguments: ParsedArguments) throws {
        if onTheVaultItself.contains(path) { return bypass() }
        guard !allowed.contains(path), let reason = reason(forVault: VaultLocation.realDirectory(arguments)) else { return }
        throw CommandError(message: "'\(path)' is refused in in-memory mode (\(reason)): it would change the vault, or leave an audit "
                           + "entry only in the copy in memory", exitCode: .dataError,
                           hint: "'vaultctl repair --from DEVICE' rebuilds the writing store from an own device; then run it again")
    }

    /// Why the vault in `real` is in in-memory mode, or nil: the reason of this process's copy of
    /// it, else the health check's (remembered either way).
    static func reason(forVault real: String) -> String? {
        state.withLock { state in
            guard !state.bypassed else { return nil }
            if state.copies[real] != nil { return state.reason }
            if let problem = state.problems[real] { return "the writing store cannot be opened: \(problem)" }
            guard !state.healthy.contains(real) else { return nil }
            guard let problem = WritingStoreHealth.problem(inDatabaseAt: (real as NSString).appendingPathComponent("vault.db")) else {
                state.healthy.insert(real)
                return nil
            }
            state.problems[real] = problem
            return "the writing store cannot be opened: \(problem)"
        }
    }

    /// For `doc show|list --read-only` on a copy `vaultctl repair` kept (review 17 s9, N-s9-6): its
    /// files are read into a copy in memory with its writing store as it was, and the command opens
    /// that copy; SQLite never opens the kept copy's own files (attack review s8, F2).
    static func readKeptCopy(_ real: String) throws {
        try state.withLock { state in
            guard state.copies[real] == nil else { return }
            let reason = "reading the copy 'vaultctl repair' kept in \(real) from a copy in memory"
            let (root, copy) = try InMemoryStore.makeCopy(of: real, reason: reason, emptyingWritingStore: false)
            if state.roots.isEmpty { atexit { InMemoryMode.removeCopies() } }
            state.roots.append(root)
            state.copies[real] = copy
            state.reason = reason
            Output.note("vaultctl: \(reason): nothing is written to it")
        }
    }

    /// This process's copy in memory of the vault in `real`, if it made one.
    static func copy(of real: String) -> String? { state.withLock { $0.copies[real] } }

    /// For `repair`, which rebuilds the vault's own store: the vault itself, never a copy.
    static func bypass() { state.withLock { $0.bypassed = true } }

    /// The folder a command opens for the vault in `real`: `real` itself, or, when its writing store
    /// cannot be opened, the copy in memory (made once per process, the notice printed then).
    static func directory(for real: String) -> String {
        state.withLock { state in
            guard !state.bypassed else { return real }
            if let copy = state.copies[real] { return copy }
            guard !state.healthy.contains(real) else { return real }
            guard let problem = state.problems[real] ?? WritingStoreHealth.problem(inDatabaseAt: (real as NSString).appendingPathComponent("vault.db")) else {
                state.healthy.insert(real)
                return real
            }
            state.reason = "the writing store cannot be opened: \(problem)"
            do {
                let (root, copy) = try InMemoryStore.makeCopy(of: real, reason: state.reason ?? problem)
                if state.roots.isEmpty { atexit { InMemoryMode.removeCopies() } }
                state.roots.append(root)
                state.copies[real] = copy
                Output.note("vaultctl: in-memory mode: the writing store of \(real) cannot be opened (\(problem)); this command works on a "
                            + "copy in memory and nothing it writes reaches the vault ('vaultctl repair --from DEVICE' rebuilds the store)")
                return copy
            } catch {
                Output.note("vaultctl: in-memory mode: the writing store of \(real) cannot be opened (\(problem)), and no copy in memory "
                            + "could be made: \(error)")
                return (real as NSString).appendingPathComponent("in-memory-copy-unavailable")
            }
        }
    }

    /// A command the daemon runs: the daemon made its own copy in memory when it started on a vault
    /// whose store cannot be opened; the client says so too.
    static func noteServed(_ real: String) {
        guard let reason = reason(forVault: real) else { return }
        let problem = reason.replacingOccurrences(of: "the writing store cannot be opened: ", with: "")
        Output.note("vaultctl: in-memory mode: the writing store of \(real) cannot be opened (\(problem)); the daemon serving it works on "
                    + "a copy in memory and nothing written reaches the vault ('vaultctl repair --from DEVICE' rebuilds the store)")
    }

    /// What must be of the vault itself (a backup, a whole-vault copy for a keeper) is refused in
    /// this mode: of the copy it would hold an empty writing store, and a keeper would take it as newer.
    static func refuse(_ what: String, _ arguments: ParsedArguments) throws {
        _ = VaultLocation.directory(arguments)
        guard let reason else { return }
        throw CommandError(message: "\(what) is not taken in in-memory mode (\(reason)): 'vaultctl repair --from DEVICE' first",
                           exitCode: .dataError)
    }

    static func removeCopies() {
        for root in state.withLock({ $0.roots }) { InMemoryStore.remove(root) }
    }
}
