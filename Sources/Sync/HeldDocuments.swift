import CryptoVault
import Synchronization
import Writing

/// What a document's open editor stops sync from writing (SECURITY.md §19.9, review 17 F10): while a
/// client says a full-screen editor is open on a document (`SyncCoordinator.editorOpened`), records
/// that change it are verified, stored and merged into the replica as ever, but the document in the
/// writing store is left as the writer has it. The hold itself, with the text the writer's edits
/// are made from, is kept in the vault (`HeldBases`), so each commit of the writer's edits merges
/// them with what came meanwhile in whatever process makes it (`VaultSync.commitLocalChanges`).
/// This keeps, per vault and document, what only this process can do: the step that writes what
/// was held once the editor closes or its lease runs out (`release`).
///
/// A daemon killed while it holds loses only that step: the document stays as the writer had it
/// until the project's next sync step in any process, which commits the writer's edits merged
/// from the kept base and then writes the document as the records make it (unless an editor is
/// open on it again).
public final class HeldDocuments: Sendable {
    /// The process's holds: the daemon's exchange and its coordinator use these.
    public static let shared = HeldDocuments()

    /// Writes what is held for a document once its editor has closed (a sync step of its project).
    public typealias Apply = @Sendable () -> Void

    struct Key: Hashable {
        let vault: ObjectIdentifier
        let document: NodeID
    }

    struct Hold: @unchecked Sendable {
        // Unchecked: UnlockedVault is a thread-safe class; the value is only read under the lock.
        let vault: UnlockedVault
        let apply: Apply
    }

    private let holds = Mutex<[Key: Hold]>([:])

    public init() {}

    /// Sync left `document` as the writer has it though its records changed it: `apply` writes it
    /// once its editor has closed (a hold kept already keeps its step).
    func hold(_ document: NodeID, in vault: UnlockedVault, apply: @escaping Apply) {
        holds.withLock { holds in
            let key = Key(vault: ObjectIdentifier(vault), document: document)
            if holds[key] == nil { holds[key] = Hold(vault: vault, apply: apply) }
        }
    }

    /// The held changes to `document` were written into the store: nothing is held any more.
    func forget(_ document: NodeID, in vault: UnlockedVault) {
        _ = holds.withLock { $0.removeValue(forKey: Key(vault: ObjectIdentifier(vault), document: document)) }
    }

    /// The last editor on `document` closed: each vault's held changes to it are written now (the
    /// hold's step; it forgets the hold once written, and one that fails leaves it for the next
    /// step of the project, which writes it too).
    public func release(_ document: NodeID) {
        let applies = holds.withLock { $0.filter { $0.key.document == document }.map(\.value.apply) }
        for apply in applies { apply() }
    }

    /// Whether anything is held for `document` in any vault (for tests and status).
    public func isHolding(_ document: NodeID) -> Bool {
        holds.withLock { $0.keys.contains { $0.document == document } }
    }
}

/// What a sync step is told of open editors: the documents whose changes it holds, and how the
/// held changes are written later (`HeldDocuments.Apply`).
public struct SyncHold: Sendable {
    public let documents: Set<NodeID>
    public let apply: HeldDocuments.Apply

    public init(documents: Set<NodeID>, apply: @escaping HeldDocuments.Apply) {
        self.documents = documents
        self.apply = apply
    }
}
