import CryptoVault
import Foundation
import Testing
import TestSupport
import Writing

/// Rows of the writing tables whose link (a `project_id`, a block's `node_id`) one flipped bit or a
/// hostile edit points elsewhere (reviewer15's R15-2, R15-3, R15-5, R15-6). Before: a document read
/// short of a block with exit 0 and the loss was recorded as a version the writer made; documents and
/// entries vanished from their project with exit 0; a branch read as a usage error (64); a node moved
/// into another project broke that undamaged project. Now the row's sealed record says whose it is:
/// that project is refused (65, named, with `vaultctl repair`), `project list` warns of it, the other
/// works, and `repair` puts the row back, recorded.
@Suite(.serialized)
struct DamagedLinkTests {
    enum Damage: String, CaseIterable, Sendable {
        case blockNode = "writing_blocks", nodeProject = "writing_nodes", entryProject = "writing_entries"
        case branchProject = "writing_branches", nodeMovedToOther = "moved", blockMovedToOther = "block-moved"

        /// The SQL of the damage, given Alpha's and Beta's ids and Alpha's and Beta's documents "Draft".
        func sql(alpha: String, beta: String, draft: String, betaDraft: String) -> String {
            let flippedAlpha = Self.flipped(alpha), flippedDraft = Self.flipped(draft)
            return switch self {
            case .blockNode: "UPDATE writing_blocks SET node_id = X'\(flippedDraft)' WHERE node_id = X'\(draft)' AND position = 1"
            case .nodeProject: "UPDATE writing_nodes SET project_id = X'\(flippedAlpha)' WHERE project_id = X'\(alpha)' AND kind = 'scene'"
            case .entryProject: "UPDATE writing_entries SET project_id = X'\(flippedAlpha)' WHERE project_id = X'\(alpha)'"
            case .branchProject: "UPDATE writing_branches SET project_id = X'\(flippedAlpha)' WHERE project_id = X'\(alpha)'"
            case .nodeMovedToOther: "UPDATE writing_nodes SET project_id = X'\(beta)' WHERE id = X'\(draft)'"
            case .blockMovedToOther: "UPDATE writing_blocks SET node_id = X'\(betaDraft)' WHERE node_id = X'\(draft)' AND position = 1"
            }
        }

        /// `hex` with the first byte's lowest bit flipped.
        static func flipped(_ hex: String) -> String {
            let first = UInt8(hex.prefix(2), radix: 16)! ^ 0x01
            return (first < 16 ? "0" : "") + String(first, radix: 16) + hex.dropFirst(2)
        }

        /// The table of the row `repair` puts back.
        var table: String {
            switch self {
            case .nodeMovedToOther: "writing_nodes"
            case .blockMovedToOther: "writing_blocks"
            default: rawValue
            }
        }

        /// What the refusal names (vaultctl calls a branch a suggestion, and its table so).
        var named: String {
            switch self {
            case .nodeMovedToOther: "(writing_nodes.project_id) names project"
            case .blockMovedToOther: "(writing_blocks.node_id) names another project's document"
            case .branchProject: "suggestion"
            default: "(\(rawValue)."
            }
        }

        /// The command of Alpha's that read short (or 64) before.
        var alphaCommand: [String] {
            switch self {
            case .blockNode, .nodeMovedToOther, .blockMovedToOther: ["doc", "show", "Alpha", "Draft"]
            case .nodeProject: ["doc", "list", "Alpha"]
            case .entryProject: ["entry", "list", "Alpha"]
            case .branchProject: ["branch", "show", "Alpha", "Draft", "1"]
            }
        }
    }

    /// Alpha and Beta as reviewer15 made them: a folder, a document "Draft" of two paragraphs with a
    /// titled version, a branch, an entry, and a second document; Alpha's id, Beta's, Alpha's Draft's, Beta's Draft's.
    static func twoProjects() throws -> (CLIVault, alpha: String, beta: String, draft: String, betaDraft: String) {
        let vault = try CLIVault()
        for name in ["Alpha", "Beta"] {
            let steps: [([String], String?)] = [
                (["project", "create", name, "--register", "general"], nil), (["doc", "add", name, "Folder1", "--folder"], nil),
                (["doc", "add", name, "Draft"], nil), (["doc", "write", name, "Draft"], "Words of \(name) first.\n\nSecond para zebra.\n"),
                (["snapshot", "create", name, "Draft", "--title", "First"], nil),
                (["branch", "create", name, "Draft"], "Words of \(name) first.\n\nBranchy.\n"),
                (["entry", "add", name, "Hero\(name)", "--kind", "character", "-"], "Role: lead\n\nBody.\n"),
                (["doc", "add", name, "Inner"], nil), (["doc", "write", name, "Inner"], "Inner kiwi.\n"),
            ]
            for (arguments, stdin) in steps {
                let result = try vault.run(arguments, stdin: stdin)
                try #require(result.status == 0, "\(arguments): \(result.stderr)")
            }
        }
        let ids = try DamagedProjectRowTests.rows(try vault.run(["project", "list", "--json"])).compactMap { $0["id"] as? String }
        let drafts = try ["Alpha", "Beta"].map { name in
            let documents = try vault.run(["doc", "list", name, "--json"])
            return try #require((try JSONSerialization.jsonObject(with: Data(documents.stdout.utf8)) as? [[String: Any]])?
                .first { $0["title"] as? String == "Draft" }?["id"] as? String, "\(documents.stdout)")
        }
        return (vault, ids[0], ids[1], drafts[0], drafts[1])
    }

    @Test(arguments: Damage.allCases)
    func aRowLinkedElsewhereIsItsOwnProjectsDamageTheOtherWorksAndRepairPutsItBack(_ damage: Damage) throws {
        let (vault, alpha, beta, draft, betaDraft) = try Self.twoProjects()
        let historyBefore = try vault.run(["history", "Alpha", "Draft"]).stdout
        let database = try Database(path: vault.directory + "/vault.db", create: false, readOnly: false)
        try database.execute(damage.sql(alpha: alpha, beta: beta, draft: draft, betaDraft: betaDraft))

        // Alpha is refused as damaged (65), named with what mends it; nothing of it is read short.
        let refused = try vault.run(damage.alphaCommand)
        #expect(refused.status == 65 && refused.stderr.contains("project \(alpha) is damaged")
                && refused.stderr.contains("'vaultctl repair' mends it") && refused.stderr.contains(damage.named),
                "\(damage): \(refused.status) \(refused.stdout) \(refused.stderr)")
        #expect(!refused.stdout.contains("Words of Alpha"), "\(damage): \(refused.stdout)")
        // `project list` lists both and warns of Alpha (a command of Beta checks only Beta); Beta reads whole.
        let listed = try vault.run(["project", "list"])
        #expect(listed.status == 0 && listed.stdout.contains(alpha) && listed.stdout.contains(beta)
                && listed.stderr.contains("project \(alpha) is damaged") && listed.stderr.contains("'vaultctl repair' puts them back"),
                "\(damage): \(listed.status) \(listed.stdout) \(listed.stderr)")
        let beta1 = try vault.run(["doc", "show", "Beta", "Draft"])
        #expect(beta1.status == 0 && beta1.stdout.contains("Second para zebra") && !beta1.stderr.contains("is damaged"),
                "\(damage): \(beta1.status) \(beta1.stderr)")
        // Beta's Draft has its own two paragraphs only (not Alpha's moved into it).
        #expect(beta1.stdout.components(separatedBy: "Second para zebra").count == 2 && !beta1.stdout.contains("Words of Alpha"),
                "\(damage): \(beta1.stdout)")
        let beta2 = try vault.run(["doc", "show", "Beta", "Inner"])
        #expect(beta2.status == 0 && beta2.stdout.contains("Inner kiwi"), "\(damage): \(beta2.status) \(beta2.stderr)")
        #expect(try vault.run(["entry", "list", "Beta"]).stdout.contains("HeroBeta"), "\(damage)")
        let betaList = try vault.run(["doc", "list", "Beta"])
        #expect(betaList.status == 0 && betaList.stdout.contains("2 documents"), "\(damage): \(betaList.stdout) \(betaList.stderr)")

        // `repair` puts the row back, recorded; Alpha reads whole again, with no version of the loss.
        let mended = try vault.run(["repair"])
        #expect(mended.status == 0 && mended.stdout.contains("Put back \(damage.table) row"),
                "\(damage): \(mended.status) \(mended.stdout) \(mended.stderr)")
        let log = try vault.run(["audit", "log", "--json", "--details", "--action", "writing.link-mended"])
        #expect(log.stdout.contains(damage.table), "\(damage): \(log.stdout)")
        let shown = try vault.run(["doc", "show", "Alpha", "Draft"])
        #expect(shown.status == 0 && shown.stdout.contains("Second para zebra") && !shown.stderr.contains("is damaged"),
                "\(damage): \(shown.status) \(shown.stdout) \(shown.stderr)")
        #expect(try vault.run(["entry", "list", "Alpha"]).stdout.contains("HeroAlpha"), "\(damage)")
        #expect(try vault.run(["branch", "show", "Alpha", "Draft", "1"]).status == 0, "\(damage)")
        #expect(try vault.run(["doc", "list", "Alpha"]).stdout.contains("2 documents"), "\(damage)")
        let historyAfter = try vault.run(["history", "Alpha", "Draft"]).stdout
        #expect(!historyAfter.contains("-4 words") && historyAfter.components(separatedBy: "\n").count == historyBefore.components(separatedBy: "\n").count,
                "\(damage): \(historyBefore) -> \(historyAfter)")
        #expect(try vault.run(["audit", "verify"], unlock: false).status == 0)
    }
}
