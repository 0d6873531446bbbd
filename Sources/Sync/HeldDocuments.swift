import CryptoVault
import Synchronization
import Writing

/// What a document's open editor stops sync from writing (SECURITY.md §19.9, review 17 F10): while a
/// client says a full-screen editor is open on a document (`SyncCoordinator.editorOpened`), records
/// that change it are verified, stored and merged into the replica as ever, but the document in the
/// writing store is left as the writer has it; this keeps, per vault and document, the text the
/// writer's edits are made from (the store's text when the hold began, then as of each commit of
/// them), so that each commit of the writer's edits merges them with what came meanwhile
/// (`VaultSync.commitLocalChanges`) rather than undoing it. When the editor closes, or its lease
/// runs out, the held changes are written (`release`): each hold carries the step that writes them.
///
/// This process's memory only: a daemon killed while it holds leaves the store as the writer had it,
/// and the next commit in a new process takes the difference from the records as the writer's
/// edits (what the records brought stays in the records and on the other devices; SECURITY.md
/// §19.9 says so).
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
        let project: ProjectID
        var base: DocumentContent
        let apply: Apply
    }

    private let holds = Mutex<[Key: Hold]>([:])

    public init() {}

    /// The text the writer's edits of `document` are made from, while sync holds changes to it.
    func base(of document: NodeID, in vault: UnlockedVault) -> DocumentContent? {
        holds.withLock { $0[Key(vault: ObjectIdentifier(vault), document: document)]?.base }
    }

    /// The documents of `project` sync holds changes to in `vault`.
    func documents(of project: ProjectID, in vault: UnlockedVault) -> Set<NodeID> {
        holds.withLock { holds in Set(holds.filter { $0.key.vault == ObjectIdentifier(vault) && $0.value.project == project }.keys.map(\.document)) }
    }

    /// Sync left `document` as the writer has it (`base`) though its records changed it; a hold
    /// kept already keeps its base.
    func hold(_ document: NodeID, of project: ProjectID, in vault: UnlockedVault, base: DocumentContent, apply: @escaping Apply) {
        holds.withLock { holds in
            let key = Key(vault: ObjectIdentifier(vault), document: document)
            if holds[key] == nil { holds[key] = Hold(vault: vault, project: project, base: base, apply: apply) }
        }
    }

    /// The writer's edits up to `content` are committed: later edits are made from it.
    func rebase(_ document: NodeID, in vault: UnlockedVault, to content: DocumentContent) {
        holds.withLock { $0[Key(vault: ObjectIdentifier(vault), document: document)]?.base = content }
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
