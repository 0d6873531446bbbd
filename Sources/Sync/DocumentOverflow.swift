import CryptoVault
import Writing

/// A document the merge makes longer than the writing store keeps (SECURITY.md §19.3, review 17 s8,
/// F12). Each device's records keep a document within `WritingLimits.maximumStoredDocumentBytes`,
/// but two devices adding to it while apart can together pass it: the store would refuse the merged
/// document, so the whole batch, on every device, at every exchange. So a replica **shows** such a
/// document as its blocks in reading order up to the first that would pass the bound, and keeps that
/// block and every one after it in **overflow branches** (syncConflict branches of the document,
/// named alike on every device), by a rule of the records alone. The records are unchanged: a commit
/// puts the blocks past the bound back after the owner's (`restored`), so they are never taken for
/// the owner's deletions, and a document brought back within the bound shows them again.
enum DocumentOverflow {
    static let label = "SealedVault document overflow v1"

    /// The bytes a document (or a branch's proposal) may hold: its blocks' text and cells.
    static let bound = WritingLimits.maximumStoredDocumentBytes

    /// `blocks` (a document's, in reading order, each whole as the records hold it) parted into
    /// those shown and those past the bound: the shown are the longest run from the start whose
    /// bytes (text and cells, `BlockOverflow.bytes`) fit the bound, and `keeping`, when given, is
    /// always shown and counted first (a conflict's block in its branch's proposal); every block
    /// after the first that does not fit is past.
    static func parted(_ blocks: [Block], keeping: BlockID? = nil) -> (shown: [Block], past: [Block]) {
        guard blocks.reduce(0, { $0 + BlockOverflow.bytes(of: $1) }) > bound else { return (blocks, []) }
        let kept = keeping.flatMap { id in blocks.first { $0.id == id } }
        var used = kept.map(BlockOverflow.bytes(of:)) ?? 0
        var shown: [Block] = [], past: [Block] = [], stopped = false
        for block in blocks {
            if block.id == kept?.id { shown.append(block); continue }
            let bytes = BlockOverflow.bytes(of: block)
            if !stopped, used + bytes <= bound {
                shown.append(block)
                used += bytes
            } else {
                stopped = true
                past.append(block)
            }
        }
        return (shown, past)
    }

    /// The blocks past the bound (`past`, in reading order, whole), in pieces as a document shows
    /// them (`pieces`: `BlockOverflow.split`), grouped in reading order into the proposals of the
    /// overflow branches: each piece joins the current group while the group stays within the
    /// bound, else starts the next.
    static func groups(_ pieces: [Block]) -> [DocumentContent] {
        var groups: [[Block]] = [], used = 0
        for piece in pieces {
            let bytes = BlockOverflow.bytes(of: piece)
            if groups.isEmpty || used + bytes > bound {
                groups.append([])
                used = 0
            }
            groups[groups.count - 1].append(piece)
            used += bytes
        }
        return groups.map { DocumentContent(blocks: $0) }
    }

    /// The name of the overflow branch of `document` proposing `content`, the same on every device:
    /// SHA-256(label || 0x00 || document || SHA-256(content's §15.2 bytes))[:16]. A new overflow is
    /// a new name; an overflow met again is the branch already made.
    static func name(of document: NodeID, proposing content: DocumentContent) -> BranchID {
        let digest = SHA256.hash(SnapshotContent.encode(content))
        // Sixteen bytes always make a BranchID: the try cannot fail.
        return try! BranchID(bytes: Array(SHA256.hash(Array(label.utf8) + [0] + document.bytes + digest).prefix(16)))
    }

    /// `content`, what a commit compares with the records (continuations joined), with the blocks
    /// past the bound (`past`, as the records hold them) that it lacks put back after its own, in
    /// reading order: the store never showed them, so their absence is not the owner's deletion.
    /// One it holds (an adopted overflow branch wrote it into the document) stays where it is.
    static func restored(_ content: DocumentContent, past: [Block]) -> DocumentContent {
        guard !past.isEmpty else { return content }
        let here = Set(content.blocks.map(\.id))
        return DocumentContent(blocks: content.blocks + past.filter { !here.contains($0.id) })
    }
}
