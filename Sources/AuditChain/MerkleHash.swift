import CryptoVault

/// The hashes of RFC 9162 §2.1.1 over SHA-256. Leaves and interior nodes get different one-byte
/// prefixes so that no leaf can be passed off as an interior node (a second-preimage attack on the tree).
public enum MerkleHash {
    /// The byte count of every hash in the tree.
    public static let size = SHA256.digestSize

    /// A hash held inline, with no heap allocation: what the hot loops (appending, verifying a log of
    /// millions of entries) pass around. `bytes(_:)` and `digest(_:)` convert from and to arrays.
    typealias Digest = SIMD32<UInt8>

    /// MTH({}): the root of the empty tree is the hash of the empty string.
    public static let emptyRoot: [UInt8] = SHA256.hash([])

    /// MTH({d(0)}) = HASH(0x00 || d(0)).
    public static func leaf(_ entry: [UInt8]) -> [UInt8] {
        bytes(entry.withUnsafeBytes(leaf))
    }

    /// HASH(0x01 || left || right).
    public static func node(_ left: [UInt8], _ right: [UInt8]) -> [UInt8] {
        SHA256.hash([0x01] + left + right)
    }

    /// HASH(0x00 || entry), hashed in place.
    static func leaf(_ entry: UnsafeRawBufferPointer) -> Digest {
        var digest = Digest()
        withUnsafeBytes(of: UInt8(0x00)) { prefix in
            withUnsafeMutableBytes(of: &digest) { SHA256.hash(prefix, entry, into: $0) }
        }
        return digest
    }

    /// HASH(0x01 || left || right), hashed in place.
    static func node(_ left: Digest, _ right: Digest) -> Digest {
        var digest = Digest()
        var children = (left, right)
        withUnsafeBytes(of: UInt8(0x01)) { prefix in
            withUnsafeBytes(of: &children) { pair in
                withUnsafeMutableBytes(of: &digest) { SHA256.hash(prefix, pair, into: $0) }
            }
        }
        return digest
    }

    static func bytes(_ digest: Digest) -> [UInt8] {
        withUnsafeBytes(of: digest) { Array($0) }
    }

    /// The inline form of a 32-byte hash; callers have checked the size.
    static func digest(_ bytes: UnsafeRawBufferPointer) -> Digest {
        precondition(bytes.count == size, "a Merkle hash has 32 bytes")
        return bytes.loadUnaligned(as: Digest.self)
    }

    static func digest(_ bytes: [UInt8]) -> Digest {
        bytes.withUnsafeBytes(digest)
    }

    /// Throws unless `hash` has the size of a digest; `name` says which input it was.
    static func require(_ hash: [UInt8], _ name: String) throws(AuditChainError) {
        guard hash.count == size else {
            throw AuditChainError(.malformedHash, "the \(name) has \(hash.count) bytes, not the \(size) of a SHA-256 hash")
        }
    }
}
