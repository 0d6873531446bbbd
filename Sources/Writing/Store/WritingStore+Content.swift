import CryptoVault

/// What `replaceDocumentContent` did: blocks sealed (new or changed), kept as they were (at most
/// moved), and removed.
public struct ContentChange: Sendable, Equatable {
    public let sealed: Int
    public let kept: Int
    public let removed: Int

    public var isEmpty: Bool { sealed == 0 && removed == 0 }
}

/// A document's current content: the API versions, branches and the CLI build on. Blocks keep
/// their ids across edits, so a one-block edit reseals one record.
extension WritingStore {
    /// The blocks of document `document`, in order (a privileged project's need a session).
    public func documentContent(of document: NodeID, in projectID: ProjectID) throws -> DocumentContent {
        let project = try self.project(projectID)
        try checkDocument(document, in: project)
        return try currentContent(of: document, in: project)
    }

    /// Makes `content` the document's content. Each block is matched to the stored one with its id:
    /// an equal one is kept (its position updated if it moved), a changed one is resealed, a new id
    /// is sealed as a new block, and a stored block whose id is absent is removed with its record.
    /// Refused before anything changes: a document over `maximumStoredDocumentBytes` or
    /// `maximumBlocks`, a block over `maximumBlockBytes`, an id twice, a block id of another
    /// document (`.notInProject`), a heading level outside 1 to 6, a table's cells on another kind.
    /// A write that changes anything joins this device's writing session (`recordEdit`, §15.5).
    @discardableResult
    public func replaceDocumentContent(of document: NodeID, in projectID: ProjectID, with content: DocumentContent) throws -> ContentChange {
        try replaceDocumentContent(of: document, in: projectID, with: content, recordingEdit: true, reading: { _ in })
    }

    /// `replaceDocumentContent`, handing `reading` the content the document had before the write
    /// (opened once, to diff against): a snapshot taken with the write uses it as its delta's base.
    /// `recordingEdit` false: a synced write, which joins no writing session here (§19.2, op 0x08).
    /// `entry`, when given, is handed the `writing.content-write` details instead of their being
    /// recorded: a snapshot taken with the write records them in its one entry (§15.2).
    func replaceDocumentContent(of document: NodeID, in projectID: ProjectID, with content: DocumentContent,
                                recordingEdit: Bool = true, reading: (DocumentContent) throws -> Void,
                                entry: (([VaultEvent.Detail]) -> Void)? = nil) throws -> ContentChange {
        try Self.check(content)
        let project = try writable(projectID, receiving: !recordingEdit)
        try checkDocument(document, in: project)
        // The stored blocks' ids are clear: only a new id can be another document's, and that is
        // refused before any record is opened (an edit of one block looks up no block).
        let storedRows = try blockRows(in: document, of: project)
        let storedIDs = Set(storedRows.map(\.id))
        for block in content.blocks where !storedIDs.contains(block.id) {
            if let owner = try blockTable.document(of: block.id), owner != document {
                throw WritingError(.notInProject, "block \(block.id) belongs to another document")
            }
        }
        let stored = try storedContent(storedRows, before: content, of: project)
        try reading(stored)
        let storedByID = Dictionary(uniqueKeysWithValues: stored.blocks.enumerated().map { ($1.id, (position: $0, block: $1)) })
        var sealed = 0, kept = 0, words = 0
        var sealedWords: [String] = []
        for (position, block) in content.blocks.enumerated() {
            let kind = BlockEncoding.name(of: block.kind)
            if let old = storedByID[block.id] {
                if old.position != position { try blockTable.setPosition(block.id, position) }
                if old.block == block { kept += 1; continue }
                if old.block.kind != block.kind { try blockTable.setKind(block.id, kind) }
                words -= Self.words(in: old.block)
            } else {
                try blockTable.insert(BlockTable.Row(id: block.id, position: position, kind: kind), in: document)
            }
            try seal(BlockEncoding.encode(block), at: try WritingRecord.block(block.id), of: project)
            sealedWords.append(Self.fingerprintedText(of: block))
            words += Self.words(in: block)
            sealed += 1
        }
        let remaining = Set(content.blocks.map(\.id))
        let gone = stored.blocks.filter { !remaining.contains($0.id) }
        for block in gone {
            try blockTable.delete(block.id)
            try remove(try WritingRecord.block(block.id), of: project)
            words -= Self.words(in: block)
        }
        try rememberWords(sealedWords, of: project)
        let change = ContentChange(sealed: sealed, kept: kept, removed: gone.count)
        if !change.isEmpty || stored.blocks.map(\.id) != content.blocks.map(\.id) {
            let details: [VaultEvent.Detail] = [.init("sealed", String(sealed)), .init("kept", String(kept)), .init("removed", String(gone.count))]
            if let entry { entry(details) } else { try record(.writingContentWrite, project, subject: document, details: details) }
            if recordingEdit { try recordEdit(of: document, in: project, words: words) }
        }
        return change
    }

    /// The content `rows` hold before `content` replaces it, opening only the blocks `content` changes
    /// or drops: a block whose record's digest says it holds exactly `content`'s block of that id is
    /// that block, unopened (SECURITY.md §14.2), so a one-paragraph edit of a long document opens one
    /// record, not all of them. Blocks sealed before digests were kept are opened, as every block was.
    func storedContent(_ rows: [BlockTable.Row], before content: DocumentContent, of project: WritingProject) throws -> DocumentContent {
        let incoming = Dictionary(uniqueKeysWithValues: content.blocks.map { ($0.id, $0) })
        var unchanged: [BlockID: Block] = [:]
        for row in rows {
            guard let block = incoming[row.id], try holds(BlockEncoding.encode(block), at: try WritingRecord.block(row.id), of: project) else { continue }
            guard BlockEncoding.name(of: block.kind) == row.kind else {
                throw WritingError(.damagedRecord, "block \(row.id)'s clear kind is not the kind sealed in it")
            }
            unchanged[row.id] = block
        }
        let changed = rows.filter { unchanged[$0.id] == nil }
        let opened = Dictionary(uniqueKeysWithValues: zip(changed.map(\.id), try openBlocks(changed, of: project)))
        return DocumentContent(blocks: rows.map { unchanged[$0.id] ?? opened[$0.id]! })
    }

    /// The stored blocks, opened; a sealed kind unlike its clear column is damage.
    func currentContent(of document: NodeID, in project: WritingProject) throws -> DocumentContent {
        DocumentContent(blocks: try openBlocks(try blockRows(in: document, of: project), of: project))
    }

    /// The blocks of `rows` opened in one read, in order (a search opens a whole project's at once).
    func openBlocks(_ rows: [BlockTable.Row], of project: WritingProject) throws -> [Block] {
        try open(try rows.map { try WritingRecord.block($0.id) }, of: project) { index, plaintext in
            let block = try BlockEncoding.decode(plaintext, id: rows[index].id)
            guard BlockEncoding.name(of: block.kind) == rows[index].kind else {
                throw WritingError(.damagedRecord, "block \(rows[index].id)'s clear kind is not the kind sealed in it")
            }
            return block
        }
    }

    /// Refuses an id of another project, a folder, or none (one row read, not the binder).
    func checkDocument(_ id: NodeID, in project: WritingProject) throws {
        guard let found = try nodeTable.row(id) else { throw WritingError(.nodeNotFound, "no document or folder \(id) in the project") }
        guard found.project == project.id else { throw WritingError(.notInProject, "\(id) belongs to another project") }
        guard found.row.kind == .scene else { throw WritingError(.wrongNodeKind, "\(id) is a folder: only a document has content") }
    }

    /// The caps, checked before any work: sizes first (summing lengths only), then each block's shape.
    static func check(_ content: DocumentContent) throws(WritingError) {
        try WritingLimits.checkBlocks(content.blocks.count, "new")
        let total = content.blocks.reduce(0) { $0 + BlockEncoding.textBytes($1) }
        guard total <= WritingLimits.maximumStoredDocumentBytes else {
            throw WritingError(.documentTooLarge, "the document is \(total) bytes; a document holds at most \(WritingLimits.maximumStoredDocumentBytes)")
        }
        var ids = Set<BlockID>()
        for block in content.blocks {
            let bytes = BlockEncoding.textBytes(block)
            guard bytes <= WritingLimits.maximumBlockBytes else {
                throw WritingError(.blockTooLarge, "a block holds \(bytes) bytes; at most \(WritingLimits.maximumBlockBytes) fit one block")
            }
            guard ids.insert(block.id).inserted else { throw WritingError(.invalidIdentifier, "block \(block.id) appears twice") }
            if case .heading(let level) = block.kind, !(1...6).contains(level) {
                throw WritingError(.invalidText, "a heading's level is 1 to 6, not \(level)")
            }
            guard block.kind == .table || block.rows.isEmpty else {
                throw WritingError(.invalidText, "only a table block has cells")
            }
        }
    }
}
