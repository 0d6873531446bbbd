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
}
