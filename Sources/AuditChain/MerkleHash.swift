import CryptoVault

/// The hashes of RFC 9162 §2.1.1 over SHA-256. Leaves and interior nodes get different one-byte
/// prefixes so that no leaf can be passed off as an interior node (a second-preimage attack on the tree).
public enum MerkleHash {
    /// The byte count of every hash in the tree.
    public static let size = SHA256.digestSize

    /// MTH({}): the root of the empty tree is the hash of the empty string.
    public static let emptyRoot: [UInt8] = SHA256.hash([])

    /// MTH({d(0)}) = HASH(0x00 || d(0)).
    public static func leaf(_ entry: [UInt8]) -> [UInt8] {
        SHA256.hash([0x00] + entry)
    }

    /// HASH(0x01 || left || right).
    public static func node(_ left: [UInt8], _ right: [UInt8]) -> [UInt8] {
        SHA256.hash([0x01] + left + right)
    }

    /// Throws unless `hash` has the size of a digest; `name` says which input it was.
    static func require(_ hash: [UInt8], _ name: String) throws(AuditChainError) {
        guard hash.count == size else {
            throw AuditChainError(.malformedHash, "the \(name) has \(hash.count) bytes, not the \(size) of a SHA-256 hash")
        }
    }
}
