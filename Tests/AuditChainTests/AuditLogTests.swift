@testable import AuditChain
@testable import CryptoVault
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
import TestSupport

// The audit log as a vault writes it (SECURITY.md §8): what each operation records, the chain and the
// tree, the entry encoding, checkpoints, tampering, and what an erased signing key leaves on disk.

// MARK: - Fixtures (the audited vault itself is TestSupport's AuditedVault)

private func secret(_ text: String) throws -> SecureBytes { try SecureBytes(copying: Array(text.utf8)) }

/// Whether `needle` occurs in `haystack` (memchr and memcmp: the files searched are hundreds of kilobytes).
private func occurs(_ needle: [UInt8], in haystack: [UInt8]) -> Bool {
    guard let first = needle.first, needle.count <= haystack.count else { return false }
    return haystack.withUnsafeBytes { hay in
        needle.withUnsafeBytes { pattern in
            let end = hay.baseAddress! + hay.count
            var start = hay.baseAddress!
            while end - start >= pattern.count, let found = memchr(start, Int32(first), end - start).map(UnsafeRawPointer.init) {
                if end - found >= pattern.count, memcmp(found, pattern.baseAddress!, pattern.count) == 0 { return true }
                start = found + 1
            }
            return false
        }
    }
}

private func bigEndian(_ value: UInt64, width: Int) -> [UInt8] {
    (0..<width).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
}

private func base64(_ bytes: [UInt8]) -> String { Data(bytes).base64EncodedString() }

/// The code of the `AuditChainError` that `body` throws, or nil when it returns or throws anything else.
private func auditErrorCode<T>(_ body: () throws -> T) -> AuditChainErrorCode? {
    do {
        _ = try body()
        return nil
    } catch let error as AuditChainError {
        return error.code
    } catch {
        Issue.record("not an AuditChainError: \(error)")
        return nil
    }
}

/// What verification said: the log verified, or failed naming an entry (or none), or the input was
/// refused before verification (an export that does not parse).
private enum Outcome: Equatable, CustomStringConvertible {
    case verified(entries: Int)
    case failed(entry: Int?)
    case refused(AuditChainErrorCode)
    case unexpected(String)

    init(_ body: () throws -> AuditVerifier.Report) {
        do {
            self = .verified(entries: try body().entryCount)
        } catch let failure as AuditVerificationFailure {
            self = .failed(entry: failure.entry)
        } catch let error as AuditChainError {
            self = .refused(error.code)
        } catch {
            self = .unexpected("\(error)")
        }
    }

    var isVerificationFailure: Bool {
        if case .failed = self { return true }
        return false
    }

    var description: String {
        switch self {
        case .verified(let entries): "verified (\(entries) entries)"
        case .failed(let entry): "failed naming entry \(entry.map(String.init) ?? "none")"
        case .refused(let code): "refused (\(code))"
        case .unexpected(let error): "unexpected error \(error)"
        }
    }
}

// MARK: - What each operation records

/// One entry as the test expects it (SECURITY.md §8.1).
private struct ExpectedEntry: CustomStringConvertible {
    let action: String
    var compartmentID: CompartmentID? = nil
    var subjectID: [UInt8] = []
    var details: [String: String] = [:]

    var description: String { action }
}

@Suite("AuditLog: what each vault operation records")
struct AuditLogEntryTests {
    @Test("every vault operation appends its entry: action, compartment, subject, and details sealed and hashed")
    func everyOperationAppendsItsEntry() throws {
        let started = Int64(Date().timeIntervalSince1970)
        let fixture = try AuditedVault()
        let compartmentName = "Kowalczyk custody evaluation"
        let putName = "kowalczyk-psych-report-draft.pdf"
        let sealName = "kowalczyk-session-notes-0412.txt"
        let newPassphrase = "a new passphrase for the audit test"
        var expected = [ExpectedEntry(action: "vault.init")]
        let passphraseSlot = try #require(try fixture.vault.keyslots().first)

        // Each step checks that no name reached vault.db or its WAL in the clear, both before its
        // command ends (the WAL still holds the step's pages) and after (the WAL was folded in).
        func step<Result>(_ body: () throws -> Result) throws -> Result {
            let result = try fixture.command {
                let result = try body()
                expectNoPlaintext([compartmentName, putName, sealName], in: fixture)
                return result
            }
            expectNoPlaintext([compartmentName, putName, sealName], in: fixture)
            return result
        }

        let session = try step { try fixture.unlock() }
        expected.append(.init(action: "vault.unlock", subjectID: passphraseSlot.uuid.bytes))

        try step { #expect(errorCode { try fixture.unlock("not the passphrase") } == .wrongPassphrase) }
        expected.append(.init(action: "vault.unlock-failed"))

        // Not privileged, so that the library's own open and get are recorded here (privileged reads
        // are session.* entries, tested with the sessions).
        let compartment = try step { try session.createCompartment(named: compartmentName, register: .legal, privileged: false) }
        expected.append(.init(action: "compartment.create", compartmentID: compartment.id,
                              details: ["name": compartmentName, "register": "legal", "privileged": "no"]))

        let stored = try step { try fixture.put(putName, contents: "draft report", in: compartment, by: session) }
        expected.append(.init(action: "bundle.put", compartmentID: compartment.id, subjectID: stored.bundleID.bytes,
                              details: ["file": putName, "bytes": "\("draft report".utf8.count)"]))

        try step {
            let opened = try session.openStored(stored.bundleID)
            try opened.decrypt { _ in }  // the library records the read
        }
        expected.append(.init(action: "bundle.get", compartmentID: compartment.id, subjectID: stored.bundleID.bytes, details: ["bytes": "12"]))

        let sealedPath = fixture.root + "/notes.vbundle"
        let sealed = try step {
            let header = try EncryptedBundle.seal(from: try FileDescriptor.openForReading(try fixture.inputFile("session notes")),
                                                  to: try FileDescriptor.createExclusive(sealedPath), compartment: compartment,
                                                  vault: session, metadata: BundleMetadata(name: sealName, modificationTime: 0))
            try session.record(.bundleSeal, bundle: header, bytes: header.plaintextLength, details: [.init("file", sealName)])
            return header
        }
        expected.append(.init(action: "bundle.seal", compartmentID: compartment.id, subjectID: sealed.bundleID.bytes,
                              details: ["file": sealName, "bytes": "\("session notes".utf8.count)"]))

        try step {
            let opened = try EncryptedBundle.open(try FileDescriptor.openForReading(sealedPath), vault: session)
            try opened.decrypt { _ in }  // the library records the read
        }
        expected.append(.init(action: "bundle.open", compartmentID: compartment.id, subjectID: sealed.bundleID.bytes, details: ["bytes": "13"]))

        #expect(try step { try session.rotateCompartment(named: compartmentName) } == 2)
        expected.append(.init(action: "compartment.rotate", compartmentID: compartment.id, subjectID: [0, 0, 0, 2]))

        let rewrapped = try step { try session.rewrapStored(in: try session.compartment(named: compartmentName)) }
        #expect(rewrapped.changed == 1 && rewrapped.skipped.isEmpty)
        expected.append(.init(action: "bundle.rewrap", compartmentID: compartment.id, subjectID: stored.bundleID.bytes))

        try step { try session.retireCompartmentVersion(named: compartmentName, version: 1) }
        expected.append(.init(action: "compartment.retire", compartmentID: compartment.id, subjectID: [0, 0, 0, 1]))

        try step { try session.removeStored(stored.bundleID) }
        expected.append(.init(action: "bundle.rm", compartmentID: compartment.id, subjectID: stored.bundleID.bytes, details: ["bytes": "12"]))

        try step { try session.changePassphrase(to: try secret(newPassphrase)) }
        expected.append(.init(action: "keyslot.passwd", subjectID: passphraseSlot.uuid.bytes))

        let recoveryKey = try step { try session.createRecoveryKey() }
        let recoverySlot = try #require(try fixture.vault.keyslots().first { $0.kind == .recoveryKey })
        expected.append(.init(action: "recovery.create-key", subjectID: recoverySlot.uuid.bytes))

        try step { try session.splitRecovery(threshold: 2, shares: 3) { #expect($0.count == 3) } }
        let sharesSlot = try #require(try fixture.vault.keyslots().first { $0.kind == .recoveryShares })
        expected.append(.init(action: "recovery.split", subjectID: sharesSlot.uuid.bytes))

        // A stronger policy makes the next passphrase unlock rewrap its slot, recorded before the unlock.
        let stronger = KDFParameters.argon2id(memoryKiB: 19_456, iterations: 3, parallelism: 1)
        try step { try session.setKDFPolicy(stronger) }
        expected.append(.init(action: "vault.kdf-policy", details: ["kdf_policy": stronger.encoded]))
        try step { _ = try fixture.unlock(newPassphrase) }
        expected.append(.init(action: "keyslot.upgrade", subjectID: passphraseSlot.uuid.bytes))
        expected.append(.init(action: "vault.unlock", subjectID: passphraseSlot.uuid.bytes))

        let recovered = try step { try fixture.vault.unlock(with: .recoveryKey(recoveryKey)) }
        expected.append(.init(action: "vault.unlock", subjectID: recoverySlot.uuid.bytes))

        try step { try recovered.changePassphrase(to: try secret("replaced after a recovery")) }
        expected.append(.init(action: "keyslot.passwd-replace"))

        try step { try session.destroyCompartment(named: compartmentName) }
        expected.append(.init(action: "compartment.destroy", compartmentID: compartment.id, details: ["bundles": "0"]))

        try step { try fixture.vault.recordLocked(.auditVerify) }
        expected.append(.init(action: "audit.verify"))
        let finished = Int64(Date().timeIntervalSince1970)

        let entries = try fixture.reader.entries()
        try #require(entries.map(\.action) == expected.map(\.action))
        let keys = try session.auditKeys()
        let deviceID = try fixture.vault.read { try $0.queryOne("SELECT value FROM vault_meta WHERE key = 'device_id'")?.blob("value") }
        for (index, (entry, want)) in zip(entries, expected).enumerated() {
            let context = Comment(rawValue: "entry \(index) (\(want.action))")
            #expect(entry.seq == UInt64(index), context)
            #expect(entry.compartmentID == want.compartmentID, context)
            #expect(entry.subjectID == want.subjectID, context)
            #expect(entry.deviceID.bytes == deviceID, context)
            #expect(entry.actor == fixture.log.actor, context)
            #expect((started...finished).contains(entry.time), context)
            let names = want.details.keys.sorted()
            #expect(entry.detailHashes.map(\.name) == names, context)
            #expect(entry.detailHashes.map(\.hash) == names.map { AuditLog.detailHash(name: $0, value: want.details[$0]!, key: keys.hashingKey) }, context)
            // SECURITY.md §8.3 from its definition: HMAC-SHA-256(hashing key, name || 0x00 || value).
            #expect(entry.detailHashes.map(\.hash) == names.map {
                HMAC.sha256(key: keys.hashingKey, message: Array($0.utf8) + [0] + Array(want.details[$0]!.utf8))
            }, context)
            #expect(entry.sealedDetails.isEmpty == want.details.isEmpty, context)
            let unsealed = try AuditLogReader.details(of: entry, vaultID: fixture.vault.vaultID, keys: keys)
            #expect(unsealed == names.map { VaultEvent.Detail($0, want.details[$0]!) }, context)
        }
        #expect(try fixture.reader.verify().entryCount == expected.count)
    }

    @Test("sealed details open only with the vault's audit keys, and only as the entry they were sealed for")
    func detailsAreBoundToTheirEntry() throws {
        let fixture = try AuditedVault()
        let session = try fixture.command { try fixture.unlock() }
        try fixture.command { _ = try session.createCompartment(named: "Grand jury material", register: .legal) }
        let entry = try #require(try fixture.reader.entries().last)
        let keys = try session.auditKeys()
        let vaultID = fixture.vault.vaultID
        #expect(try AuditLogReader.details(of: entry, vaultID: vaultID, keys: keys) == [.init("name", "Grand jury material"), .init("privileged", "yes"),
                                                                                          .init("register", "legal")])

        // Moved to another entry number or another vault, or opened with other keys, they do not open.
        let moved = AuditEntry(seq: entry.seq + 1, time: entry.time, deviceID: entry.deviceID, actor: entry.actor, action: entry.action,
                               compartmentID: entry.compartmentID, subjectID: entry.subjectID, detailHashes: entry.detailHashes,
                               sealedDetails: entry.sealedDetails, previousHash: entry.previousHash)
        #expect(errorCode { try AuditLogReader.details(of: moved, vaultID: vaultID, keys: keys) } == .authenticationFailure)
        var otherVaultBytes = vaultID.bytes
        otherVaultBytes[0] ^= 1
        let otherVault = try VaultID(bytes: otherVaultBytes)
        #expect(errorCode { try AuditLogReader.details(of: entry, vaultID: otherVault, keys: keys) } == .authenticationFailure)
        let swapped = AuditKeys(sealingKey: keys.hashingKey, hashingKey: keys.sealingKey)
        #expect(errorCode { try AuditLogReader.details(of: entry, vaultID: vaultID, keys: swapped) } == .authenticationFailure)
    }

    @Test("an event that cannot be recorded is refused, and nothing of it is written", arguments: [
        VaultEvent(AuditAction("Compartment.Create")), VaultEvent(AuditAction("")), VaultEvent(AuditAction("bundle put")), VaultEvent(AuditAction(String(repeating: "a", count: 65))),
        VaultEvent(AuditAction("test.event"), subjectID: [UInt8](repeating: 1, count: 65)),
        VaultEvent(AuditAction("test.event"), details: [.init("file", "a"), .init("file", "b")]),
        VaultEvent(AuditAction("test.event"), details: [.init("File", "a")]),
        VaultEvent(AuditAction("test.event"), details: [.init("", "a")]),
        VaultEvent(AuditAction("test.event"), details: [.init("file", String(repeating: "x", count: 4097))]),
    ])
    func invalidEventIsRefused(_ event: VaultEvent) throws {
        let fixture = try AuditedVault()
        let keys = try fixture.unlocked.auditKeys()
        let before = try fixture.reader.size()
        #expect(auditErrorCode { try fixture.vault.writeJournalState { try fixture.log.append([VaultEvent(AuditAction("test.valid")), event], in: $0, vaultID: fixture.vault.vaultID, keys: keys) } } == .invalidEvent)
        #expect(try fixture.reader.size() == before)
        // Details need the audit keys: without them (a locked vault) an event with details is refused.
        #expect(auditErrorCode { try fixture.vault.writeJournalState { try fixture.log.append(VaultEvent(AuditAction("test.event"), details: [.init("file", "x")]), in: $0, vaultID: fixture.vault.vaultID, keys: nil) } } == .invalidEvent)
        #expect(try fixture.reader.size() == before)
    }
}

/// Checks, right where it is called, that none of `secrets` is in vault.db or vault.db-wal in the
/// clear, and that the search does find what the log does store in the clear (an action name).
private func expectNoPlaintext(_ secrets: [String], in fixture: AuditedVault, sourceLocation: SourceLocation = #_sourceLocation) {
    let files = fixture.databaseFileBytes()
    #expect(occurs(Array("vault.init".utf8), in: files), "the search does not see the log's clear fields", sourceLocation: sourceLocation)
    for secret in secrets {
        #expect(!occurs(Array(secret.utf8), in: files), "'\(secret)' is in vault.db or vault.db-wal in the clear", sourceLocation: sourceLocation)
    }
}

// MARK: - Chain and tree

@Suite("AuditLog: the hash chain and the stored Merkle tree")
struct AuditChainAndTreeTests {
    @Test("each entry chains to the leaf hash of the one before; the stored tree, its nodes and proofs equal an in-memory tree's at every size")
    func chainAndTree() throws {
        let fixture = try AuditedVault()
        let session = try fixture.command { try fixture.unlock() }
        // Commands of one to four entries, so checkpoints fall at irregular sizes, and the log grows past
        // a power of two (2 + 33 = 35 entries).
        for round in 0..<14 {
            try fixture.command {
                for index in 0..<(round % 4 + 1) { try session.record(VaultEvent(AuditAction("test.event-\(index)"), details: [.init("round", "\(round)")])) }
            }
        }
        let stored = try fixture.storedEntries()
        let leaves = stored.map(\.leafHash)
        try #require(leaves.count == 35)
        let entries = try fixture.reader.entries()
        var previous = [UInt8](repeating: 0, count: 32)
        for (index, row) in stored.enumerated() {
            #expect(entries[index].encoded() == row.entry, "entry \(index)")
            #expect(row.leafHash == SHA256.hash([0x00] + row.entry), "entry \(index): leaf hash is SHA-256(0x00 || entry)")
            #expect(entries[index].leafHash == row.leafHash, "entry \(index)")
            #expect(entries[index].previousHash == previous, "entry \(index) does not chain to entry \(index - 1)")
            previous = row.leafHash
        }

        let memoryTree = try MerkleTree(leafHashes: leaves)
        try fixture.vault.read { database in
            let tree = AuditTreeStore(database: database)
            #expect(try tree.size == leaves.count)
            for size in 0...leaves.count {
                let root = try tree.rootHash(size: size)
                #expect(root == (try memoryTree.rootHash(size: size)), "root at size \(size)")
                #expect(root == Reference.root(Array(leaves.prefix(size))), "root at size \(size)")
            }
            // Every stored node is the head of its complete, aligned subtree, and every such subtree of 16
            // leaves or more (levels 4 and 5 here) is stored; smaller ones are not (SECURITY.md §8.4).
            let nodes = try database.query("SELECT level, idx, hash FROM audit_nodes")
            for node in nodes {
                let (level, index) = (Int(try node.integer("level")), Int(try node.integer("idx")))
                #expect(try node.blob("hash") == Reference.root(Array(leaves[(index << level)..<((index + 1) << level)])), "node \(level)/\(index)")
                #expect(level >= 4, "node \(level)/\(index) is below the lowest stored level")
            }
            #expect(nodes.count == 3)
            // The unstored subtrees are recomputed from the leaf hashes, complete ones only.
            for level in 0..<4 {
                for index in 0...(leaves.count >> level) {
                    let range = (index << level)..<((index + 1) << level)
                    let expected = range.upperBound <= leaves.count ? Reference.root(Array(leaves[range])) : nil
                    #expect(try tree.node(level: level, index: index) == expected, "node \(level)/\(index)")
                }
            }
        }

        for size in [1, 2, 3, 5, 8, 13, 16, 17, 32, 33, 35] {
            let prefix = Array(leaves.prefix(size))
            for index in 0..<size {
                let proof = try fixture.reader.inclusionProof(entry: index, size: size)
                #expect(proof.leafHash == leaves[index] && proof.size == size && proof.root == Reference.root(prefix))
                #expect(proof.proof == Reference.path(index, prefix), "inclusion (\(index), \(size))")
                #expect(proof.proof == (try memoryTree.inclusionProof(index: index, size: size)), "inclusion (\(index), \(size))")
                let verdict = failure { () throws(AuditChainError) in
                    try MerkleVerification.verifyInclusion(leafHash: proof.leafHash, index: index, treeSize: size, proof: proof.proof, rootHash: proof.root)
                }
                #expect(verdict == nil, "inclusion (\(index), \(size)) does not verify")
            }
            for first in 0...size {
                let proof = try fixture.reader.consistencyProof(from: first, to: size)
                #expect(proof.root1 == Reference.root(Array(leaves.prefix(first))) && proof.root2 == Reference.root(prefix))
                #expect(proof.proof == (first > 0 && first < size ? Reference.proof(first, prefix) : []), "consistency (\(first), \(size))")
                #expect(proof.proof == (try memoryTree.consistencyProof(from: first, to: size)), "consistency (\(first), \(size))")
                let verdict = failure { () throws(AuditChainError) in
                    try MerkleVerification.verifyConsistency(size1: first, size2: size, root1: proof.root1, root2: proof.root2, proof: proof.proof)
                }
                #expect(verdict == nil, "consistency (\(first), \(size)) does not verify")
            }
        }
        #expect(try fixture.reader.inclusionProof(entry: 4, size: nil).size == leaves.count)
        #expect(auditErrorCode { try fixture.reader.inclusionProof(entry: 35, size: 35) } == .indexOutOfRange)
        #expect(auditErrorCode { try fixture.reader.inclusionProof(entry: 0, size: 36) } == .sizeOutOfRange)
        #expect(auditErrorCode { try fixture.reader.consistencyProof(from: 5, to: 36) } == .sizeOutOfRange)
        #expect(auditErrorCode { try fixture.reader.consistencyProof(from: 6, to: 5) } == .sizeOutOfRange)
    }
}

@Suite("AuditLog: a vault of schema 3 (every tree node stored) migrates to the current schema")
struct AuditTreeMigrationTests {
    @Test("migration 6 drops the stored nodes below level 4 and keeps the rest; roots, proofs, appends and verification agree afterwards")
    func migratesNodesBelowLevel4() throws {
        let fixture = try AuditedVault()
        let session = try fixture.command { try fixture.unlock() }
        try fixture.command { for index in 0..<70 { try session.record(VaultEvent(AuditAction("test.event-\(index % 3)"))) } }
        let leaves = try fixture.storedEntries().map(\.leafHash)
        try #require(leaves.count == 72)
        let memoryTree = try MerkleTree(leafHashes: leaves)

        // Rebuild the file as schema 3 left it: audit_nodes with every complete subtree of 2 or more
        // leaves, the operations table (dropped by migration 4), no device, fingerprint or witness tables (made by migrations 5, 7 and 9).
        var schema3Nodes: [String] = []
        for level in 1...6 {
            for index in 0..<(leaves.count >> level) {
                let hash = Reference.root(Array(leaves[(index << level)..<((index + 1) << level)]))
                schema3Nodes.append("(\(level), \(index), x'\(hash.map { String(format: "%02x", $0) }.joined())')")
            }
        }
        let old = try fixture.copyOfVault()
        try Database(path: old + "/" + Vault.databaseName, create: false).execute("""
            DROP TABLE audit_nodes;
            CREATE TABLE audit_nodes (
                level INTEGER NOT NULL CHECK (level >= 1), idx INTEGER NOT NULL CHECK (idx >= 0),
                hash BLOB NOT NULL CHECK (length(hash) = 32), PRIMARY KEY (level, idx)) STRICT, WITHOUT ROWID;
            INSERT INTO audit_nodes (level, idx, hash) VALUES \(schema3Nodes.joined(separator: ", "));
            \(OperationsTableMigrationTests.operationsTable)
            DROP TABLE device_identity; DROP TABLE family_pairings; DROP TABLE leak_fingerprints; DROP TABLE replicas;
            DROP TABLE witnessed_logs; DROP TABLE audit_cosignatures; DROP TABLE shared_compartment_keys; DROP TABLE shared_compartments;
            \(try OperationsTableMigrationTests.droppingTablesAfterVersion12())
            ALTER TABLE compartments DROP COLUMN binding;
            DELETE FROM vault_meta WHERE key IN ('metadata_bound', 'kdf_policy_mac');
            PRAGMA user_version = 3;
            """)

        let log = AuditLog()
        let migrated = try Vault.open(at: old, journal: log)
        try migrated.read { database in
            #expect(try database.queryOne("PRAGMA user_version")?.integer("user_version") == Schema.currentVersion)
            let levels = try database.query("SELECT level, count(*) AS n FROM audit_nodes GROUP BY level ORDER BY level").map {
                [try $0.integer("level"), try $0.integer("n")]
            }
            #expect(levels == [[4, 4], [5, 2], [6, 1]], "only the nodes of levels 4 and up remain")
            #expect(try database.queryOne("SELECT hash FROM audit_nodes WHERE level = 6 AND idx = 0")?.blob("hash") == Reference.root(Array(leaves[0..<64])))
            let tree = AuditTreeStore(database: database)
            for size in [1, 15, 16, 17, 33, 64, 71, 72] {
                #expect(try tree.rootHash(size: size) == (try memoryTree.rootHash(size: size)), "root at size \(size)")
                for index in [0, size / 2, size - 1] {
                    #expect(try tree.inclusionProof(index: index, size: size) == (try memoryTree.inclusionProof(index: index, size: size)),
                            "inclusion (\(index), \(size))")
                }
            }
        }
        // The appender picks up the migrated tree's right edge; the log goes on and verifies.
        let reopened = try migrated.unlock(with: .passphrase(try secret(AuditedVault.passphrase)))
        for index in 0..<30 { try reopened.record(VaultEvent(AuditAction("test.after-\(index % 2)"))) }
        try migrated.finishCommand()
        let report = try AuditLogReader(vault: migrated).verify()
        // 72, the upgrade, the unlock and 30, plus the first unlock's binding after migration 12 (one
        // compartment.bind per compartment, then vault.bind-metadata).
        #expect(report.entryCount == 104 + (try MigrationTestsSupport.boundEntries(migrated)) && report.uncheckpointedEntries == 0)
        #expect(try migrated.read { try $0.queryOne("SELECT count(*) AS n FROM audit_nodes WHERE level = 5")?.integer("n") } == 3)
        let refusal = #expect(throws: CryptoVaultError.self, "the rebuilt table keeps its append-only trigger") {
            try Database(path: old + "/" + Vault.databaseName, create: false).execute("DELETE FROM audit_nodes WHERE level = 4")
        }
        #expect(refusal?.code == .database && refusal?.message.contains("the audit log is append-only") == true)
    }
}

// MARK: - Entry encoding

/// An entry's fields, encoded here from SECURITY.md §8.2 without AuditEntry's help, so that any field
/// can hold what AuditEntry would never write. Length bytes are the fields' own unless overridden.
struct RawAuditEntry: Sendable {
    struct Detail: Sendable { var name: [UInt8], hash: [UInt8] }

    var version: UInt8 = 1
    var seq: UInt64 = 41
    var time: Int64 = 1_764_000_000
    var deviceID = [UInt8](repeating: 0xD1, count: 16)
    var actor = Array("ana (uid 1000)".utf8)
    var action = Array("bundle.put".utf8)
    var compartmentID = [UInt8](repeating: 0xC0, count: 16)
    var subjectID = [UInt8](repeating: 0x5B, count: 16)
    var details = [Detail(name: Array("file".utf8), hash: [UInt8](repeating: 0xAA, count: 32))]
    var sealed = [UInt8](repeating: 0xEE, count: 24 + 9 + 16)
    var previousHash = [UInt8](repeating: 0x99, count: 32)
    var trailing: [UInt8] = []
    var declaredDetailCount: UInt8?
    var declaredSealedLength: UInt32?

    var bytes: [UInt8] {
        var bytes = [version] + bigEndian(seq, width: 8) + bigEndian(UInt64(bitPattern: time), width: 8) + deviceID
        for field in [actor, action, compartmentID, subjectID] { bytes += [UInt8(truncatingIfNeeded: field.count)] + field }
        bytes.append(declaredDetailCount ?? UInt8(truncatingIfNeeded: details.count))
        for detail in details { bytes += [UInt8(truncatingIfNeeded: detail.name.count)] + detail.name + detail.hash }
        bytes += bigEndian(UInt64(declaredSealedLength ?? UInt32(sealed.count)), width: 4) + sealed
        return bytes + previousHash + trailing
    }

    func with(_ change: (inout RawAuditEntry) -> Void) -> RawAuditEntry {
        var copy = self
        change(&copy)
        return copy
    }
}

/// A decoding refusal: the baseline entry with one field made invalid, and the words that say why.
struct EntryRefusal: Sendable, CustomTestStringConvertible {
    let name: String
    let entry: RawAuditEntry
    let reason: String
    var testDescription: String { name }

    init(_ name: String, _ reason: String, _ change: (inout RawAuditEntry) -> Void) {
        self.name = name
        self.reason = reason
        self.entry = RawAuditEntry().with(change)
    }

    static let all: [EntryRefusal] = [
        .init("version 0", "unknown version") { $0.version = 0 },
        .init("version 2", "unknown version") { $0.version = 2 },
        .init("version 0xFF", "unknown version") { $0.version = 0xFF },
        .init("one trailing byte", "trailing") { $0.trailing = [0] },
        .init("a second previous hash", "trailing") { $0.trailing = [UInt8](repeating: 0x99, count: 32) },
        .init("more than 65536 bytes", "too large") { $0.sealed = [UInt8](repeating: 0xEE, count: 65_536) },
        .init("actor: overlong UTF-8", "text field") { $0.actor = [0xC0, 0xAF] },
        .init("actor: a surrogate", "text field") { $0.actor = [0xED, 0xA0, 0x80] },
        .init("actor: a truncated sequence", "text field") { $0.actor = [0x61, 0xE2, 0x82] },
        .init("action: 65 bytes", "text field") { $0.action = [UInt8](repeating: 0x61, count: 65) },
        .init("action: upper case", "text field") { $0.action = Array("Bundle.put".utf8) },
        .init("action: a space", "text field") { $0.action = Array("bundle put".utf8) },
        .init("action: an underscore", "text field") { $0.action = Array("bundle_put".utf8) },
        .init("action: a slash", "text field") { $0.action = Array("bundle/put".utf8) },
        .init("action: non-ASCII", "text field") { $0.action = Array("bündle.put".utf8) },
        .init("compartment id of 1 byte", "impossible length") { $0.compartmentID = [1] },
        .init("compartment id of 15 bytes", "impossible length") { $0.compartmentID = [UInt8](repeating: 1, count: 15) },
        .init("compartment id of 17 bytes", "impossible length") { $0.compartmentID = [UInt8](repeating: 1, count: 17) },
        .init("subject id of 65 bytes", "impossible length") { $0.subjectID = [UInt8](repeating: 1, count: 65) },
        .init("subject id of 255 bytes", "impossible length") { $0.subjectID = [UInt8](repeating: 1, count: 255) },
        .init("detail name: a dot", "text field") { $0.details[0].name = Array("file.name".utf8) },
        .init("detail name: upper case", "text field") { $0.details[0].name = Array("File".utf8) },
        .init("detail name: 33 bytes", "text field") { $0.details[0].name = [UInt8](repeating: 0x61, count: 33) },
        .init("sealed details of 1 byte", "sealed details are truncated") { $0.sealed = [0xEE] },
        .init("sealed details of 39 bytes", "sealed details are truncated") { $0.sealed = [UInt8](repeating: 0xEE, count: 39) },
        .init("sealed length past the end", "truncated") { $0.declaredSealedLength = UInt32.max },
        .init("sealed length one more than given", "truncated") { $0.declaredSealedLength = UInt32($0.sealed.count + 1) },
        .init("detail count larger than the details", "truncated") { $0.declaredDetailCount = 2 },
        .init("previous hash of 31 bytes", "truncated") { $0.previousHash.removeLast() },
    ]
}

/// What the decoder accepts although vaultctl never writes it (SECURITY.md §8.2): covered by the
/// chain and the checkpoints like any other byte, and re-encoded to the same bytes.
struct EntryAcceptance: Sendable, CustomTestStringConvertible {
    let name: String
    let entry: RawAuditEntry
    var testDescription: String { name }

    init(_ name: String, _ change: (inout RawAuditEntry) -> Void) {
        self.name = name
        self.entry = RawAuditEntry().with(change)
    }

    static let all: [EntryAcceptance] = [
        .init("the baseline") { _ in },
        .init("an empty action") { $0.action = [] },
        .init("an action of 64 bytes") { $0.action = [UInt8](repeating: 0x2d, count: 64) },
        .init("an actor of 255 bytes") { $0.actor = [UInt8](repeating: 0x7a, count: 255) },
        .init("an empty actor") { $0.actor = [] },
        .init("a subject id of 64 bytes") { $0.subjectID = [UInt8](repeating: 7, count: 64) },
        .init("no compartment, no subject") { $0.compartmentID = []; $0.subjectID = [] },
        .init("an empty detail name") { $0.details[0].name = [] },
        .init("a detail name of 32 bytes") { $0.details[0].name = Array("abcdefghijklmnopqrstuvwxyz_-0129".utf8) },
        .init("255 details") { $0.details = (0..<255).map { .init(name: Array("d\($0)".utf8), hash: [UInt8](repeating: UInt8($0), count: 32)) } },
        .init("repeated, unordered detail names") {
            $0.details = ["b", "a", "b"].map { .init(name: Array($0.utf8), hash: [UInt8](repeating: 3, count: 32)) }
        },
        .init("detail hashes without sealed details") { $0.sealed = [] },
        .init("sealed details without detail hashes") { $0.details = [] },
        .init("sealed details of exactly 40 bytes") { $0.sealed = [UInt8](repeating: 0xEE, count: 40) },
        .init("a negative time") { $0.time = -1 },
        .init("the largest seq") { $0.seq = .max },
        .init("exactly 65536 bytes") { $0.sealed = [UInt8](repeating: 0xEE, count: 65_536 - (RawAuditEntry().bytes.count - 49)) },
    ]
}

@Suite("AuditEntry: the canonical encoding and its strict decoder")
struct AuditEntryEncodingTests {
    @Test("AuditEntry encodes exactly the bytes of SECURITY.md §8.2, and decodes them back to the same fields")
    func encodingFollowsTheSpecification() throws {
        let raw = RawAuditEntry()
        let entry = AuditEntry(seq: raw.seq, time: raw.time, deviceID: try AuditDeviceID(bytes: raw.deviceID), actor: "ana (uid 1000)", action: "bundle.put",
                               compartmentID: try CompartmentID(bytes: raw.compartmentID), subjectID: raw.subjectID,
                               detailHashes: [.init(name: "file", hash: raw.details[0].hash)], sealedDetails: raw.sealed,
                               previousHash: raw.previousHash)
        #expect(entry.encoded() == raw.bytes)
        #expect(try AuditEntry(decoding: raw.bytes) == entry)
        #expect(entry.leafHash == SHA256.hash([0x00] + raw.bytes))
    }

    @Test("every entry a vault writes round-trips, and no proper prefix of it decodes")
    func vaultEntriesRoundTrip() throws {
        let fixture = try AuditedVault()
        let session = try fixture.command { try fixture.unlock() }
        try fixture.command {
            let compartment = try session.createCompartment(named: "Round trip", register: .general)
            _ = try fixture.put("round-trip.txt", contents: "x", in: compartment, by: session)
        }
        for (seq, row) in try fixture.storedEntries().enumerated() {
            let entry = try AuditEntry(decoding: row.entry)
            #expect(entry.encoded() == row.entry, "entry \(seq)")
            #expect(entry.seq == UInt64(seq))
            for length in 0..<row.entry.count {
                #expect(auditErrorCode { try AuditEntry(decoding: Array(row.entry.prefix(length))) } == .malformedEntry,
                        "entry \(seq) cut to \(length) bytes")
            }
        }
    }

    @Test("the decoder accepts what the format allows and gives back the same bytes", arguments: EntryAcceptance.all)
    func acceptedEncodingsRoundTrip(_ acceptance: EntryAcceptance) throws {
        let bytes = acceptance.entry.bytes
        let entry = try AuditEntry(decoding: bytes)
        #expect(entry.encoded() == bytes)
        #expect(entry.action.utf8.elementsEqual(acceptance.entry.action))
        #expect(entry.detailHashes.map { Array($0.name.utf8) } == acceptance.entry.details.map(\.name))
        #expect(entry.sealedDetails == acceptance.entry.sealed)
        #expect(entry.seq == acceptance.entry.seq && entry.time == acceptance.entry.time)
    }

    @Test("the decoder refuses each malformed field, for that reason", arguments: EntryRefusal.all)
    func malformedEntryIsRefused(_ refusal: EntryRefusal) throws {
        do {
            let entry = try AuditEntry(decoding: refusal.entry.bytes)
            Issue.record("accepted: \(entry)")
        } catch let error as AuditChainError {
            #expect(error.code == .malformedEntry)
            #expect(error.message.contains(refusal.reason), "refused for another reason: \(error.message)")
        }
    }

    @Test("an event whose entry would exceed 65536 bytes is refused when it is recorded, and nothing of it is written")
    func oversizedEntryIsNeverWritten() throws {
        let fixture = try AuditedVault()
        let session = try fixture.command { try fixture.unlock() }
        let value = String(repeating: "v", count: 4096)
        // Each 4 KiB detail adds 4101 bytes of sealed plaintext and a 35-byte hash entry: 15 fit, 16 do not.
        let details = { (count: Int) in (0..<count).map { VaultEvent.Detail(String(format: "d%02d", $0), value) } }
        try fixture.command { try session.record(VaultEvent(AuditAction("test.fifteen-details"), details: details(15))) }
        let written = try #require(try fixture.storedEntries().last)
        #expect(written.entry.count <= AuditEntry.maximumEncodedSize && written.entry.count > 60_000, "\(written.entry.count) bytes")
        let before = try fixture.storedEntries().count

        for count in [16, 32] {
            do {
                try fixture.command { try session.record(VaultEvent(AuditAction("test.too-many-details"), details: details(count))) }
                Issue.record("\(count) details of 4 KiB were recorded")
            } catch let error as AuditChainError {
                #expect(error.code == .invalidEvent && error.message.contains("more than the 65536"), "\(count) details: \(error.message)")
            }
        }
        #expect(try fixture.storedEntries().count == before, "the refused events left no entry")
        #expect(try fixture.reader.verify().entryCount == before)
        let entry = AuditEntry(seq: 0, time: 0, deviceID: try AuditDeviceID(bytes: [UInt8](repeating: 0, count: 16)), actor: "", action: "big", compartmentID: nil,
                               subjectID: [], detailHashes: [], sealedDetails: [UInt8](repeating: 1, count: 65_536), previousHash: [UInt8](repeating: 0, count: 32))
        #expect(auditErrorCode { try entry.boundedEncoding() } == .invalidEvent)
        #expect(auditErrorCode { try AuditEntry(decoding: entry.encoded()) } == .malformedEntry, "the decoder refuses what the encoder refuses")
    }

    @Test("a cut encoding is refused at every length, a lengthened one at every extra byte")
    func truncationAndTrailingBytes() throws {
        let bytes = RawAuditEntry().bytes
        for length in 0..<bytes.count {
            #expect(auditErrorCode { try AuditEntry(decoding: Array(bytes.prefix(length))) } == .malformedEntry, "cut to \(length) bytes")
        }
        for extra in [[0x00], [0x01], [UInt8](repeating: 0, count: 32)] as [[UInt8]] {
            #expect(auditErrorCode { try AuditEntry(decoding: bytes + extra) } == .malformedEntry, "\(extra.count) extra bytes")
        }
    }
}

// MARK: - Checkpoints

/// Checks the stored checkpoints against the log: their sizes are `sizes`, each was signed by its own
/// epoch's key (and by no other), states the root of the entries it covers, and each key transition
/// names the checkpoint its outgoing key signed last.
private func expectCheckpoints(_ fixture: AuditedVault, sizes: [Int], sourceLocation: SourceLocation = #_sourceLocation) throws {
    let rows = try fixture.vault.read { try $0.query("SELECT tree_size, epoch, note FROM audit_checkpoints ORDER BY id") }
    let keyRows = try fixture.vault.read { try $0.query("SELECT epoch, private_key, introduction FROM audit_signing_keys ORDER BY epoch") }
    let leaves = try fixture.storedEntries().map(\.leafHash)
    let chain = try fixture.reader.chainKeys()
    let origin = fixture.reader.origin
    #expect(try rows.map { Int(try $0.integer("tree_size")) } == sizes, sourceLocation: sourceLocation)
    #expect(try rows.map { Int(try $0.integer("epoch")) } == Array(0..<rows.count), "each checkpoint moves the chain one epoch on",
            sourceLocation: sourceLocation)
    #expect(keyRows.count == rows.count + 1 && chain.count == keyRows.count, sourceLocation: sourceLocation)
    #expect(keyRows.map { if case .blob = $0["private_key"] { true } else { false } } == keyRows.indices.map { $0 == keyRows.count - 1 },
            "only the newest key keeps its private half", sourceLocation: sourceLocation)
    for (epoch, row) in rows.enumerated() {
        let note = try SignedNote(parsing: try row.text("note"))
        let checkpoint = try Checkpoint(verifying: note, origin: origin, logKey: chain[epoch])
        let size = Int(try row.integer("tree_size"))
        #expect(checkpoint == (try Checkpoint(parsing: note.body)), sourceLocation: sourceLocation)
        #expect(checkpoint.treeSize == UInt64(size) && checkpoint.extensionLines.isEmpty, sourceLocation: sourceLocation)
        #expect(checkpoint.rootHash == Reference.root(Array(leaves.prefix(size))), "checkpoint \(epoch) root", sourceLocation: sourceLocation)
        for (other, key) in chain.enumerated() where other != epoch {
            #expect(auditErrorCode { try note.verify(using: [key]) } == .noVerifiedSignature, sourceLocation: sourceLocation)
        }
        let introduction = try SignedNote(parsing: try keyRows[epoch + 1].text("introduction"))
        _ = try introduction.verify(using: [chain[epoch]])
        let transition = try KeyTransition(parsing: introduction.body)
        #expect(transition.epoch == epoch + 1 && transition.publicKey == chain[epoch + 1].publicKey, sourceLocation: sourceLocation)
        #expect(transition.after == checkpoint, "the transition names the checkpoint its outgoing key signed", sourceLocation: sourceLocation)
    }
    #expect(try fixture.reader.latestCheckpoint() == (try rows.last?.text("note")), sourceLocation: sourceLocation)
}

@Suite("AuditLog: checkpoints")
struct AuditCheckpointTests {
    @Test("each command ends with a checkpoint of the whole log, signed by its epoch's key; a command that recorded nothing adds none")
    func checkpointAtTheEndOfEachCommand() throws {
        let fixture = try AuditedVault()
        try expectCheckpoints(fixture, sizes: [1])
        let session = try fixture.command { try fixture.unlock() }
        try expectCheckpoints(fixture, sizes: [1, 2])
        try fixture.command { for name in ["a", "b", "c"] { try session.record(VaultEvent(AuditAction("test.\(name)"))) } }
        try expectCheckpoints(fixture, sizes: [1, 2, 5])
        try fixture.command {}
        try expectCheckpoints(fixture, sizes: [1, 2, 5])
        try fixture.command { try fixture.vault.recordLocked(.auditVerify) }
        try expectCheckpoints(fixture, sizes: [1, 2, 5, 6])
        #expect(try fixture.reader.verify().uncheckpointedEntries == 0)
    }

    @Test("the checkpointer's notes and key introductions are exactly what Checkpoint, SignedNote and NoteSigner produce")
    func checkpointerUsesTheC2SPTypes() throws {
        let fixture = try AuditedVault()
        let session = try fixture.command { try fixture.unlock() }
        let keyRow = { (epoch: Int) in
            try fixture.vault.read { try $0.queryOne("SELECT private_key FROM audit_signing_keys WHERE epoch = ?", [.integer(Int64(epoch))]) }
        }
        let seed = try #require(try keyRow(2)?.blob("private_key"), "epoch 2's key is the current one before the command")
        let signer = try NoteSigner(name: fixture.reader.origin, privateKey: try Ed25519PrivateKey(seed: try SecureBytes(copying: seed)))
        try fixture.command { try session.record(VaultEvent(AuditAction("test.event"))) }

        let stored = try fixture.vault.read { database in
            try #require(try database.queryOne("SELECT tree_size, note FROM audit_checkpoints WHERE epoch = 2"))
        }
        let size = Int(try stored.integer("tree_size"))
        let root = Reference.root(try fixture.storedEntries().prefix(size).map(\.leafHash))
        let expected = try Checkpoint(origin: fixture.reader.origin, treeSize: UInt64(size), rootHash: root)
        #expect(try stored.text("note") == (try SignedNote.sign(body: expected.body, signers: [signer]).serialized()))
        let introduction = try #require(try fixture.vault.read { try $0.queryOne("SELECT introduction FROM audit_signing_keys WHERE epoch = 3") })
        let transition = try KeyTransition(parsing: try SignedNote(parsing: try introduction.text("introduction")).body)
        #expect(transition.after == expected, "the transition follows the checkpoint just signed")
        #expect(try introduction.text("introduction") == (try SignedNote.sign(body: transition.text, signers: [signer]).serialized()))
    }

    @Test("a batch appended in one transaction is checkpointed every 256 entries since the last checkpoint")
    func checkpointEvery256EntriesOfABatch() throws {
        let fixture = try AuditedVault()
        let session = try fixture.command { try fixture.unlock() }
        try session.record(VaultEvent(AuditAction("test.before-batch")))
        let keys = try session.auditKeys()
        let events = (0..<600).map { index in
            VaultEvent(AuditAction("test.batch"), subjectID: bigEndian(UInt64(index), width: 2), details: index % 3 == 0 ? [.init("file", "batch-\(index).txt")] : [])
        }
        try fixture.vault.writeJournalState { try fixture.log.append(events, in: $0, vaultID: fixture.vault.vaultID, keys: keys) }
        // One entry was unsigned before the batch, so 255 of the batch complete the first 256.
        try expectCheckpoints(fixture, sizes: [1, 2, 258, 514])
        try fixture.vault.finishCommand()
        try expectCheckpoints(fixture, sizes: [1, 2, 258, 514, 603])
        let report = try fixture.reader.verify()
        #expect(report.entryCount == 603 && report.checkpointCount == 5 && report.epochCount == 6 && report.uncheckpointedEntries == 0)
        let entries = try fixture.reader.entries()
        #expect(try AuditLogReader.details(of: entries[303], vaultID: fixture.vault.vaultID, keys: keys) == [.init("file", "batch-300.txt")])
    }

    @Test("a batch rolls back with its transaction: none of its entries, nodes or checkpoints remain")
    func batchRollsBackWithItsTransaction() throws {
        struct Abandoned: Error {}
        let fixture = try AuditedVault()
        let keys = try fixture.unlocked.auditKeys()
        let counts = {
            try fixture.vault.read { database in
                try ["audit_entries", "audit_nodes", "audit_checkpoints", "audit_signing_keys"].map {
                    try database.queryOne("SELECT count(*) AS n FROM \($0)")!.integer("n")
                }
            }
        }
        let before = try counts()
        #expect(throws: Abandoned.self) {
            try fixture.vault.writeJournalState { database in
                try fixture.log.append((0..<300).map { _ in VaultEvent(AuditAction("test.batch")) }, in: database, vaultID: fixture.vault.vaultID, keys: keys)
                throw Abandoned()
            }
        }
        #expect(try counts() == before)
        #expect(try fixture.reader.verify().entryCount == 1)
    }
}

// MARK: - Tampering

/// A log made as vaultctl makes one, with a pristine export and the trusted genesis key: 13 entries
/// in commands of one or two entries, each command closed by a checkpoint:
///
///     0 init | 1 unlock, 2 compartment.create | 3 unlock, 4 bundle.put | 5 unlock, 6 rotate
///     | 7 unlock-failed | 8 unlock, 9 recovery.create-key | 10 audit.verify | 11 unlock, 12 bundle.put
private final class TamperFixture {
    static let entryCount = 13
    static let checkpointSizes = [1, 3, 5, 7, 8, 10, 11, 13]

    let audited: AuditedVault
    let genesis: NoteVerifierKey
    let export: [UInt8]

    init() throws {
        let vault = try AuditedVault()
        let name = "Family court filings"
        try vault.command { _ = try vault.unlock().createCompartment(named: name, register: .legal) }
        try vault.command { let session = try vault.unlock(); _ = try vault.put("exhibit-a.pdf", contents: "a", in: try session.compartment(named: name), by: session) }
        try vault.command { try vault.unlock().rotateCompartment(named: name) }
        try vault.command { _ = try? vault.unlock("not the passphrase") }
        try vault.command { _ = try vault.unlock().createRecoveryKey() }
        try vault.command { try vault.vault.recordLocked(.auditVerify) }
        try vault.command { let session = try vault.unlock(); _ = try vault.put("exhibit-b.pdf", contents: "b", in: try session.compartment(named: name), by: session) }
        audited = vault
        genesis = try vault.reader.genesisKey()
        export = try vault.export()
        let report = try vault.reader.verify()
        try #require(report.entryCount == Self.entryCount && report.checkpointCount == Self.checkpointSizes.count)
        try #require(try vault.vault.read { try $0.query("SELECT tree_size FROM audit_checkpoints ORDER BY id").map { Int(try $0.integer("tree_size")) } }
                     == Self.checkpointSizes)
    }

    var vaultID: VaultID { audited.vault.vaultID }
    var origin: String { audited.reader.origin }

    /// A connection of its own to a fresh copy of vault.db with the append-only triggers dropped and
    /// CHECK constraints off: what anyone holding the file can do to it.
    func tamperableCopy() throws -> Database {
        let database = try Database(path: try audited.copyOfDatabase(), create: false)
        try database.execute("""
            PRAGMA ignore_check_constraints = ON;
            DROP TRIGGER audit_entries_no_update; DROP TRIGGER audit_entries_no_delete;
            DROP TRIGGER audit_checkpoints_no_update; DROP TRIGGER audit_checkpoints_no_delete;
            DROP TRIGGER audit_signing_keys_only_erase; DROP TRIGGER audit_signing_keys_no_delete;
            """)
        return database
    }

    func verify(_ database: Database) -> Outcome {
        Outcome {
            try database.readTransaction {
                try AuditVerifier(snapshot: try AuditSnapshot.load(from: database, vaultID: vaultID), genesis: genesis).verify()
            }
        }
    }

    func verify(export bytes: [UInt8]) -> Outcome {
        Outcome { try AuditVerifier(snapshot: try AuditExport.parse(bytes), genesis: genesis).verify() }
    }

    /// What `vaultctl audit verify` runs: the tampered file opened as a vault, its own genesis key trusted.
    func verifyAsVault(_ database: Database) -> Outcome {
        Outcome {
            try database.truncateLog()  // the edits are in the copy's WAL until folded into its file
            return try AuditLogReader(vault: try Vault.open(at: try audited.copyOfVault(database: database.path), journal: AuditLog())).verify()
        }
    }

    /// Which bytes of each entry to change, and how: every byte of entry 4 (a mid-log bundle.put with
    /// sealed details, the second entry of its command) by one bit; of every entry, the first and last
    /// byte of each field (length bytes, field edges, the previous hash), where a change is likeliest to
    /// be blamed on a neighbour, by one bit and by all eight. A verification takes milliseconds in a
    /// debug build, so not every byte of every entry.
    static func changes(in entry: [UInt8], seq: Int) -> [(offset: Int, mask: UInt8)] {
        var edges: Set<Int> = []
        var offset = 0
        func field(_ length: Int) {
            if length > 0 { edges.formUnion([offset, offset + length - 1]) }
            offset += length
        }
        func lengthThenField() {
            field(1)
            field(Int(entry[offset - 1]))
        }
        field(1); field(8); field(8); field(16)
        for _ in 0..<4 { lengthThenField() }
        field(1)
        for _ in 0..<Int(entry[offset - 1]) { lengthThenField(); field(32) }
        field(4)
        field(entry[(offset - 4)..<offset].reduce(0) { $0 << 8 | Int($1) })
        field(32)
        let everyByte = seq == 4 ? Set(entry.indices) : edges
        return everyByte.sorted().map { ($0, 0x01) } + edges.sorted().map { ($0, 0xFF) }
    }

    /// The verdict a single change to entry `seq` must get: that entry named, or, for the newest entry
    /// (which no later entry chains to), at least a failure.
    static func isRight(_ outcome: Outcome, forChangeTo seq: Int) -> Bool {
        seq == entryCount - 1 ? outcome.isVerificationFailure : outcome == .failed(entry: seq)
    }
}

/// An export's lines (the end line left off), to edit and write back with the end line recomputed, as
/// anyone editing the file can (the end line is a checksum, not a signature).
private struct EditableExport {
    var lines: [String]

    init(_ bytes: [UInt8]) throws {
        let all = String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        try #require(all.count >= 3 && all.last == "" && all[all.count - 2].hasPrefix("end "))
        lines = Array(all.dropLast(2))
    }

    func index(of kind: String, _ number: Int) -> Int {
        lines.indices.filter { lines[$0].hasPrefix(kind + " ") }[number]
    }

    func entry(_ seq: Int) throws -> [UInt8] {
        [UInt8](try #require(Data(base64Encoded: String(lines[index(of: "entry", seq)].dropFirst(6)))))
    }

    mutating func setEntry(_ seq: Int, _ bytes: [UInt8]) {
        lines[index(of: "entry", seq)] = "entry " + base64(bytes)
    }

    /// The note of checkpoint `number`, and a setter that keeps its epoch.
    func checkpointNote(_ number: Int) throws -> String {
        let fields = lines[index(of: "checkpoint", number)].split(separator: " ")
        return String(decoding: try #require(Data(base64Encoded: String(fields[2]))), as: UTF8.self)
    }

    mutating func setCheckpoint(_ number: Int, epoch: Int, note: String) {
        lines[index(of: "checkpoint", number)] = "checkpoint \(epoch) \(base64(Array(note.utf8)))"
    }

    var bytes: [UInt8] {
        let body = Array(lines.map { $0 + "\n" }.joined().utf8)
        let count = lines.filter { $0.hasPrefix("entry ") }.count
        return body + Array("end \(count) \(base64(SHA256.hash(body)))\n".utf8)
    }
}

@Suite("AuditVerifier: tampering is detected, naming the entry")
struct AuditTamperTests {
    /// Changes bytes of each stored entry one at a time (see `changes`) and collects the verdicts that
    /// do not name that entry. `rewriteLeafHash` also rewrites the recorded leaf hash to match, as an
    /// attacker who knows the schema would.
    private func flipEveryByte(rewriteLeafHash: Bool) throws -> [String] {
        let fixture = try TamperFixture()
        let database = try fixture.tamperableCopy()
        #expect(fixture.verify(database) == .verified(entries: TamperFixture.entryCount))
        var wrong: [String] = []
        for seq in 0..<TamperFixture.entryCount {
            let row = try #require(try database.queryOne("SELECT entry, leaf_hash FROM audit_entries WHERE seq = ?", [.integer(Int64(seq))]))
            let (original, originalLeaf) = (try row.blob("entry"), try row.blob("leaf_hash"))
            for (offset, mask) in TamperFixture.changes(in: original, seq: seq) {
                var changed = original
                changed[offset] ^= mask
                try database.query("UPDATE audit_entries SET entry = ?, leaf_hash = ? WHERE seq = ?",
                                   [.blob(changed), .blob(rewriteLeafHash ? MerkleHash.leaf(changed) : originalLeaf), .integer(Int64(seq))])
                let outcome = fixture.verify(database)
                if !TamperFixture.isRight(outcome, forChangeTo: seq) { wrong.append("entry \(seq), byte \(offset) ^ 0x\(String(mask, radix: 16)): \(outcome)") }
            }
            try database.query("UPDATE audit_entries SET entry = ?, leaf_hash = ? WHERE seq = ?", [.blob(original), .blob(originalLeaf), .integer(Int64(seq))])
        }
        #expect(fixture.verify(database) == .verified(entries: TamperFixture.entryCount), "the restored copy no longer verifies")
        return wrong
    }

    @Test("single-byte changes to the entries in vault.db are detected, naming the changed entry")
    func byteChangesInTheDatabase() throws {
        let wrong = try flipEveryByte(rewriteLeafHash: false)
        #expect(wrong.isEmpty, "\(wrong.count) changes not reported as the changed entry, e.g.:\n\(wrong.prefix(12).joined(separator: "\n"))")
    }

    @Test("single-byte changes to entries in vault.db, their recorded leaf hashes rewritten to match, are detected, naming the changed entry")
    func byteChangesWithRewrittenLeafHashes() throws {
        let wrong = try flipEveryByte(rewriteLeafHash: true)
        #expect(wrong.isEmpty, "\(wrong.count) changes not reported as the changed entry, e.g.:\n\(wrong.prefix(12).joined(separator: "\n"))")
    }

    @Test("single-byte changes to the entries of an export are detected, naming the changed entry")
    func byteChangesInAnExport() throws {
        let fixture = try TamperFixture()
        let export = try EditableExport(fixture.export)
        #expect(export.bytes == fixture.export, "the export's end line is not recomputed as the parser checks it")
        #expect(fixture.verify(export: fixture.export) == .verified(entries: TamperFixture.entryCount))
        var wrong: [String] = []
        for seq in 0..<TamperFixture.entryCount {
            let original = try export.entry(seq)
            for (offset, mask) in TamperFixture.changes(in: original, seq: seq) {
                var changed = original
                changed[offset] ^= mask
                var edited = export
                edited.setEntry(seq, changed)
                let outcome = fixture.verify(export: edited.bytes)
                if !TamperFixture.isRight(outcome, forChangeTo: seq) { wrong.append("entry \(seq), byte \(offset) ^ 0x\(String(mask, radix: 16)): \(outcome)") }
            }
        }
        #expect(wrong.isEmpty, "\(wrong.count) changes not reported as the changed entry, e.g.:\n\(wrong.prefix(12).joined(separator: "\n"))")
        // Left with its old end line, the edited file is refused before verification.
        var edited = export
        edited.setEntry(4, try export.entry(4).map { $0 ^ 0x20 })
        let oldEndLine = try #require(String(decoding: fixture.export, as: UTF8.self).split(separator: "\n").last)
        #expect(fixture.verify(export: Array((edited.lines.map { $0 + "\n" }.joined() + oldEndLine + "\n").utf8)) == .refused(.malformedEntry))
    }

    @Test("each deleted entry is detected, naming it")
    func deletedEntry() throws {
        let fixture = try TamperFixture()
        for seq in 0..<TamperFixture.entryCount - 1 {
            let database = try fixture.tamperableCopy()
            try database.query("DELETE FROM audit_entries WHERE seq = ?", [.integer(Int64(seq))])
            #expect(fixture.verify(database) == .failed(entry: seq), "entry \(seq) deleted")
            #expect(fixture.verifyAsVault(database) == .failed(entry: seq), "entry \(seq) deleted")
            var export = try EditableExport(fixture.export)
            export.lines.remove(at: export.index(of: "entry", seq))
            #expect(fixture.verify(export: export.bytes) == .failed(entry: seq), "entry \(seq) deleted from the export")
        }
    }

    @Test("two neighbouring entries swapped are detected, naming the first")
    func reorderedEntries() throws {
        let fixture = try TamperFixture()
        for seq in 0..<TamperFixture.entryCount - 1 {
            let database = try fixture.tamperableCopy()
            let rows = try database.query("SELECT entry, leaf_hash FROM audit_entries WHERE seq IN (?, ?) ORDER BY seq",
                                          [.integer(Int64(seq)), .integer(Int64(seq + 1))])
            for (row, target) in zip(rows, [seq + 1, seq]) {
                try database.query("UPDATE audit_entries SET entry = ?, leaf_hash = ? WHERE seq = ?",
                                   [.blob(try row.blob("entry")), .blob(try row.blob("leaf_hash")), .integer(Int64(target))])
            }
            #expect(fixture.verify(database) == .failed(entry: seq), "entries \(seq) and \(seq + 1) swapped")
            #expect(fixture.verifyAsVault(database) == .failed(entry: seq), "entries \(seq) and \(seq + 1) swapped")
            var export = try EditableExport(fixture.export)
            export.lines.swapAt(export.index(of: "entry", seq), export.index(of: "entry", seq + 1))
            #expect(fixture.verify(export: export.bytes) == .failed(entry: seq), "entries \(seq) and \(seq + 1) swapped in the export")
        }
    }

    @Test("the tail cut off below a checkpoint's size is detected, naming the first missing entry")
    func truncatedTail() throws {
        let fixture = try TamperFixture()
        for kept in 0..<TamperFixture.entryCount {
            let database = try fixture.tamperableCopy()
            try database.query("DELETE FROM audit_entries WHERE seq >= ?", [.integer(Int64(kept))])
            #expect(fixture.verify(database) == .failed(entry: kept), "cut to \(kept) entries")
            var export = try EditableExport(fixture.export)
            export.lines.removeSubrange(export.index(of: "entry", kept)...export.index(of: "entry", TamperFixture.entryCount - 1))
            #expect(fixture.verify(export: export.bytes) == .failed(entry: kept), "export cut to \(kept) entries")
        }
        let cut = try fixture.tamperableCopy()
        try cut.query("DELETE FROM audit_entries WHERE seq >= 9")
        #expect(fixture.verifyAsVault(cut) == .failed(entry: 9))
    }

    @Test("an edited checkpoint note, or a checkpoint filed under another epoch, is detected")
    func editedCheckpoint() throws {
        let fixture = try TamperFixture()
        let export = try EditableExport(fixture.export)
        for number in TamperFixture.checkpointSizes.indices {
            let note = try export.checkpointNote(number)
            // Another root in the text with the signature kept; one character of the signature changed.
            let body = try Checkpoint(parsing: try SignedNote(parsing: note).body)
            let otherRoot = note.replacingOccurrences(of: base64(body.rootHash), with: base64(SHA256.hash(body.rootHash)))
            let signature = try #require(note.split(separator: " ").last)
            let otherSignature = note.replacingOccurrences(of: signature, with: (signature.first == "A" ? "B" : "A") + signature.dropFirst())
            for edited in [otherRoot, otherSignature] {
                #expect(edited != note)
                let database = try fixture.tamperableCopy()
                try database.query("UPDATE audit_checkpoints SET note = ? WHERE id = ?", [.text(edited), .integer(Int64(number + 1))])
                #expect(fixture.verify(database) == .failed(entry: nil), "checkpoint \(number) edited")
                var changed = export
                changed.setCheckpoint(number, epoch: number, note: edited)
                #expect(fixture.verify(export: changed.bytes) == .failed(entry: nil), "checkpoint \(number) edited in the export")
            }
            for epoch in [number - 1, number + 1] where epoch >= 0 {
                let database = try fixture.tamperableCopy()
                try database.query("UPDATE audit_checkpoints SET epoch = ? WHERE id = ?", [.integer(Int64(epoch)), .integer(Int64(number + 1))])
                #expect(fixture.verify(database) == .failed(entry: nil), "checkpoint \(number) filed under epoch \(epoch)")
                var changed = export
                changed.setCheckpoint(number, epoch: epoch, note: note)
                #expect(fixture.verify(export: changed.bytes) == .failed(entry: nil), "checkpoint \(number) under epoch \(epoch) in the export")
            }
        }
    }

    @Test("each removed checkpoint is detected")
    func removedCheckpoint() throws {
        let fixture = try TamperFixture()
        for number in TamperFixture.checkpointSizes.indices {
            let database = try fixture.tamperableCopy()
            try database.query("DELETE FROM audit_checkpoints WHERE id = ?", [.integer(Int64(number + 1))])
            #expect(fixture.verify(database) == .failed(entry: nil), "checkpoint \(number) removed")
            #expect(fixture.verifyAsVault(database) == .failed(entry: nil), "checkpoint \(number) removed")
            var export = try EditableExport(fixture.export)
            export.lines.remove(at: export.index(of: "checkpoint", number))
            #expect(fixture.verify(export: export.bytes) == .failed(entry: nil), "checkpoint \(number) removed from the export")
        }
    }

    @Test("a key's introduction replaced, by another epoch's or by one the current key signed for a key of the attacker's, is detected")
    func replacedIntroduction() throws {
        let fixture = try TamperFixture()
        let pristine = try fixture.tamperableCopy()
        let current = try #require(try pristine.queryOne("SELECT private_key FROM audit_signing_keys ORDER BY epoch DESC LIMIT 1")?.blob("private_key"))
        let currentKey = try Ed25519PrivateKey(seed: try SecureBytes(copying: current))
        let attackers = try Ed25519PrivateKey()
        for epoch in 1..<TamperFixture.checkpointSizes.count {
            let checkpoint = try Checkpoint(parsing: try SignedNote(parsing: try EditableExport(fixture.export).checkpointNote(epoch - 1)).body)
            let transition = KeyTransition(origin: fixture.origin, epoch: epoch, publicKey: attackers.publicKey, after: checkpoint)
            let forged = try AuditKeyChainStore.SigningKey(epoch: epoch - 1, privateKey: currentKey).signedNote(transition.text, origin: fixture.origin)
            let neighbour = try #require(try pristine.queryOne("SELECT introduction FROM audit_signing_keys WHERE epoch = ?",
                                                               [.integer(Int64(epoch + 1))])?.text("introduction"))
            for (publicKey, introduction) in [(nil, neighbour), (attackers.publicKey, forged)] as [([UInt8]?, String)] {
                let database = try fixture.tamperableCopy()
                try database.query("UPDATE audit_signing_keys SET introduction = ? WHERE epoch = ?", [.text(introduction), .integer(Int64(epoch))])
                if let publicKey {
                    try database.query("UPDATE audit_signing_keys SET public_key = ? WHERE epoch = ?", [.blob(publicKey), .integer(Int64(epoch))])
                }
                #expect(fixture.verify(database) == .failed(entry: nil), "epoch \(epoch)'s introduction replaced")
                var export = try EditableExport(fixture.export)
                let line = export.index(of: "key", epoch)
                let fields = export.lines[line].split(separator: " ").map(String.init)
                export.lines[line] = "key \(epoch) \(publicKey.map(base64) ?? fields[2]) \(base64(Array(introduction.utf8)))"
                #expect(fixture.verify(export: export.bytes) == .failed(entry: nil), "epoch \(epoch)'s introduction replaced in the export")
            }
        }
    }

    /// Forward security (SECURITY.md §8.6): whoever steals the vault holds the current key, and with it
    /// signs a checkpoint claiming an earlier size with another root. The verifier must refuse it,
    /// whichever epoch it is filed under and wherever it is put among the checkpoints.
    @Test("a checkpoint forged with the current key for an earlier size and another root is rejected")
    func forgedEarlierCheckpoint() throws {
        let fixture = try TamperFixture()
        let pristine = try fixture.tamperableCopy()
        let newest = try #require(try pristine.queryOne("SELECT epoch, private_key FROM audit_signing_keys ORDER BY epoch DESC LIMIT 1"))
        let currentEpoch = Int(try newest.integer("epoch"))
        let signer = try NoteSigner(name: fixture.origin, privateKey: try Ed25519PrivateKey(seed: try SecureBytes(copying: try newest.blob("private_key"))))
        let sign = { (size: Int, root: [UInt8]) in
            try SignedNote.sign(body: try Checkpoint(origin: fixture.origin, treeSize: UInt64(size), rootHash: root).body, signers: [signer]).serialized()
        }

        // The current key signing the current state is what the vault itself does next: accepted, so a
        // rejection below is for the claim, not for an extra checkpoint.
        let honest = try sign(TamperFixture.entryCount, try fixture.audited.reader.consistencyProof(from: 13, to: 13).root2)
        let database = try fixture.tamperableCopy()
        try database.query("INSERT INTO audit_checkpoints (tree_size, epoch, note, created_at) VALUES (?, ?, ?, 0)",
                           [.integer(Int64(TamperFixture.entryCount)), .integer(Int64(currentEpoch)), .text(honest)])
        #expect(fixture.verify(database) == .verified(entries: TamperFixture.entryCount))

        for size in [1, 2, 4, 7, 12] {
            let forged = try sign(size, SHA256.hash(Array("another history of \(size) entries".utf8)))
            for epoch in [currentEpoch] + Array(0..<currentEpoch) {
                let database = try fixture.tamperableCopy()
                try database.query("INSERT INTO audit_checkpoints (tree_size, epoch, note, created_at) VALUES (?, ?, ?, 0)",
                                   [.integer(Int64(size)), .integer(Int64(epoch)), .text(forged)])
                #expect(fixture.verify(database) == .failed(entry: nil), "size \(size) filed under epoch \(epoch)")
            }
            // In an export: last, and in its place by size among the real checkpoints.
            let export = try EditableExport(fixture.export)
            let place = TamperFixture.checkpointSizes.firstIndex { $0 > size } ?? TamperFixture.checkpointSizes.count
            for position in Set([TamperFixture.checkpointSizes.count, place]) {
                for epoch in [currentEpoch, max(0, place - 1)] {
                    var edited = export
                    edited.lines.insert("checkpoint \(epoch) \(base64(Array(forged.utf8)))", at: export.index(of: "checkpoint", 0) + position)
                    #expect(fixture.verify(export: edited.bytes) == .failed(entry: nil), "size \(size) at \(position) under epoch \(epoch)")
                }
            }
        }
    }
}

// MARK: - Forward security on disk

@Suite("AuditLog: forward security on disk")
struct AuditForwardSecurityTests {
    @Test("after each command no erased signing key's seed is in vault.db or vault.db-wal, and the current key's is")
    func erasedSeedsLeaveTheFiles() throws {
        let fixture = try AuditedVault()
        func newestKey() throws -> (epoch: Int, seed: [UInt8]) {
            try fixture.vault.read { database in
                let row = try #require(try database.queryOne("SELECT epoch, private_key FROM audit_signing_keys ORDER BY epoch DESC LIMIT 1"))
                return (Int(try row.integer("epoch")), try row.blob("private_key"))
            }
        }
        var seeds: [Int: [UInt8]] = [:]
        let first = try newestKey()
        seeds[first.epoch] = first.seed
        let session = try fixture.command { try fixture.unlock() }
        let keys = try session.auditKeys()
        for round in 0..<40 {
            try fixture.command {
                switch round % 4 {
                case 0: _ = try session.createCompartment(named: "forward secure \(round)", register: .general)
                case 1: try session.record(VaultEvent(AuditAction("test.event")))
                // Crosses a 256-entry checkpoint: an epoch begins and ends inside the transaction.
                case 2: try fixture.vault.writeJournalState { try fixture.log.append((0..<300).map { _ in VaultEvent(AuditAction("test.batch")) }, in: $0,
                                                                          vaultID: fixture.vault.vaultID, keys: keys) }
                default: try fixture.vault.recordLocked(.auditVerify)
                }
            }
            let current = try newestKey()
            #expect(seeds[current.epoch] == nil, "round \(round): no new epoch")
            seeds[current.epoch] = current.seed
            let files = fixture.databaseFileBytes()
            #expect(occurs(current.seed, in: files), "round \(round): the current seed is not stored (the search finds nothing)")
            for (epoch, seed) in seeds where epoch != current.epoch {
                #expect(!occurs(seed, in: files), "round \(round): the erased seed of epoch \(epoch) is still in vault.db or vault.db-wal")
            }
            let walSize = (try? FileManager.default.attributesOfItem(atPath: fixture.vault.databasePath + "-wal")[.size] as? Int) ?? 0
            #expect(walSize == 0, "round \(round): vault.db-wal was not truncated")
        }
        #expect(seeds.count == 41)
        #expect(try fixture.reader.verify().uncheckpointedEntries == 0)

        // The control: a key erased by a checkpoint whose WAL has not yet been folded in and truncated
        // is still on disk (its old page in vault.db). The truncation at the end of a command removes it.
        let erased = try newestKey()
        let checkpointer = try #require(fixture.log.checkpointer)
        try session.record(VaultEvent(AuditAction("test.control")))
        try fixture.vault.writeJournalState { try checkpointer.checkpoint($0, vaultID: fixture.vault.vaultID) }
        #expect(try newestKey().epoch == erased.epoch + 1)
        #expect(occurs(erased.seed, in: fixture.databaseFileBytes()), "before the truncation the erased seed should still be on disk")
        try fixture.vault.finishCommand()
        #expect(!occurs(erased.seed, in: fixture.databaseFileBytes()), "the truncation at the end of the command did not remove the erased seed")
    }
}

// MARK: - Migration 4

@Suite("Schema migration 4: the operations table goes, the audit log stays")
struct OperationsTableMigrationTests {
    /// The table and triggers schema versions 2 and 3 had (SECURITY.md §4.1, migration 2).
    static let operationsTable = """
        CREATE TABLE operations (
            id INTEGER PRIMARY KEY, time INTEGER NOT NULL,
            action TEXT NOT NULL CHECK (action IN ('seal', 'open', 'put', 'get', 'rm', 'rewrap')),
            compartment_uuid BLOB CHECK (compartment_uuid IS NULL OR length(compartment_uuid) = 16),
            bundle_id BLOB CHECK (bundle_id IS NULL OR length(bundle_id) = 16),
            bytes INTEGER) STRICT;
        CREATE TRIGGER operations_are_append_only_update BEFORE UPDATE ON operations
            BEGIN SELECT RAISE(ABORT, 'operations are append-only'); END;
        CREATE TRIGGER operations_are_append_only_delete BEFORE DELETE ON operations
            BEGIN SELECT RAISE(ABORT, 'operations are append-only'); END;
        """

    /// `DROP TABLE` for each table a vault made today has and a vault of schema 12 had not (migration
    /// 13's `module_migrations` and every module's tables).
    static func droppingTablesAfterVersion12() throws -> String {
        let schema = try VaultSchema(adding: [])
        let added = try schema.currentTables().subtracting(try schema.tables(atVersion: 12, applied: [])).filter { !$0.contains(".") }
        return added.sorted().map { "DROP TABLE \($0); " }.joined()
    }

    @Test("a version 3 vault (with its operations rows) opens at the current version without them, its audit log byte for byte the same and verifying")
    func version3VaultKeepsItsAuditLog() throws {
        let fixture = try AuditedVault()
        let session = try fixture.command { try fixture.unlock() }
        let compartment = try fixture.command { try session.createCompartment(named: "Estate of H. Lindqvist", register: .legal) }
        let stored = try fixture.command { try fixture.put("inventory.pdf", contents: "an inventory", in: compartment, by: session) }
        // Schema 3 is today's schema with the operations table and without the tables of later
        // migrations (5: device identity and pairings; 7: leak fingerprints; 8: replicas; 9: witnessing; 10: shared compartments): put it back that way, with the row version 3
        // wrote for the put.
        let copy = try fixture.copyOfVault()
        let before: AuditRows
        do {
            let old = try Database(path: copy + "/" + Vault.databaseName, create: false)
            try old.execute(Self.operationsTable)
            try old.execute("DROP TABLE device_identity; DROP TABLE family_pairings; DROP TABLE leak_fingerprints; DROP TABLE replicas;")
            try old.execute("DROP TABLE witnessed_logs; DROP TABLE audit_cosignatures;")
            try old.execute("DROP TABLE shared_compartment_keys; DROP TABLE shared_compartments;")
            try old.execute(try Self.droppingTablesAfterVersion12())
            try old.query("INSERT INTO operations (time, action, compartment_uuid, bundle_id, bytes) VALUES (1, 'put', ?, ?, 12)",
                          [.blob(compartment.id.bytes), .blob(stored.bundleID.bytes)])
            try old.execute("ALTER TABLE compartments DROP COLUMN binding")
            try old.execute("DELETE FROM vault_meta WHERE key IN ('metadata_bound', 'kdf_policy_mac')")
            try old.execute("PRAGMA user_version = 3")
            before = try Self.auditRows(old)
        }

        let migrated = try Vault.open(at: copy, journal: AuditLog())
        let schema = try migrated.read { database in
            (try database.queryOne("PRAGMA user_version")?.integer("user_version"),
             try database.query("SELECT name FROM sqlite_master WHERE name LIKE 'operations%'").map { try $0.text("name") })
        }
        #expect(schema.0 == Schema.currentVersion && schema.1 == [], "user_version \(String(describing: schema.0)), left: \(schema.1)")
        let after = try migrated.read { try Self.auditRows($0) }
        #expect(Array(after.entries.dropLast()) == before.entries && after.checkpoints == before.checkpoints
                && after.publicKeys == before.publicKeys, "entries, checkpoints and keys unchanged")
        #expect(try AuditLogReader(vault: migrated).entries().map(\.action).last == "vault.upgrade", "the upgrade is recorded")
        let report = try AuditLogReader(vault: migrated).verify()
        #expect(report.entryCount == before.entries.count + 1 && report.uncheckpointedEntries == 1)

        // The migrated vault goes on logging where version 3 stopped, and still verifies.
        let unlocked = try migrated.unlock(with: .passphrase(try secret(AuditedVault.passphrase)))
        try migrated.finishCommand()
        // The upgrade and vault.unlock, plus the binding of a vault from before migration 12 (§4.6).
        #expect(try AuditLogReader(vault: unlocked.vault).verify().entryCount
                == before.entries.count + 2 + (try MigrationTestsSupport.boundEntries(migrated)))
    }

    struct AuditRows: Equatable {
        let entries: [[UInt8]]
        let nodes: [[UInt8]]
        let checkpoints: [String]
        let publicKeys: [[UInt8]]
    }

    static func auditRows(_ database: Database) throws -> AuditRows {
        AuditRows(entries: try database.query("SELECT entry FROM audit_entries ORDER BY seq").map { try $0.blob("entry") },
                  nodes: try database.query("SELECT hash FROM audit_nodes ORDER BY level, idx").map { try $0.blob("hash") },
                  checkpoints: try database.query("SELECT note FROM audit_checkpoints ORDER BY id").map { try $0.text("note") },
                  publicKeys: try database.query("SELECT public_key FROM audit_signing_keys ORDER BY epoch").map { try $0.blob("public_key") })
    }
}

/// The entries the first unlock of a vault from before migration 12 adds: one `compartment.bind` per
/// live compartment and one `vault.bind-metadata` (SECURITY.md §4.6).
enum MigrationTestsSupport {
    static func boundEntries(_ vault: Vault) throws -> Int {
        let compartments = try vault.read { try $0.queryOne("SELECT count(*) AS n FROM compartments WHERE destroyed_at IS NULL")?.integer("n") } ?? 0
        return Int(compartments) + 1
    }
}
