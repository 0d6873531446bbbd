import CryptoVault

/// What a project's editor is: a block editor for document-shaped writing (session notes, memos,
/// briefs), or one text view for long-form work (a book). Presentation only: the store keeps blocks either way.
public enum ProjectKind: String, Sendable, CaseIterable {
    case document
    case longForm = "long-form"
}

/// A writing project: one register, one kind, and one compartment of its own, whose key seals every
/// title and text in it (so a healthcare or legal project is privileged by default, as its
/// register's compartment is). Its name is sealed in that compartment too, so it is not a field
/// here: `WritingStore.name(of:)` opens it (a privileged project's only in a session).
public struct WritingProject: Sendable, Equatable {
    public let id: ProjectID
    /// The register decides labels and visibility only; it can change with no data migration.
    public var register: Register
    public let kind: ProjectKind
    public let compartment: VaultCompartment
    public let createdAt: Int64
    /// Set when archived: an archived project is kept whole and read as before, and listed apart.
    public var archivedAt: Int64?
    /// Shared with this device to view only (by sync, SECURITY.md §19.9): every change is refused here.
    public var isViewOnly = false

    public var isPrivileged: Bool { compartment.isPrivileged }
    public var isArchived: Bool { archivedAt != nil }
}

/// The binder's two kinds of node: a Chapter is a folder (it holds chapters and scenes), a Scene is
/// a document (it holds blocks). The register names them ("section" and "document" for a lawyer).
public enum NodeKind: String, Sendable, CaseIterable {
    case chapter
    case scene
}

/// A chapter or scene of a project's binder: where it sits (its parent folder, or the top level,
/// and its order key among its siblings) is clear; its title is sealed.
public struct BinderNode: Sendable, Equatable {
    public let id: NodeID
    public let kind: NodeKind
    /// The folder it is in, or nil at the project's top level.
    public var parent: NodeID?
    /// Its place among its siblings (`OrderKey`): siblings sort by it, and a move gives only the
    /// moved node a new key.
    public var orderKey: String
    public var title: String
    public let createdAt: Int64
}
