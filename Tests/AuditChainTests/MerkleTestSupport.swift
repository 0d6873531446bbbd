import AuditChain
import Testing
import TestSupport

/// The failure code of a check, or nil when it passed.
func failure(_ check: () throws(AuditChainError) -> Void) -> AuditChainErrorCode? {
    do {
        try check()
        return nil
    } catch {
        return error.code
    }
}

/// The RFC 6962 test data that certificate-transparency implementations share, as published in
/// transparency-dev/merkle (testonly/constants.go and proof/verify_test.go).
enum Published {
    static let entries: [[UInt8]] = [
        [], [0x00], [0x10], [0x20, 0x21], [0x30, 0x31], Array(0x40...0x43), Array(0x50...0x57), Array(0x60...0x6F),
    ]

    /// Root hashes indexed by tree size, 0...8.
    static let roots = [
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
        "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
        "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
        "aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
        "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
        "4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
        "76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
        "ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
        "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
    ]

    /// The hashes of all complete subtrees of the 8-leaf tree, by level (0 = leaves).
    static let nodeHashes = [
        ["6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
         "96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
         "0298d122906dcfc10892cb53a73992fc5b9f493ea4c9badb27b791b4127a7fe7",
         "07506a85fd9dd2f120eb694f86011e5bb4662e5c415a62917033d4a9624487e7",
         "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
         "4271a26be0d8a84f0bd54c8c302e7cb3a3b5d1fa6780a40bcce2873477dab658",
         "b08693ec2e721597130641e8211e7eedccb4c26413963eee6c1e2ed16ffb1a5f",
         "46f6ffadd3d06a09ff3c5860d2755c8b9819db7df44251788c7d8e3180de8eb1"],
        ["fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
         "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
         "0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a",
         "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0"],
        ["d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
         "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4"],
        ["5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328"],
    ]

    struct Proof: Sendable, CustomTestStringConvertible {
        let first: Int, second: Int, hashes: [String]
        var testDescription: String { "(\(first), \(second))" }
    }

    /// Inclusion proofs as (leaf index, tree size, path). The source numbers leaves from 1.
    static let inclusionProofs = [
        Proof(first: 0, second: 1, hashes: []),
        Proof(first: 0, second: 8, hashes: ["96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
                                            "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
                                            "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4"]),
        Proof(first: 5, second: 8, hashes: ["bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
                                            "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
                                            "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7"]),
        Proof(first: 2, second: 3, hashes: ["fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125"]),
        Proof(first: 1, second: 5, hashes: ["6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
                                            "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
                                            "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b"]),
    ]

    /// Consistency proofs as (first size, second size, path).
    static let consistencyProofs = [
        Proof(first: 1, second: 1, hashes: []),
        Proof(first: 1, second: 8, hashes: ["96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
                                            "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
                                            "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4"]),
        Proof(first: 6, second: 8, hashes: ["0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a",
                                            "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
                                            "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7"]),
        Proof(first: 2, second: 5, hashes: ["5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
                                            "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b"]),
        Proof(first: 6, second: 7, hashes: ["0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a",
                                            "b08693ec2e721597130641e8211e7eedccb4c26413963eee6c1e2ed16ffb1a5f",
                                            "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7"]),
    ]
}

/// A pair of numbers as a test argument: (index, size) or (first size, second size).
struct Pair: Sendable, CustomTestStringConvertible {
    let first: Int, second: Int
    var testDescription: String { "(\(first), \(second))" }

    /// Every (index, size) with 0 ≤ index < size ≤ `maximum`.
    static func inclusionCases(upTo maximum: Int) -> [Pair] {
        (1...maximum).flatMap { size in (0..<size).map { Pair(first: $0, second: size) } }
    }

    /// Every (first, second) with 1 ≤ first < second ≤ `maximum`.
    static func properPrefixCases(upTo maximum: Int) -> [Pair] {
        (2...maximum).flatMap { second in (1..<second).map { Pair(first: $0, second: second) } }
    }
}

/// RFC 9162 §2.1 transcribed literally: recursion over plain arrays of leaf hashes, no stored nodes,
/// no bit tricks. It is slow on purpose; it is the brute-force oracle the tree and the verifier are
/// checked against. Its hashing uses MerkleHash, which the published node hashes pin down.
enum Reference {
    static let emptyRoot: [UInt8] = Array([0xe3, 0xb0, 0xc4, 0x42, 0x98, 0xfc, 0x1c, 0x14, 0x9a, 0xfb, 0xf4, 0xc8,
                                           0x99, 0x6f, 0xb9, 0x24, 0x27, 0xae, 0x41, 0xe4, 0x64, 0x9b, 0x93, 0x4c,
                                           0xa4, 0x95, 0x99, 0x1b, 0x78, 0x52, 0xb8, 0x55])

    /// k: the largest power of two smaller than n, found by doubling.
    static func split(_ n: Int) -> Int {
        var k = 1
        while k * 2 < n { k *= 2 }
        return k
    }

    /// MTH(D[n]).
    static func root(_ leaves: [[UInt8]]) -> [UInt8] {
        if leaves.isEmpty { return emptyRoot }
        if leaves.count == 1 { return leaves[0] }
        let k = split(leaves.count)
        return MerkleHash.node(root(Array(leaves[..<k])), root(Array(leaves[k...])))
    }

    /// PATH(m, D[n]).
    static func path(_ m: Int, _ leaves: [[UInt8]]) -> [[UInt8]] {
        if leaves.count <= 1 { return [] }
        let k = split(leaves.count)
        if m < k { return path(m, Array(leaves[..<k])) + [root(Array(leaves[k...]))] }
        return path(m - k, Array(leaves[k...])) + [root(Array(leaves[..<k]))]
    }

    /// PROOF(m, D[n]) for 0 < m < n.
    static func proof(_ m: Int, _ leaves: [[UInt8]]) -> [[UInt8]] {
        subproof(m, leaves, true)
    }

    static func subproof(_ m: Int, _ leaves: [[UInt8]], _ whole: Bool) -> [[UInt8]] {
        if m == leaves.count { return whole ? [] : [root(leaves)] }
        let k = split(leaves.count)
        if m <= k { return subproof(m, Array(leaves[..<k]), whole) + [root(Array(leaves[k...]))] }
        return subproof(m - k, Array(leaves[k...]), false) + [root(Array(leaves[..<k]))]
    }
}

/// Where a proof hash stands in the RFC's recursion: the seed of a consistency proof, or a sibling
/// on the left or the right of the path.
enum Side { case seed, left, right }

extension Reference {
    /// The sides of PATH(m, D[n]), by the same recursion as `path`, without hashing.
    static func pathSides(_ m: Int, _ n: Int) -> [Side] {
        if n <= 1 { return [] }
        let k = split(n)
        return m < k ? pathSides(m, k) + [.right] : pathSides(m - k, n - k) + [.left]
    }

    /// The sides of PROOF(m, D[n]), by the same recursion as `subproof`, without hashing.
    static func proofSides(_ m: Int, _ n: Int, _ whole: Bool = true) -> [Side] {
        if m == n { return whole ? [] : [.seed] }
        let k = split(n)
        return m <= k ? proofSides(m, k, whole) + [.right] : proofSides(m - k, n - k, false) + [.left]
    }
}

/// What a correct verifier must answer for any claim: nil when folding the proof along the tree
/// shape that RFC 9162's recursive definitions give for the claimed sizes reproduces the roots,
/// otherwise the failure the RFC algorithm reaches first. It shares no code with the verifier's
/// bit arithmetic, so agreement on every tampering says the verifier computes the RFC's tree.
enum Oracle {
    static func inclusion(leafHash: [UInt8], index: Int, size: Int, proof: [[UInt8]], root: [UInt8]) -> AuditChainErrorCode? {
        if leafHash.count != 32 || root.count != 32 { return .malformedHash }
        if index < 0 || index >= size { return .indexOutOfRange }
        let sides = Reference.pathSides(index, size)
        if let failure = lengthFailure(proof, expected: sides.count) { return failure }
        var folded = leafHash
        for (hash, side) in zip(proof, sides) {
            folded = side == .left ? MerkleHash.node(hash, folded) : MerkleHash.node(folded, hash)
        }
        return folded == root ? nil : .rootMismatch
    }

    static func consistency(size1: Int, size2: Int, root1: [UInt8], root2: [UInt8], proof: [[UInt8]]) -> AuditChainErrorCode? {
        if root1.count != 32 || root2.count != 32 { return .malformedHash }
        if size1 < 0 || size1 > size2 { return .sizeOutOfRange }
        if size1 == 0 || size1 == size2 {
            if !proof.isEmpty { return .wrongProofLength }
            let expected = size1 == 0 ? Reference.emptyRoot : root2
            return root1 == expected && (size2 > 0 || root2 == Reference.emptyRoot) ? nil : .rootMismatch
        }
        let sides = Reference.proofSides(size1, size2)
        if let failure = lengthFailure(proof, expected: sides.count) { return failure }
        // Without a seed in the proof, the old tree is the new tree's leftmost complete subtree.
        var old = sides.first == .seed ? proof[0] : root1, new = old
        for (hash, side) in zip(proof, sides) where side != .seed {
            if side == .left { old = MerkleHash.node(hash, old) }
            new = side == .left ? MerkleHash.node(hash, new) : MerkleHash.node(new, hash)
        }
        return old == root1 && new == root2 ? nil : .rootMismatch
    }

    /// The RFC loops consume exactly as many hashes as the shape has, whatever their values: a
    /// malformed hash among those is found first, then a length that differs.
    private static func lengthFailure(_ proof: [[UInt8]], expected: Int) -> AuditChainErrorCode? {
        if let bad = proof.firstIndex(where: { $0.count != 32 }), bad < expected { return .malformedHash }
        return proof.count == expected ? nil : .wrongProofLength
    }
}

/// Reproducible pseudo-random numbers (SplitMix64), so a failing sample can be run again.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Leaf hashes of distinct synthetic entries.
func syntheticLeafHashes(_ count: Int, tag: UInt8 = 0xA5) -> [[UInt8]] {
    (0..<count).map { MerkleHash.leaf([tag, UInt8(truncatingIfNeeded: $0), UInt8(truncatingIfNeeded: $0 >> 8)]) }
}

/// `hash` with one bit flipped.
func flipped(_ hash: [UInt8], byte: Int = 0, bit: UInt8 = 3) -> [UInt8] {
    var copy = hash
    copy[byte] ^= 1 << bit
    return copy
}
