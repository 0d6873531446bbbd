import Foundation
import Synchronization
import Sync

/// It always launches (issue 17, SECURITY.md §19.10): when a vault's writing store cannot be opened
/// at all, every command (the daemon too) works on a copy of the vault in memory whose writing store
/// is empty (`InMemoryStore`), says so on stderr and in its `--json` (`in_memory`: the reason), and
/// writes nothing to the vault's files; `vaultctl sync now` fills the copy from an own device, and
/// `vaultctl repair --from DEVICE` (which works on the vault itself) rebuilds the store.
enum InMemoryMode {
    private struct State {
        var bypassed = false
        var reason: String?
        var copies: [String: String] = [:]
        var healthy = Set<String>()
        var roots: [String] = []
    }

    private static let state = Mutex(State())

    /// The reason this process works in memory, or nil.
    static var reason: String? { state.withLock { $0.reason } }

    /// For `repair`, which rebuilds the vault's own store: the vault itself, never a copy.
    static func bypass() { state.withLock { $0.bypassed = true } }

    /// The folder a command opens for the vault in `real`: `real` itself, or, when its writing store
    /// cannot be opened, the copy in memory (made once per process, the notice printed then).
    static func directory(for real: String) -> String {
        state.withLock { state in
            guard !state.bypassed else { return real }
            if let copy = state.copies[real] { return copy }
            guard !state.healthy.contains(real) else { return real }
            guard let problem = WritingStoreHealth.problem(inDatabaseAt: (real as NSString).appendingPathComponent("vault.db")) else {
                state.healthy.insert(real)
                return real
            }
            state.reason = "the writing store cannot be opened: \(problem)"
            do {
                let (root, copy) = try InMemoryStore.makeCopy(of: real)
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
        guard let problem = WritingStoreHealth.problem(inDatabaseAt: (real as NSString).appendingPathComponent("vault.db")) else { return }
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
