import Sync
import Writing

/// The editor page says when it shows a document and when it leaves it (issue 17, SECURITY.md
/// §16.5, §19.9): while it is open, the daemon's `SyncCoordinator` holds what sync brings to that
/// document, and the live feed (`ChangeFeed`) leaves it out until the editor closes. A page can
/// vanish without a word (a crash, a lost network): every hold is a lease the page renews; one not
/// renewed for `leaseSeconds` ends by itself and what it held is delivered.
struct EditorHoldRoutes {
    let access: ProjectAccess
    let coordinator: SyncCoordinator
    /// How long a hold lasts without a renewal; the page renews at a third of it.
    static let leaseSeconds = 45.0

    /// `POST /api/projects/P/documents/D/editor`: the editor shows document D; answers the hold's token.
    func open(_ projectText: String, _ nodeText: String) throws -> [String: Any] {
        let project = try access.project(projectText)
        guard let id = try? NodeID(hex: nodeText) else { throw ConsoleError(.notFound, "no such document") }
        let node = try access.store(for: project) { store in try? store.node(id, in: project.id) }
        guard let node, node.kind == .scene else { throw ConsoleError(.notFound, "no such document") }
        return ["hold": coordinator.editorOpened(id, leaseSeconds: Self.leaseSeconds), "lease_seconds": Self.leaseSeconds]
    }

    /// `POST /api/editors/T`: the editor is still open; false when its hold had ended (the page opens another).
    func renew(_ tokenText: String) throws -> [String: Any] {
        ["held": coordinator.renewEditor(try Self.token(tokenText))]
    }

    /// `DELETE /api/editors/T`: the editor left its document (or the page closed).
    func close(_ tokenText: String) throws -> [String: Any] {
        coordinator.editorClosed(try Self.token(tokenText))
        return ["closed": true]
    }

    private static func token(_ text: String) throws -> Int {
        guard let token = Int(text), token > 0 else { throw ConsoleError(.notFound, "no such editor hold") }
        return token
    }
}
