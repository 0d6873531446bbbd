@testable import CryptoVault
import Foundation
import Testing
import TestSupport

/// Guards on the shape of the code: the one audited write path and the typed audit vocabulary stay
/// the only ones. Each test reads Sources/ and names what came back, so a removed API cannot return
/// unnoticed.
@Suite struct SeamGuardTests {
    /// Every .swift file under Sources/, with its path relative to the package.
    static func sources() throws -> [(path: String, text: String)] {
        let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let root = package.appendingPathComponent("Sources").path
        let enumerator = try #require(FileManager.default.enumerator(atPath: root))
        var files: [(String, String)] = []
        while let relative = enumerator.nextObject() as? String {
            guard relative.hasSuffix(".swift") else { continue }
            let text = try String(contentsOfFile: root + "/" + relative, encoding: .utf8)
            files.append(("Sources/" + relative, text))
        }
        #expect(files.count > 100, "Sources/ was not found from \(#filePath)")
        return files
    }

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

    @Test("the typed actions keep the strings the log has always stored")
    func actionNamesAreUnchanged() {
        let expected: [(AuditAction, String)] = [
            (.vaultInit, "vault.init"), (.vaultUnlock, "vault.unlock"), (.vaultUnlockFailed, "vault.unlock-failed"),
            (.keyslotPasswdReplace, "keyslot.passwd-replace"), (.recoveryCreateKey, "recovery.create-key"),
            (.compartmentRetire, "compartment.retire"), (.bundlePut, "bundle.put"), (.bundleGet, "bundle.get"),
            (.bundleRestore, "bundle.restore"), (.peerPairFailed, "peer.pair-failed"), (.shareReceive, "share.receive"),
        ]
        for (action, name) in expected { #expect(action.name == name) }
    }
}
