import AuditChain
import CryptoVault
import Foundation
import PrivilegedSession
import Sync
import Testing
import TestSupport
import Writing

/// The in-memory mode's copy (SECURITY.md §19.10), below the command line: whatever a caller does
/// with it, nothing reaches the vault's bundle files through the copy's links (review 17 F14), and
/// what needs an audit entry the vault must keep (a privileged session, an egress, a signed
/// checkpoint) is not made on the copy, whose log dies with it (F3).
@Suite struct InMemoryCopyTests {
    final class Fixture {
        let vault = try! TestVault(modules: [WritingSchema.module, SyncSchema.module])
        let memos: VaultCompartment
        let chart: VaultCompartment
        let root: String
        let copy: String

        init() throws {
            memos = try vault.unlocked.createCompartment(named: "memos", register: .general)
            chart = try vault.unlocked.createCompartment(named: "chart", register: .healthcare)
            for compartment in [memos, chart] {
                let path = vault.root + "/\(compartment.name).txt"
                try Data(repeating: 0x61, count: 100_000).write(to: URL(fileURLWithPath: path))
                _ = try vault.unlocked.put(from: try FileDescriptor.openForReading(path), compartment: compartment,
                                           metadata: BundleMetadata(name: "\(compartment.name).txt", modificationTime: 0))
            }
            (root, copy) = try InMemoryStore.makeCopy(of: vault.directory, reason: "the table writing_blocks is missing")
        }

        deinit { InMemoryStore.remove(root) }

        /// The copy opened and unlocked as a command opens it: with the audit log as its journal.
        func openCopy() throws -> UnlockedVault {
            try Vault.open(at: copy, journal: AuditLog(), modules: vault.modules).unlock(with: .passphrase(vault.passphrase))
        }

        /// Every file of the vault's assets/, by name, with its bytes.
        var assets: [String: Data] {
            let folder = vault.directory + "/assets"
            return Dictionary(uniqueKeysWithValues: ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).map {
                ($0, FileManager.default.contents(atPath: folder + "/" + $0) ?? Data())
            })
        }
    }

    @Test func theCopyIsMarkedAndLinksOnlyTheVaultsBundleFiles() throws {
        let f = try Fixture()
        let copied = try f.openCopy()
        #expect(copied.vault.inMemoryCopyReason == "the table writing_blocks is missing")
        #expect(f.vault.vault.inMemoryCopyReason == nil)
        let links = try FileManager.default.contentsOfDirectory(atPath: f.copy + "/assets")
        #expect(Set(links) == Set(f.assets.keys) && links.count == 2, "\(links)")
    }

    @Test func aRewrapOnTheCopyWritesNoBundleOfTheVaultAndLeavesNoJournal() throws {
        let f = try Fixture()
        let before = f.assets
        let copied = try f.openCopy()
        // The command line refuses both in this mode; a library caller that does them anyway must
        // still not reach the vault's files: the header's write in place does not follow the link.
        _ = try copied.rotateCompartment(named: "memos")
        let outcome = try copied.rewrapStored(in: try copied.compartment(named: "memos"))
        #expect(outcome.changed == 0 && outcome.skipped.count == 1, "\(outcome)")
        #expect(outcome.skipped.first?.error.message.contains("symbolic link") == true, "\(outcome.skipped)")
        #expect(f.assets == before, "a bundle file of the vault was written through the copy")
        let left = try FileManager.default.contentsOfDirectory(atPath: f.copy + "/assets").filter { !$0.hasSuffix(".vbundle") }
        #expect(left.isEmpty, "a rewrap journal was left in the copy: \(left)")
        // The vault's bundle file still verifies against the key version the vault knows.
        let damaged = try f.vault.unlocked.storedBundlesNeedingRestore(in: f.memos)
        #expect(damaged.isEmpty, "\(damaged.map(\.reason.message))")
    }

    @Test func aPrivilegedSessionOnTheCopyIsRefusedWithTheReason() throws {
        let f = try Fixture()
        let copied = try f.openCopy()
        let chart = try copied.compartment(named: "chart")
        do {
            _ = try PrivilegedProcessingSession.start(vault: copied, compartment: chart, actor: "test", purpose: "read the chart")
            Issue.record("a privileged session was started on the in-memory copy")
        } catch let error as PrivilegedSessionError {
            #expect(error.code == .inMemoryMode && error.message.contains("in in-memory mode (the table writing_blocks is missing)"), "\(error)")
        }
        // On the vault itself a session starts as ever.
        let session = try PrivilegedProcessingSession.start(vault: f.vault.unlocked, compartment: f.chart, actor: "test", purpose: "read")
        try session.end()
    }

    @Test func nothingLeavesTheCopyThroughTheFunnelAndNothingIsRecordedForIt() throws {
        let f = try Fixture()
        let copied = try f.openCopy()
        let funnel = try EgressFunnel(vault: copied)
        let request = EgressRequest(destination: EgressDestination(kind: .file, id: "notes.txt"), compartments: [try copied.compartment(named: "memos")],
                                    payload: Array("plain words".utf8))
        do {
            _ = try funnel.submit(request)
            Issue.record("an egress was released from the in-memory copy")
        } catch let error as PrivilegedSessionError {
            #expect(error.code == .inMemoryMode && error.message.contains("an egress is refused in in-memory mode"), "\(error)")
        }
    }

    @Test func noCheckpointIsSignedOverTheCopysLog() throws {
        let f = try Fixture()
        let copied = try f.openCopy()
        let count = { () throws -> Int in
            let database = try Database(path: f.copy + "/vault.db", create: false, readOnly: true)
            return Int(try #require(try database.queryOne("SELECT count(*) AS n FROM audit_checkpoints")?.integer("n")))
        }
        let before = try count()
        _ = try copied.compartment(named: "memos")
        try copied.vault.finishCommand()
        #expect(try count() == before, "a checkpoint was signed over the in-memory copy's log")
    }

    // MARK: The mark counts only where this process made it (review 17, F5a)

    @Test func aMarkPlantedInTheVaultsFolderDoesNotMakeTheVaultRefuseSessionsOrEgress() throws {
        let f = try Fixture()
        // Anyone who can write the vault's folder writes a mark there, copied from a real copy.
        let planted = try #require(FileManager.default.contents(atPath: f.copy + "/" + InMemoryCopyMarker.name))
        try planted.write(to: URL(fileURLWithPath: f.vault.directory + "/" + InMemoryCopyMarker.name))
        #expect(f.vault.vault.inMemoryCopyReason == nil, "the planted mark made the vault read as an in-memory copy")
        let session = try PrivilegedProcessingSession.start(vault: f.vault.unlocked, compartment: f.chart, actor: "test", purpose: "read")
        try session.end()
        let funnel = try EgressFunnel(vault: f.vault.unlocked)
        let outcome = try funnel.submit(EgressRequest(destination: EgressDestination(kind: .file, id: "notes.txt"), compartments: [f.memos],
                                                      payload: Array("plain words".utf8)))
        #expect(outcome.decision == .allow, "\(outcome.decision)")
        // The copy itself is still the copy.
        #expect(try f.openCopy().vault.inMemoryCopyReason == "the table writing_blocks is missing")
    }

    @Test func aMarkWhoseTokenIsNotTheCopysIsNoMark() throws {
        let f = try Fixture()
        let path = f.copy + "/" + InMemoryCopyMarker.name
        try Data((String(repeating: "0", count: 32) + "\nforged").utf8).write(to: URL(fileURLWithPath: path))
        #expect(try f.openCopy().vault.inMemoryCopyReason == nil)
    }

    // MARK: Copies a killed process left (review 17, F5b)

    @Test func aCopyWhoseProcessIsGoneIsSweptAndALiveOnesIsKept() throws {
        let base = NSTemporaryDirectory() + "in-memory-sweep-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: base) }
        let gone = try Self.pidOfAFinishedProcess()
        let abandoned = base + "/vaultctl-in-memory-\(gone)-0123456789abcdef"
        let live = base + "/vaultctl-in-memory-\(getpid())-0123456789abcdef"
        let other = base + "/vaultctl-in-memory-notes"
        for folder in [abandoned, live, other] {
            try FileManager.default.createDirectory(atPath: folder + "/vault", withIntermediateDirectories: true)
            try Data("sealed".utf8).write(to: URL(fileURLWithPath: folder + "/vault/vault.db"))
        }
        let removed = InMemoryStore.sweepAbandoned(in: [base])
        #expect(removed == [abandoned], "\(removed)")
        #expect(!FileManager.default.fileExists(atPath: abandoned))
        #expect(FileManager.default.fileExists(atPath: live + "/vault/vault.db"), "a live process's copy was removed")
        #expect(FileManager.default.fileExists(atPath: other), "a folder not named as a copy was removed")
    }

    @Test func theCopyHoldsNoPlaintextOfTheWritingItCopied() throws {
        let vault = try TestVault(modules: [WritingSchema.module, SyncSchema.module])
        let word = "quillfeatherzebra\(Int.random(in: 1000...9999))"
        try vault.unlocked.transaction { tx in
            let store = WritingStore(tx)
            let project = try store.createProject(named: "Notes \(word)", register: .general, kind: .document)
            let node = try store.addNode(.scene, titled: "Title \(word)", in: project.id)
            try store.replaceDocumentContent(of: node.id, in: project.id,
                                             with: DocumentContent(blocks: [Block(id: try BlockID.random(), kind: .paragraph, text: "text \(word)")]))
        }
        let (root, _) = try InMemoryStore.makeCopy(of: vault.directory, reason: "test")
        defer { InMemoryStore.remove(root) }
        let files = FileManager.default.enumerator(atPath: root)?.compactMap { $0 as? String } ?? []
        var scanned = 0
        for file in files {
            var status = stat()
            guard lstat(root + "/" + file, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG,
                  let bytes = FileManager.default.contents(atPath: root + "/" + file) else { continue }
            scanned += 1
            #expect(bytes.range(of: Data(word.utf8)) == nil, "\(file) holds the writing's words in clear")
        }
        #expect(scanned >= 2, "the copy's database and mark were not found")
    }

    /// The pid of a process that has ended (and been reaped).
    static func pidOfAFinishedProcess() throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/true")
        try process.run()
        process.waitUntilExit()
        return process.processIdentifier
    }
}
