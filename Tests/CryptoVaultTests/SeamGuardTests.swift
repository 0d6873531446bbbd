@testable import CryptoVault
import Foundation
import Testing
import TestSupport

/// Guards on the shape of the code: the one audited write path and the typed audit vocabulary stay
/// the only ones. Each test reads Sources/ and names what came back, so a removed API cannot return
/// unnoticed.
@Suite struct SeamGuardTests {
    static func sources() throws -> [(path: String, text: String)] { try PackageFiles.swiftSources() }

    /// The lines of Sources/ matching `pattern`, except in the files allowed to have it.
    static func offenders(_ pattern: String, allowedIn allowed: Set<String> = []) throws -> [String] {
        let regex = try NSRegularExpression(pattern: pattern)
        return try sources().filter { !allowed.contains($0.path) }.flatMap { file in
            file.text.split(separator: "\n", omittingEmptySubsequences: false).enumerated().compactMap { number, line in
                let text = String(line)
                let found = regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
                return found ? "\(file.path):\(number + 1): \(text.trimmingCharacters(in: .whitespaces))" : nil
            }
        }
    }

    @Test("audit actions are typed values: no event is made from a string literal outside an AuditAction declaration")
    func noStringLiteralActions() throws {
        #expect(try Self.offenders(#"VaultEvent\(\s*""#) == [])
        #expect(try Self.offenders(#"AuditAction\(""#).allSatisfy { $0.contains("static let") }, "AuditAction(\"…\") outside a declaration")
    }

    /// The repair doors of session 16 declared their actions beside their code (`package static let
    /// action`), so the vault's vocabulary was no longer read in one place, and SECURITY.md §8.1 left
    /// them out. CryptoVault's actions are declared in AuditAction.swift, and only there.
    @Test("CryptoVault's audit actions are all declared in AuditAction.swift, the module's one vocabulary")
    func cryptoVaultActionsAreDeclaredInOnePlace() throws {
        let elsewhere = try Self.offenders(#"AuditAction\(""#, allowedIn: ["Sources/CryptoVault/Vault/AuditAction.swift"])
            .filter { $0.hasPrefix("Sources/CryptoVault/") }
        #expect(elsewhere == [])
    }

    @Test("the typed actions keep the strings the log has always stored")
    func actionNamesAreUnchanged() {
        let expected: [(AuditAction, String)] = [
            (.vaultInit, "vault.init"), (.vaultUnlock, "vault.unlock"), (.vaultUnlockFailed, "vault.unlock-failed"), (.vaultCompact, "vault.compact"),
            (.keyslotPasswdReplace, "keyslot.passwd-replace"), (.recoveryCreateKey, "recovery.create-key"),
            (.compartmentRetire, "compartment.retire"), (.bundlePut, "bundle.put"), (.bundleGet, "bundle.get"),
            (.bundleRestore, "bundle.restore"), (.peerPairFailed, "peer.pair-failed"), (.shareReceive, "share.receive"),
            (.peerTrust, "peer.trust"), (.recordKeyVersionMended, "record.key-version-mended"),
            (.compartmentRowMended, "compartment.row-mended"), (.compartmentKeyVersionMended, "compartment.key-version-mended"),
        ]
        for (action, name) in expected { #expect(action.name == name) }
    }

    /// Review 17 s12, N-s12-1: the console's devices page revoked and demoted with the plain calls,
    /// so no signed demotion was kept and the owner's other devices never learned it. A revoke or a
    /// trust change a person asks for goes through the forms that pass the demotion on.
    @Test("a revoke or trust change a person asks for (CLI, console) passes the demotion on: the plain calls serve only tests and the bench")
    func demotionsArePassedOn() throws {
        #expect(try Self.offenders(#"\.revokePairing\(deviceID:|\.setTrust\([^()]*, of:"#, allowedIn: ["Sources/vaultbench/SyncBenchmarks.swift"]) == [])
    }

    // MARK: One write path (issue 12): each removed API is named so that it cannot come back unseen.

    @Test("no unaudited write: Vault.write and UnlockedVault.write(recording:) are gone; the journal's own state is written by AuditChain only")
    func noUnauditedWrite() throws {
        #expect(try Self.offenders(#"func write\s*<|func write\s*\(\s*recording"#) == [])
        #expect(try Self.offenders(#"\.write\s*(\(recording:|\{)"#) == [])
        #expect(try Self.offenders(#"writeJournalState"#, allowedIn: [
            "Sources/CryptoVault/Vault/Vault.swift", "Sources/AuditChain/AuditLogReader.swift", "Sources/vaultbench/AuditBenchmarks.swift",
        ]) == [])
        #expect(try Self.offenders(#"public\s+(func|let|var)\s+(writeJournalState|journal\b)"#) == [])
    }

    @Test("no journal that records nothing, and no default journal: every vault is opened and created with its journal")
    func journalIsRequired() throws {
        #expect(try Self.offenders(#"UnrecordedJournal"#) == [])
        #expect(try Self.offenders(#"journal:\s*(any\s+)?VaultJournal\s*="#) == [])
    }

    /// While the protocol is not public, the compiler refuses any public API that takes or shows one.
    @Test("no journal from outside the package: VaultJournal is not public, so a library caller cannot give a vault one that records nothing")
    func journalIsNotPublic() throws {
        #expect(try Self.offenders(#"(public|open)\s+protocol\s+VaultJournal\b"#) == [])
        #expect(try Self.offenders(#"public\s+typealias\s+\w+\s*=\s*(any\s+)?VaultJournal\b"#) == [])
    }

    @Test("no hand-assembled journal call: entries are appended by the transaction, the keyless locked paths and the migration only")
    func noHandAssembledJournalCalls() throws {
        #expect(try Self.offenders(#"journal\.append\("#, allowedIn: [
            "Sources/CryptoVault/Vault/VaultTransaction.swift", "Sources/CryptoVault/Vault/UnlockedVault.swift", "Sources/CryptoVault/Vault/Vault.swift",
        ]) == [])
    }

    @Test("a locked vault records an action alone (recordLocked takes no event, so no details, compartment or subject)")
    func lockedPathIsNarrow() throws {
        #expect(try Self.offenders(#"func recordLocked\s*\(\s*_\s+\w+\s*:\s*VaultEvent"#) == [])
        #expect(try Self.offenders(#"public\s+func\s+recordAlone"#) == [])
    }

    // MARK: Reads recorded by the library (issue 12)

    @Test("reads of bundles are recorded by the library: no caller (vaultctl, the appliance, a benchmark aside) names bundle.open or bundle.get")
    func bundleReadsAreRecordedByTheLibrary() throws {
        #expect(try Self.offenders(#"\.bundle(Open|Get)\b|"bundle\.(open|get)""#, allowedIn: [
            "Sources/CryptoVault/Vault/AuditAction.swift", "Sources/CryptoVault/Bundle/EncryptedBundle.swift",
            "Sources/CryptoVault/Vault/BundleStore.swift",
            // Synthetic events for the audit log's append benchmark; no bundle is read there.
            "Sources/vaultbench/AuditBenchmarks.swift",
        ]) == [])
        // The one bundle event a caller outside CryptoVault still records itself is a seal to a file, which reads nothing.
        #expect(try Self.offenders(#"record\([^)]*bundle:"#).filter { !$0.hasPrefix("Sources/CryptoVault/") }
            .allSatisfy { $0.contains(".bundleSeal") }, "a bundle event recorded outside the library")
    }

    @Test("privileged fingerprints are stored in the transaction of the bundle they describe: no store of its own, no vault-level remember")
    func fingerprintsShareTheBundlesTransaction() throws {
        let store = try #require(try Self.sources().first { $0.path == "Sources/CryptoVault/Vault/LeakFingerprintStore.swift" })
        #expect(!store.text.contains("writeTransaction") && !store.text.contains("withDatabase"), "the fingerprint store opened a transaction of its own")
        #expect(try Self.offenders(#"func\s+storeLeakFingerprints"#).count == 1)
        #expect(try Self.offenders(#"func\s+remember\([^)]*UnlockedVault"#) == [])
        // Outside the library's put, only seal (whose transaction records its entry) and the writing
        // store (in the transaction that seals a privileged project's words, §11.7) remember fingerprints.
        #expect(try Self.offenders(#"PrivilegedFingerprints\.remember\("#, allowedIn: [
            "Sources/vaultctl/Commands/BundleCommands.swift", "Sources/Writing/Store/WritingStore+Fingerprints.swift",
        ]) == [])
    }
}
