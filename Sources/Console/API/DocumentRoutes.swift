import Foundation
import Registers
import Sync
import Writing

/// A document's blocks: read, and write (the whole list, as the editor holds it; blocks that did
/// not change keep their ids and are not resealed).
struct DocumentRoutes {
    let access: ProjectAccess

    func read(_ projectText: String, _ nodeText: String) throws -> [String: Any] {
        let project = try access.project(projectText)
        let id = try NodeID(hex: nodeText)
        let (node, content) = try access.store(for: project) { store in
            (try store.node(id, in: project.id), try store.documentContent(of: id, in: project.id))
        }
        var result = ProjectRoutes.nodeJSON(node, project.register)
        let fields = FieldEditor(project.register)
        result["blocks"] = content.blocks.map { block in
            var row = Self.json(block)
            // A field block is labelled in the register's words (a legal party's "Party type").
            if case .field(let slot) = block.kind { row["label"] = fields.label(slot) ?? slot.rawValue }
            return row
        }
        return result
    }

    /// `{blocks: [{id?, kind, text, rows?}], base?: [blocks]}`; a block without an id is new. `base`
    /// is the document as the editor last read or saved it: if the document is no longer that (a
    /// paired device's edit synced in, the CLI wrote), the page's words are not written over it but
    /// kept as a manual branch against the document as it now is, and the answer is 409 naming it.
    func write(_ projectText: String, _ nodeText: String, _ body: JSONBody) throws -> HTTPResponse {
        let project = try access.project(projectText)
        let id = try NodeID(hex: nodeText)
        let content = DocumentContent(blocks: try body.array("blocks").map(Self.block))
        let base = try body.object["base"].map { _ in DocumentContent(blocks: try body.array("base").map(Self.block)) }
        let outcome: WriteOutcome
        do {
            outcome = try write(content, of: id, in: project, base: base)
        } catch let error as WritingError where error.code == .viewOnly && base != nil {
            return try keptAsViewOnly(content, of: id, in: project, error)
        }
        switch outcome {
        case .written(let edited):
            let change = edited.change
            // The ids in order, so the page learns the ids of the blocks it added and does not reseal them again.
            return .json(["id": id.hex, "sealed": change.sealed, "kept": change.kept, "removed": change.removed,
                          "blocks": content.blocks.map(\.id.hex),
                          "snapshots": edited.autoSnapshots.map { ["id": $0.snapshot.id.hex, "document": $0.snapshot.document.hex,
                                                                    "sequence": $0.snapshot.sequence,
                                                                    "triggers": $0.triggers.map(\.rawValue).sorted()] as [String: Any] }])
        case .kept(let branch):
            return .json(["error": ConsoleErrorCode.conflict.rawValue, "branch": branch.id.hex,
                          "message": "this document changed elsewhere while you were typing: it shows that change now, and your words are kept as a branch"],
                         status: ConsoleErrorCode.conflict.status)
        }
    }

    /// Writes the page's text, or keeps it as a branch when the document is no longer `base`.
    private func write(_ content: DocumentContent, of id: NodeID, in project: WritingProject, base: DocumentContent?) throws -> WriteOutcome {
        try access.store(for: project) { store -> WriteOutcome in
            if let base, !(try store.document(id, in: project.id, holds: base)) {
                let now = try store.createSnapshot(of: id, in: project.id)
                return .kept(try store.createBranch(of: id, in: project.id, base: now.id, content: content, kind: .manual,
                                                       provenance: Self.keptProvenance))
            }
            // A save is the writer's edit: it takes the automatic snapshots it makes due (SECURITY.md §15.2).
            return .written(try store.editDocumentContent(of: id, in: project.id, with: content))
        }
    }

    /// The editor's save was refused because the project became view-only while the writer typed
    /// (its owner made this device a viewer; attack review s6, A6): the refusal stands (recorded by
    /// the store), and the words the page sent, when they are not what the document holds, are kept
    /// in a new project of the owner's own (`keepRefusedWords`), named in the 403 answer, so they
    /// are never only in a browser tab. A save without a base (no editor read the document) keeps
    /// nothing: that client has its words.
    private func keptAsViewOnly(_ content: DocumentContent, of id: NodeID, in project: WritingProject,
                                _ refusal: WritingError) throws -> HTTPResponse {
        let kept = try access.store(for: project) { store -> KeptWords? in
            guard try store.documentContent(of: id, in: project.id).blocks.map(Self.words) != content.blocks.map(Self.words) else { return nil }
            let kept = try store.keepRefusedWords(content, of: id, in: project.id)
            try ProjectsMadeHere.record(kept.project.id, in: store.transaction)
            return kept
        }
        guard let kept else { throw refusal }
        // Why: the devices a project waiting since its restore still waits for, or the owner's downgrade.
        let why = RestoreWaitRefusal.message(for: project, in: access.vault).map { $0 + ". Nothing was saved in it" }
            ?? "this project became view-only while you were typing (its owner made you a viewer), so nothing was saved in it"
        return .json(["error": ConsoleErrorCode.viewOnly.rawValue,
                      "message": why + "; your words are kept in a new project of your own, \"\(kept.name)\"",
                      "kept": ["project": kept.project.id.hex, "document": kept.document.hex, "name": kept.name]],
                     status: ConsoleErrorCode.viewOnly.status)
    }

    /// What a block says, whatever its id: the words the writer would lose.
    private static func words(_ block: Block) -> [String] { [BlockEncoding.name(of: block.kind), block.text] + block.rows.flatMap { $0 } }

    enum WriteOutcome {
        case written(EditedContent)
        case kept(Branch)
    }

    static let keptProvenance = "your words in the console, typed while the document changed elsewhere"

    static func json(_ block: Block) -> [String: Any] {
        ["id": block.id.hex, "kind": BlockEncoding.name(of: block.kind), "text": block.text, "rows": block.rows]
    }

    /// `value` as `T`, nil when absent or null, `.invalidBody` naming the field when of another type.
    static func field<T>(_ value: Any?, _ type: T.Type, _ name: String) throws(ConsoleError) -> T? {
        guard let value, !(value is NSNull) else { return nil }
        guard let typed = value as? T else { throw ConsoleError(.invalidBody, "a block's \(name) is not of the type it takes") }
        return typed
    }

    static func block(_ object: [String: Any]) throws -> Block {
        guard let kindName = object["kind"] as? String, let kind = BlockEncoding.kind(named: kindName) else {
            throw ConsoleError(.invalidBody, "a block's kind is not one the model knows")
        }
        guard let text = object["text"] as? String else { throw ConsoleError(.invalidBody, "a block's text must be a string") }
        // Absent (or null) is allowed; present of another type is refused, never quietly dropped.
        let rows = try field(object["rows"], [[String]].self, "rows") ?? []
        try refuseControlCharacters(in: [text] + rows.flatMap { $0 })
        let id = try field(object["id"], String.self, "id").map { try BlockID(hex: $0) } ?? BlockID.random()
        return Block(id: id, kind: kind, text: text, rows: rows)
    }

    /// Refuses a control character but tab and line feed (C0, DEL, C1) in a block's text or cells,
    /// as `doc write` does (review 17 s8, F11): printed to a terminal such characters erase, hide or
    /// retitle what the reader sees, and the store's text form could not be written back.
    static func refuseControlCharacters(in texts: [String]) throws(ConsoleError) {
        for text in texts {
            if let bad = text.unicodeScalars.first(where: { $0.properties.generalCategory == .control && $0 != "\t" && $0 != "\n" }) {
                throw ConsoleError(.invalidBody, "a block holds the control character U+\(String(bad.value, radix: 16, uppercase: true)); only tab and line feed are taken")
            }
        }
    }
}
