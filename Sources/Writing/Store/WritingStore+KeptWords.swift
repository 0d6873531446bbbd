import CryptoVault

/// Where words go that a save could not write because the project became view-only while the
/// writer typed (SECURITY.md §16.5; attack review s6, A6): the owner of the project made this
/// device a viewer, sync set the mark at once (an editor's hold holds content, not roles), and the
/// next save of the open editor is refused. Refusing is right (the owner's device would refuse the
/// records), but the words the writer typed since the last save then existed only in a browser tab.
public struct KeptWords: Sendable {
    /// The new project of this vault's own that holds them.
    public let project: WritingProject
    /// Its one document, holding the words under the document's title.
    public let document: NodeID
    /// The new project's name.
    public let name: String
}

extension WritingStore {
    /// The suffix a kept project's name takes after the view-only project's name.
    static let keptSuffix = " (your words, kept)"

    /// Keeps `content`, refused as the new text of `document` because its project is view-only
    /// here, in a new project of this vault's own: the same register and kind, never privileged (a
    /// view-only project never is: privileged projects sync only with the owner's devices), named
    /// after the project with `keptSuffix`, one document under the document's title holding the
    /// words (new block ids: a block id is one document's). Nothing of the view-only project
    /// changes. Recorded as any project and write are (`writing.project-create`, whose details name
    /// the project the words were refused in, `kept-from`; `writing.content-write`).
    public func keepRefusedWords(_ content: DocumentContent, of document: NodeID, in projectID: ProjectID) throws -> KeptWords {
        let source = try project(projectID)
        guard source.isViewOnly, !source.isPrivileged else {
            throw WritingError(.invalidText, "only words refused by a view-only project are kept this way")
        }
        let title = try node(document, in: projectID).title
        let name = Self.keptName(try self.name(of: source))
        let kept = try createProject(named: name, register: source.register, kind: source.kind, privileged: false,
                                     details: [.init("kept-from", source.id.hex)])
        let node = try addNode(.scene, titled: title, in: kept.id)
        let fresh = DocumentContent(blocks: try content.blocks.map { Block(id: try BlockID.random(), kind: $0.kind, text: $0.text, rows: $0.rows) })
        try replaceDocumentContent(of: node.id, in: kept.id, with: fresh)
        return KeptWords(project: kept, document: node.id, name: name)
    }

    /// `name` with the suffix, or the suffix's words alone when that would be too long for a name.
    static func keptName(_ name: String) -> String {
        let named = name + keptSuffix
        return named.utf8.count <= WritingLimits.maximumNameBytes ? named : "Your words, kept"
    }
}
