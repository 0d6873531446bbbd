import AuditChain
import Testing
import TestSupport

/// The tree heads and proofs a log serves: published vectors first, then the tree against the
/// brute-force reference on every small shape and on samples of a large one.
struct MerkleTreeTests {
    private func publishedTree() throws -> MerkleTree {
        var tree = MerkleTree()
        for entry in Published.entries { tree.append(entry: entry) }
        return tree
    }

    // MARK: Hashing

    @Test(arguments: 0..<8)
    func leafHashMatchesPublished(index: Int) throws {
        #expect(MerkleHash.leaf(Published.entries[index]) == (try hex(Published.nodeHashes[0][index])))
    }

    @Test(arguments: 1...3)
    func nodeHashesMatchPublished(level: Int) throws {
        let children = try hex(Published.nodeHashes[level - 1])
        let parents = try hex(Published.nodeHashes[level])
        for (index, parent) in parents.enumerated() {
            #expect(MerkleHash.node(children[2 * index], children[2 * index + 1]) == parent)
        }
    }

    @Test func emptyTreeRootIsTheHashOfTheEmptyString() throws {
        let expected = try hex(Published.roots[0])
        #expect(MerkleHash.emptyRoot == expected)
        #expect(MerkleTree().rootHash == expected)
        #expect(try MerkleTree().rootHash(size: 0) == expected)
        #expect(MerkleTree().size == 0)
    }

    // MARK: Published vectors

    @Test(arguments: 0...8)
    func rootMatchesPublished(size: Int) throws {
        let expected = try hex(Published.roots[size])
        #expect(try publishedTree().rootHash(size: size) == expected)
        let prefix = try MerkleTree(leafHashes: Published.entries[..<size].map(MerkleHash.leaf))
        #expect(prefix.size == size)
        #expect(prefix.rootHash == expected)
    }

    @Test(arguments: Published.inclusionProofs)
    func inclusionProofMatchesPublished(vector: Published.Proof) throws {
        let proof = try publishedTree().inclusionProof(index: vector.first, size: vector.second)
        #expect(proof == (try hex(vector.hashes)))
    }

    @Test(arguments: Published.consistencyProofs)
    func consistencyProofMatchesPublished(vector: Published.Proof) throws {
        let proof = try publishedTree().consistencyProof(from: vector.first, to: vector.second)
        #expect(proof == (try hex(vector.hashes)))
    }

    // MARK: Against the reference

    /// Every size up to 40 covers each shape of the recursion around 8, 16 and 32 leaves.
    @Test(arguments: 0...40)
    func everyRootAndProofMatchesTheReference(size: Int) throws {
        let leaves = syntheticLeafHashes(size)
        let tree = try MerkleTree(leafHashes: leaves)
        #expect(tree.leafHashes == leaves)
        #expect(tree.rootHash == Reference.root(leaves))
        for index in 0..<size {
            #expect(try tree.inclusionProof(index: index, size: size) == Reference.path(index, leaves))
        }
        for first in 1..<max(size, 1) {
            #expect(try tree.consistencyProof(from: first, to: size) == Reference.proof(first, leaves))
        }
    }

    @Test func aThousandLeafTreeMatchesTheReferenceOnSamples() throws {
        let leaves = syntheticLeafHashes(1000)
        let tree = try MerkleTree(leafHashes: leaves)
        var random = SplitMix64(state: 1000)
        for _ in 0..<60 {
            let size = Int.random(in: 1...1000, using: &random)
            let prefix = Array(leaves[..<size])
            let index = Int.random(in: 0..<size, using: &random)
            let first = Int.random(in: 1...size, using: &random)
            #expect(try tree.rootHash(size: size) == Reference.root(prefix))
            #expect(try tree.inclusionProof(index: index, size: size) == Reference.path(index, prefix))
            let expected = first == size ? [] : Reference.proof(first, prefix)
            #expect(try tree.consistencyProof(from: first, to: size) == expected)
        }
    }

    @Test func appendingKeepsEveryEarlierHeadReachable() throws {
        let leaves = syntheticLeafHashes(70)
        var tree = MerkleTree()
        for (count, leaf) in leaves.enumerated() {
            try tree.append(leafHash: leaf)
            #expect(tree.size == count + 1)
        }
        for size in 0...70 { #expect(try tree.rootHash(size: size) == Reference.root(Array(leaves[..<size]))) }
    }

    // MARK: Conventions and refusals

    @Test(arguments: 0...8)
    func consistencyFromTheEmptyTreeAndToItselfIsEmpty(size: Int) throws {
        let tree = try publishedTree()
        #expect(try tree.consistencyProof(from: 0, to: size) == [])
        #expect(try tree.consistencyProof(from: size, to: size) == [])
    }

    @Test func requestsOutsideTheTreeAreRefused() throws {
        let tree = try publishedTree()
        #expect(throws: AuditChainError(.sizeOutOfRange, "")) { try tree.rootHash(size: 9) }
        #expect(throws: AuditChainError(.sizeOutOfRange, "")) { try tree.rootHash(size: -1) }
        #expect(throws: AuditChainError(.sizeOutOfRange, "")) { try tree.inclusionProof(index: 0, size: 9) }
        #expect(throws: AuditChainError(.indexOutOfRange, "")) { try tree.inclusionProof(index: 8, size: 8) }
        #expect(throws: AuditChainError(.indexOutOfRange, "")) { try tree.inclusionProof(index: 3, size: 3) }
        #expect(throws: AuditChainError(.indexOutOfRange, "")) { try tree.inclusionProof(index: -1, size: 8) }
        #expect(throws: AuditChainError(.indexOutOfRange, "")) { try tree.inclusionProof(index: 0, size: 0) }
        #expect(throws: AuditChainError(.sizeOutOfRange, "")) { try tree.consistencyProof(from: 5, to: 4) }
        #expect(throws: AuditChainError(.sizeOutOfRange, "")) { try tree.consistencyProof(from: -1, to: 4) }
        #expect(throws: AuditChainError(.sizeOutOfRange, "")) { try tree.consistencyProof(from: 4, to: 9) }
    }

    @Test(arguments: [0, 31, 33, 64])
    func leafHashesOfTheWrongSizeAreRefused(byteCount: Int) throws {
        let bad = [UInt8](repeating: 7, count: byteCount)
        #expect(throws: AuditChainError(.malformedHash, "")) { try MerkleTree(leafHashes: [MerkleHash.leaf([]), bad]) }
        var tree = try publishedTree()
        #expect(throws: AuditChainError(.malformedHash, "")) { try tree.append(leafHash: bad) }
        #expect(tree.size == 8)
        #expect(tree.rootHash == (try hex(Published.roots[8])))
    }
}
