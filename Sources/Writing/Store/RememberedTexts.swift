import CryptoVault

/// The texts one store has already handed to the leak guard, per project, by digest.
///
/// A sync merge makes one branch per conflict, and each branch is a whole copy of the document
/// with only one block different: a find-and-replace across a book met on two offline devices made
/// 340 copies of it, and fingerprinting each of them again took half of the merge (BigMergeTests).
/// A store lives inside one transaction, which commits or rolls back whole, and fingerprints are only
/// ever added in it. So a text remembered once for a project needs nothing more in the same
/// transaction. Only a SHA-256 of the project's id and the text is kept, never the words.
final class RememberedTexts {
    private var digests: Set<[UInt8]> = []

    /// Whether `text` is new for `project` in this store, noting it.
    func isNew(_ text: String, of project: ProjectID) -> Bool {
        var text = text
        let digest = text.withUTF8 { words in
            project.bytes.withUnsafeBytes { id in
                var digest = [UInt8](repeating: 0, count: SHA256.digestSize)
                digest.withUnsafeMutableBytes { SHA256.hash(id, UnsafeRawBufferPointer(words), into: $0) }
                return digest
            }
        }
        return digests.insert(digest).inserted
    }
}
