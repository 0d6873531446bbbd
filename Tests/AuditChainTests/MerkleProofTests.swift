import AuditChain
import Testing
import TestSupport

/// Verification: every honest proof passes, and every tampered one fails for the reason the RFC
/// algorithm must give, as the brute-force oracle derives it.
struct MerkleProofTests {
    /// The 8 published leaves, then 8 more so that claims about larger sizes have a real tree.
    private static let leaves = Published.entries.map(MerkleHash.leaf) + syntheticLeafHashes(8)

    private struct Inclusion {
        var leafHash: [UInt8], index: Int, size: Int, proof: [[UInt8]], root: [UInt8]

        func verify() -> AuditChainErrorCode? {
            failure { () throws(AuditChainError) in
                try MerkleVerification.verifyInclusion(leafHash: leafHash, index: index, treeSize: size, proof: proof, rootHash: root)
            }
        }
    }

    private struct Consistency {
        var size1: Int, size2: Int, root1: [UInt8], root2: [UInt8], proof: [[UInt8]]

        func verify() -> AuditChainErrorCode? {
            failure { () throws(AuditChainError) in
                try MerkleVerification.verifyConsistency(size1: size1, size2: size2, root1: root1, root2: root2, proof: proof)
            }
        }
    }

    private func root(_ size: Int) -> [UInt8] { Reference.root(Array(Self.leaves[..<size])) }

    private func honestInclusion(_ index: Int, _ size: Int) throws -> Inclusion {
        let tree = try MerkleTree(leafHashes: Self.leaves)
        return Inclusion(leafHash: Self.leaves[index], index: index, size: size,
                         proof: try tree.inclusionProof(index: index, size: size), root: try tree.rootHash(size: size))
    }

    private func honestConsistency(_ size1: Int, _ size2: Int) throws -> Consistency {
        let tree = try MerkleTree(leafHashes: Self.leaves)
        return Consistency(size1: size1, size2: size2, root1: try tree.rootHash(size: size1),
                           root2: try tree.rootHash(size: size2), proof: try tree.consistencyProof(from: size1, to: size2))
    }

    // MARK: Inclusion

    @Test(arguments: Published.inclusionProofs)
    func publishedInclusionProofVerifies(vector: Published.Proof) throws {
        try MerkleVerification.verifyInclusion(leafHash: MerkleHash.leaf(Published.entries[vector.first]), index: vector.first,
                                               treeSize: vector.second, proof: try hex(vector.hashes),
                                               rootHash: try hex(Published.roots[vector.second]))
    }

    @Test(arguments: Pair.inclusionCases(upTo: 8))
    func everyInclusionProofVerifies(pair: Pair) throws {
        let claim = try honestInclusion(pair.first, pair.second)
        #expect(claim.root == (try hex(Published.roots[pair.second])))
        #expect(claim.verify() == nil)
    }

    @Test(arguments: Pair.inclusionCases(upTo: 8))
    func tamperedInclusionProofIsRejectedForTheRightReason(pair: Pair) throws {
        let honest = try honestInclusion(pair.first, pair.second)
        for (name, claim, reason) in inclusionTamperings(honest) {
            let expected = Oracle.inclusion(leafHash: claim.leafHash, index: claim.index, size: claim.size,
                                            proof: claim.proof, root: claim.root)
            #expect(claim.verify() == expected, "\(name)")
            if let reason { #expect(expected == reason, "\(name): the oracle disagrees with the named reason") }
        }
    }

    /// Each tampering, with the reason it must fail for when that does not depend on the tree's
    /// shape; claims about another index or size are judged by the oracle alone.
    private func inclusionTamperings(_ honest: Inclusion) -> [(String, Inclusion, AuditChainErrorCode?)] {
        var result: [(String, Inclusion, AuditChainErrorCode?)] = []
        func add(_ name: String, _ reason: AuditChainErrorCode?, _ change: (inout Inclusion) -> Void) {
            var claim = honest
            change(&claim)
            result.append((name, claim, reason))
        }
        for position in honest.proof.indices {
            add("proof[\(position)] bit 3 flipped", .rootMismatch) { $0.proof[position] = flipped($0.proof[position]) }
            add("proof[\(position)] last bit flipped", .rootMismatch) { $0.proof[position] = flipped($0.proof[position], byte: 31, bit: 0) }
            add("proof[\(position)] cut to 31 bytes", .malformedHash) { $0.proof[position].removeLast() }
        }
        if !honest.proof.isEmpty {
            add("last hash removed", .wrongProofLength) { $0.proof.removeLast() }
            add("first hash removed", .wrongProofLength) { $0.proof.removeFirst() }
        }
        add("root appended", .wrongProofLength) { $0.proof.append($0.root) }
        add("empty hash appended", .wrongProofLength) { $0.proof.append([]) }
        add("root prepended", .wrongProofLength) { $0.proof.insert($0.root, at: 0) }
        add("wrong leaf", .rootMismatch) { $0.leafHash = MerkleHash.leaf(Array("wrong leaf".utf8)) }
        add("empty tree root", .rootMismatch) { $0.root = MerkleHash.emptyRoot }
        add("root bit flipped", .rootMismatch) { $0.root = flipped($0.root) }
        add("31-byte root", .malformedHash) { $0.root.removeLast() }
        add("31-byte leaf", .malformedHash) { $0.leafHash.removeLast() }
        add("index -1", nil) { $0.index -= 1 }
        add("index + 1", nil) { $0.index += 1 }
        add("index ^ 2", nil) { $0.index ^= 2 }
        add("index = size", .indexOutOfRange) { $0.index = $0.size }
        for size in [honest.size - 1, honest.size + 1, honest.size * 2, honest.size / 2, 0] {
            add("size \(size), its own root", nil) { $0.size = size; $0.root = root(size) }
            add("size \(size), the original root", nil) { $0.size = size }
        }
        return result
    }

    /// RFC 9162 verification binds a proof to a root; a size enters only through the shape of the
    /// path, so sizes whose paths have the same shape accept the same proof. Hence sizes and roots
    /// must be taken from one signed checkpoint, never combined from different sources.
    @Test func aProofBindsTheRootAndBindsTheSizeOnlyThroughItsShape() throws {
        let tree = try MerkleTree(leafHashes: Self.leaves)
        let inclusion = try tree.inclusionProof(index: 0, size: 3)
        #expect(Reference.pathSides(0, 3) == Reference.pathSides(0, 4))
        try MerkleVerification.verifyInclusion(leafHash: Self.leaves[0], index: 0, treeSize: 4, proof: inclusion, rootHash: root(3))
        #expect(Inclusion(leafHash: Self.leaves[0], index: 0, size: 5, proof: inclusion, root: root(3)).verify() == .wrongProofLength)

        let consistency = try tree.consistencyProof(from: 6, to: 8)
        #expect(Reference.proofSides(6, 8) == Reference.proofSides(6, 7))
        try MerkleVerification.verifyConsistency(size1: 6, size2: 7, root1: root(6), root2: root(8), proof: consistency)
        #expect(Consistency(size1: 6, size2: 9, root1: root(6), root2: root(8), proof: consistency).verify() == .wrongProofLength)
    }

    @Test func aSingleLeafTreeHasTheLeafAsRootAndAnEmptyProof() throws {
        let leaf = MerkleHash.leaf(Array("data".utf8))
        try MerkleVerification.verifyInclusion(leafHash: leaf, index: 0, treeSize: 1, proof: [], rootHash: leaf)
        #expect(Inclusion(leafHash: leaf, index: 0, size: 1, proof: [leaf], root: leaf).verify() == .wrongProofLength)
        #expect(Inclusion(leafHash: leaf, index: 0, size: 1, proof: [], root: MerkleHash.emptyRoot).verify() == .rootMismatch)
        #expect(Inclusion(leafHash: leaf, index: 1, size: 1, proof: [], root: leaf).verify() == .indexOutOfRange)
        #expect(Inclusion(leafHash: leaf, index: 0, size: 0, proof: [], root: MerkleHash.emptyRoot).verify() == .indexOutOfRange)
        #expect(Inclusion(leafHash: [], index: 0, size: 1, proof: [], root: leaf).verify() == .malformedHash)
    }

    /// The RFC loop stops at the first hash past the top of the tree, so a flood of hashes costs
    /// nothing and the garbage after the path is never examined.
    @Test func anOverlongProofFailsOnLengthBeforeItsExtraHashesAreRead() throws {
        var claim = try honestInclusion(5, 8)
        claim.proof += Array(repeating: [], count: 100_000)
        #expect(claim.verify() == .wrongProofLength)
    }

    // MARK: Consistency

    @Test(arguments: Published.consistencyProofs)
    func publishedConsistencyProofVerifies(vector: Published.Proof) throws {
        try MerkleVerification.verifyConsistency(size1: vector.first, size2: vector.second,
                                                 root1: try hex(Published.roots[vector.first]),
                                                 root2: try hex(Published.roots[vector.second]), proof: try hex(vector.hashes))
    }

    @Test(arguments: Pair.properPrefixCases(upTo: 8))
    func everyConsistencyProofVerifies(pair: Pair) throws {
        let claim = try honestConsistency(pair.first, pair.second)
        #expect(claim.root1 == (try hex(Published.roots[pair.first])))
        #expect(claim.root2 == (try hex(Published.roots[pair.second])))
        #expect(!claim.proof.isEmpty)
        #expect(claim.verify() == nil)
    }

    @Test(arguments: Pair.properPrefixCases(upTo: 8))
    func tamperedConsistencyProofIsRejectedForTheRightReason(pair: Pair) throws {
        let honest = try honestConsistency(pair.first, pair.second)
        for (name, claim, reason) in consistencyTamperings(honest) {
            let expected = Oracle.consistency(size1: claim.size1, size2: claim.size2, root1: claim.root1,
                                              root2: claim.root2, proof: claim.proof)
            #expect(claim.verify() == expected, "\(name)")
            if let reason { #expect(expected == reason, "\(name): the oracle disagrees with the named reason") }
        }
    }

    private func consistencyTamperings(_ honest: Consistency) -> [(String, Consistency, AuditChainErrorCode?)] {
        var result: [(String, Consistency, AuditChainErrorCode?)] = []
        func add(_ name: String, _ reason: AuditChainErrorCode?, _ change: (inout Consistency) -> Void) {
            var claim = honest
            change(&claim)
            result.append((name, claim, reason))
        }
        for position in honest.proof.indices {
            add("proof[\(position)] bit 4 flipped", .rootMismatch) { $0.proof[position] = flipped($0.proof[position], bit: 4) }
            add("proof[\(position)] last bit flipped", .rootMismatch) { $0.proof[position] = flipped($0.proof[position], byte: 31, bit: 0) }
            add("proof[\(position)] cut to 31 bytes", .malformedHash) { $0.proof[position].removeLast() }
        }
        add("empty proof", .wrongProofLength) { $0.proof = [] }
        add("last hash removed", .wrongProofLength) { $0.proof.removeLast() }
        add("first hash removed", .wrongProofLength) { $0.proof.removeFirst() }
        add("root1 appended", .wrongProofLength) { $0.proof.append($0.root1) }
        add("root2 appended", .wrongProofLength) { $0.proof.append($0.root2) }
        add("empty hash appended", .wrongProofLength) { $0.proof.append([]) }
        add("root1 prepended", .wrongProofLength) { $0.proof.insert($0.root1, at: 0) }
        add("root2 prepended", .wrongProofLength) { $0.proof.insert($0.root2, at: 0) }
        add("proof[0] repeated", .wrongProofLength) { $0.proof.insert($0.proof[0], at: 0) }
        add("root1 bit flipped", .rootMismatch) { $0.root1 = flipped($0.root1) }
        add("root2 bit flipped", .rootMismatch) { $0.root2 = flipped($0.root2) }
        add("roots swapped", .rootMismatch) { swap(&$0.root1, &$0.root2) }
        add("31-byte root1", .malformedHash) { $0.root1.removeLast() }
        add("31-byte root2", .malformedHash) { $0.root2.removeLast() }
        add("size1 > size2", .sizeOutOfRange) { $0.size1 = $0.size2 + 1 }
        for (size1, size2) in [(honest.size1 - 1, honest.size2), (honest.size1 + 1, honest.size2), (honest.size1 ^ 2, honest.size2),
                               (honest.size1, honest.size2 * 2), (honest.size1, honest.size2 / 2), (honest.size1, honest.size2 + 1),
                               (honest.size1, honest.size2 - 1)] {
            add("sizes (\(size1), \(size2)), their own roots", nil) {
                $0.size1 = size1; $0.size2 = size2
                if size1 >= 0, size1 <= size2 { $0.root1 = root(size1); $0.root2 = root(size2) }
            }
            add("sizes (\(size1), \(size2)), the original roots", nil) { $0.size1 = size1; $0.size2 = size2 }
        }
        return result
    }

    /// Size 0: the empty tree is a prefix of every tree, so the only proof is the empty one, and the
    /// first root must be the empty tree's.
    @Test(arguments: 0...8)
    func theEmptyTreeIsConsistentWithEveryTree(size2: Int) throws {
        let root2 = root(size2)
        #expect(Consistency(size1: 0, size2: size2, root1: MerkleHash.emptyRoot, root2: root2, proof: []).verify() == nil)
        #expect(Consistency(size1: 0, size2: size2, root1: MerkleHash.emptyRoot, root2: root2, proof: [root2]).verify() == .wrongProofLength)
        #expect(Consistency(size1: 0, size2: size2, root1: root(1), root2: root2, proof: []).verify() == .rootMismatch)
        #expect(Consistency(size1: 0, size2: 0, root1: MerkleHash.emptyRoot, root2: root(1), proof: []).verify() == .rootMismatch)
    }

    @Test(arguments: 1...8)
    func aTreeIsConsistentWithItselfOnlyUnderTheSameRoot(size: Int) throws {
        let own = root(size)
        #expect(Consistency(size1: size, size2: size, root1: own, root2: own, proof: []).verify() == nil)
        #expect(Consistency(size1: size, size2: size, root1: own, root2: root(size - 1), proof: []).verify() == .rootMismatch)
        #expect(Consistency(size1: size, size2: size, root1: own, root2: own, proof: [own]).verify() == .wrongProofLength)
    }

    @Test func sizesInTheWrongOrderAreRefused() {
        let some = root(3)
        #expect(Consistency(size1: 5, size2: 3, root1: root(5), root2: some, proof: []).verify() == .sizeOutOfRange)
        #expect(Consistency(size1: 1, size2: 0, root1: root(1), root2: MerkleHash.emptyRoot, proof: []).verify() == .sizeOutOfRange)
        #expect(Consistency(size1: -1, size2: 3, root1: some, root2: some, proof: []).verify() == .sizeOutOfRange)
    }

    // MARK: A large tree

    @Test func aThousandLeafTreeVerifiesSampledProofsAndRejectsTamperedOnes() throws {
        let leaves = syntheticLeafHashes(1000, tag: 0x3C)
        let tree = try MerkleTree(leafHashes: leaves)
        var random = SplitMix64(state: 9162)
        for _ in 0..<40 {
            let size2 = Int.random(in: 2...1000, using: &random)
            let size1 = Int.random(in: 1..<size2, using: &random)
            let index = Int.random(in: 0..<size2, using: &random)
            var inclusion = Inclusion(leafHash: leaves[index], index: index, size: size2,
                                      proof: try tree.inclusionProof(index: index, size: size2), root: try tree.rootHash(size: size2))
            var consistency = Consistency(size1: size1, size2: size2, root1: try tree.rootHash(size: size1),
                                          root2: try tree.rootHash(size: size2), proof: try tree.consistencyProof(from: size1, to: size2))
            #expect(inclusion.verify() == nil)
            #expect(consistency.verify() == nil)

            let position = Int.random(in: 0..<consistency.proof.count, using: &random)
            consistency.proof[position] = flipped(consistency.proof[position], byte: position % 32)
            #expect(consistency.verify() == .rootMismatch)
            consistency.proof.remove(at: position)
            #expect(consistency.verify() == .wrongProofLength)

            inclusion.index = Int.random(in: 0..<size2, using: &random)
            inclusion.size = Int.random(in: inclusion.index + 1...1000, using: &random)
            inclusion.root = try tree.rootHash(size: inclusion.size)
            #expect(inclusion.verify() == Oracle.inclusion(leafHash: inclusion.leafHash, index: inclusion.index, size: inclusion.size,
                                                           proof: inclusion.proof, root: inclusion.root))
        }
    }
}
