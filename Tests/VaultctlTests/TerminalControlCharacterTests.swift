import Appliance
import CryptoVault
import Foundation
import Testing
import TestSupport
import Writing

/// A document's words may hold control characters no door of this vault takes any more (an older
/// vault's, a colleague's records, a console before it refused them): on a terminal, `doc show`
/// prints each but tab and line feed as U+FFFD, so an escape sequence can neither erase nor hide
/// what the owner reads, nor set the title or the clipboard; to a pipe or a file every character
/// goes as it is (review 17 s8, F11). Before, the terminal got the raw bytes.
@Suite struct TerminalControlCharacterTests {
    static let hostile = "Clause 1. The price is 100.\u{1B}[2K\u{1B}[1G\u{1B}[8m hidden: the price is 900 \u{1B}[0m\u{1B}]0;pwned\u{07} end\u{7F}\u{9B}"
    static let shown = "Clause 1. The price is 100.\u{FFFD}[2K\u{FFFD}[1G\u{FFFD}[8m hidden: the price is 900 \u{FFFD}[0m\u{FFFD}]0;pwned\u{FFFD} end\u{FFFD}\u{FFFD}"

    static func id(_ result: CLI.Result) throws -> String {
        guard result.status == 0, let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any],
              let id = object["id"] as? String else { throw CLIError(message: "no id: \(result.stderr)") }
        return id
    }

    @Test("doc show on a terminal prints control characters as U+FFFD; to a pipe as they are")
    func controlCharactersAreReplacedOnATerminal() throws {
        let fixture = try CLIVault()
        let project = try ProjectID(hex: try Self.id(try fixture.run(["project", "create", "Contract", "--register", "fiction", "--json"])))
        let node = try NodeID(hex: try Self.id(try fixture.run(["doc", "add", "Contract", "Terms", "--json"])))
        // Written below every door that refuses them, as an older vault holds them.
        let vault = try Vault.open(at: fixture.directory, journal: RecordingJournal(), modules: VaultModules.all)
        let unlocked = try vault.unlock(with: .passphrase(try SecureBytes(copying: Array(CLIVault.passphrase.utf8))))
        try unlocked.transaction { tx in
            try WritingStore(tx, access: .vault).replaceDocumentContent(of: node, in: project, with: DocumentContent(blocks: [
                Block(id: try BlockID.random(), kind: .paragraph, text: Self.hostile),
            ]))
        }

        let piped = try fixture.run(["doc", "show", "Contract", "Terms"])
        #expect(piped.status == 0 && piped.stdout.contains(Self.hostile), "to a pipe the text is as the vault holds it")

        let terminal = try Terminal.run(["doc", "show", "Contract", "Terms", "--vault", fixture.directory,
                                         "--passphrase-file", fixture.passphraseFile], typing: [], seconds: 60)
        #expect(terminal.status == 0, "\(terminal.stderr)")
        #expect(terminal.stdout.contains(Self.shown), "each control character shown as U+FFFD")
        #expect(!terminal.stdout.unicodeScalars.contains { ["\u{1B}", "\u{07}", "\u{7F}", "\u{9B}"].contains($0) }, "no control character reached the terminal")
    }
}
