import CryptoVault
import Foundation
import Testing
@testable import Writing

/// A project's links found whole are kept on the connection between transactions
/// (`LinksFoundWhole`), and still every damage is found: another connection's hostile edit after the
/// verdict was kept, a verdict of a transaction that rolled back, and the store's own writers, which
/// never move a link (each kept verdict agrees with a fresh check after each of them).
@Suite struct LinksFoundWholeTests {
    /// Alpha and Beta, each with a document "Draft" of two paragraphs and an entry.
    struct Setting {
        let fixture: WritingFixture
        let alpha: WritingProject, beta: WritingProject
        let draft: NodeID, betaDraft: NodeID

        init() throws {
            fixture = try WritingFixture()
            (alpha, beta) = (try fixture.project("Alpha"), try fixture.project("Beta"))
            var drafts: [NodeID] = []
            for project in [alpha, beta] {
                drafts.append(try fixture.store { store in
                    let draft = try store.addNode(.scene, titled: "Draft", in: project.id)
                    try store.replaceDocumentContent(of: draft.id, in: project.id, with: try WritingFixture.paragraphs(["One.", "Two."]))
                    _ = try store.addEntry(.character, named: "Hero", in: project.id)
                    return draft.id
                })
            }
            (draft, betaDraft) = (drafts[0], drafts[1])
        }

        /// Whether the fixture's connection keeps `project`'s links found whole now.
        func kept(_ project: WritingProject) throws -> Bool {
            try fixture.store { LinksFoundWhole.holds(project, in: $0.transaction) }
        }

        /// Runs `sql` on a connection of its own (another process's, a hostile edit of the file).
        func edit(_ sql: String) throws {
            let database = try Database(path: fixture.vault.vault.databasePath, create: false, readOnly: false)
            try database.execute("PRAGMA foreign_keys = OFF")
            try database.execute(sql)
        }
    }

    enum Damage: String, CaseIterable, Sendable {
        case blockNode, nodeProject, entryProject, nodeMovedToBeta, blockMovedToBeta

        func sql(_ setting: Setting) -> String {
            let (alpha, beta) = (setting.alpha.id.hex, setting.beta.id.hex)
            let (draft, betaDraft) = (setting.draft.hex, setting.betaDraft.hex)
            let flippedAlpha = Self.flipped(alpha), flippedDraft = Self.flipped(draft)
            return switch self {
            case .blockNode: "UPDATE writing_blocks SET node_id = X'\(flippedDraft)' WHERE node_id = X'\(draft)' AND position = 1"
            case .nodeProject: "UPDATE writing_nodes SET project_id = X'\(flippedAlpha)' WHERE id = X'\(draft)'"
            case .entryProject: "UPDATE writing_entries SET project_id = X'\(flippedAlpha)' WHERE project_id = X'\(alpha)'"
            case .nodeMovedToBeta: "UPDATE writing_nodes SET project_id = X'\(beta)' WHERE id = X'\(draft)'"
            case .blockMovedToBeta: "UPDATE writing_blocks SET node_id = X'\(betaDraft)' WHERE node_id = X'\(draft)' AND position = 1"
            }
        }

        /// What the refusal names.
        var named: String {
            switch self {
            case .blockNode, .blockMovedToBeta: "(writing_blocks.node_id)"
            case .nodeProject, .nodeMovedToBeta: "(writing_nodes.project_id)"
            case .entryProject: "(writing_entries.project_id)"
            }
        }

        /// `hex` with the first byte's lowest bit flipped.
        static func flipped(_ hex: String) -> String {
            let first = UInt8(hex.prefix(2), radix: 16)! ^ 0x01
            return (first < 16 ? "0" : "") + String(first, radix: 16) + hex.dropFirst(2)
        }
    }

    /// The refusal of Alpha, checked for its reason: its damage, named, with what mends it.
    static func expectRefused(_ setting: Setting, _ damage: Damage, _ open: () throws -> Void) throws {
        let error = try #require(throws: WritingError.self) { try open() }
        #expect(error.code == .damagedRecord && error.message.contains("project \(setting.alpha.id.hex) is damaged")
                && error.message.contains(damage.named) && error.message.contains("'vaultctl repair' mends it"), "\(damage): \(error)")
    }

    @Test("a hostile edit by another connection after Alpha's links were kept whole is found: Alpha is refused, named, Beta opens",
          arguments: Damage.allCases)
    func anotherConnectionsEditAfterTheVerdictIsFound(_ damage: Damage) throws {
        let setting = try Setting()
        _ = try setting.fixture.store { try $0.project(setting.alpha.id) }
        #expect(try setting.kept(setting.alpha), "the verdict is kept between transactions")

        try setting.edit(damage.sql(setting))
        #expect(try !setting.kept(setting.alpha), "another connection committed: the verdict no longer answers")
        try Self.expectRefused(setting, damage) { _ = try setting.fixture.store { try $0.project(setting.alpha.id) } }
        let beta = try setting.fixture.store { try $0.documentContent(of: setting.betaDraft, in: setting.beta.id) }
        #expect(beta.blocks.map(\.text) == ["One.", "Two."], "\(damage): Beta reads its own two paragraphs")
    }

    @Test("a verdict found whole in a transaction that rolls back (after a mend) is not kept: the damage is found again")
    func aVerdictOfATransactionThatRollsBackIsNotKept() throws {
        let setting = try Setting()
        _ = try setting.fixture.store { try $0.project(setting.alpha.id) }
        try setting.edit(Damage.nodeProject.sql(setting))
        struct Undone: Error {}
        #expect(throws: Undone.self) {
            try setting.fixture.store { store in
                let damage = try #require(try store.linkDamage(of: setting.alpha.id))
                for link in damage.links { _ = try store.mendLink(link, [], of: setting.alpha) }
                // A store of its own (each store checks once): whole now, in this transaction.
                _ = try WritingStore(store.transaction).project(setting.alpha.id)
                #expect(LinksFoundWhole.holds(setting.alpha, in: store.transaction))
                throw Undone()
            }
        }
        #expect(try !setting.kept(setting.alpha))
        try Self.expectRefused(setting, .nodeProject) { _ = try setting.fixture.store { try $0.project(setting.alpha.id) } }
    }

    @Test("after each of the store's own writers, every kept verdict agrees with a fresh check of the rows and records")
    func theStoresOwnWritersNeverMoveALink() throws {
        let setting = try Setting()
        let (alpha, beta) = (setting.alpha.id, setting.beta.id)
        let writers: [(String, (WritingStore) throws -> Void)] = [
            ("add a folder and a document", { store in
                let folder = try store.addNode(.chapter, titled: "Part", in: alpha)
                _ = try store.addNode(.scene, titled: "Second", in: alpha, under: folder.id)
            }),
            ("write a document", { try $0.replaceDocumentContent(of: setting.draft, in: alpha, with: try WritingFixture.paragraphs(["A.", "B.", "C."])) }),
            ("edit a document", { store in
                var content = try store.documentContent(of: setting.draft, in: alpha)
                content.blocks.removeFirst()
                _ = try store.editDocumentContent(of: setting.draft, in: alpha, with: content)
            }),
            ("take a version", { _ = try $0.createSnapshot(of: setting.draft, in: alpha, titled: "v1") }),
            ("suggest a branch", { store in
                let base = try #require(try store.versionForReading(of: setting.draft, in: alpha))
                _ = try store.createBranch(of: setting.draft, in: alpha, base: base, content: try WritingFixture.paragraphs(["Other."]),
                                           kind: .manual, provenance: "test")
            }),
            ("move and rename a document", { store in
                let folder = try #require(try store.nodes(in: alpha).first(where: { $0.kind == .chapter }))
                try store.moveNode(setting.draft, in: alpha, under: folder.id)
                try store.renameNode(setting.draft, in: alpha, to: "Moved")
            }),
            ("add and remove entries", { store in
                let entry = try store.addEntry(.place, named: "Harbour", in: beta)
                try store.removeEntry(entry.id, in: beta)
            }),
            ("take a project version, add a document, restore the project", { store in
                let version = try store.createProjectSnapshot(of: beta)
                let later = try store.addNode(.scene, titled: "Later", in: beta)
                try store.replaceDocumentContent(of: later.id, in: beta, with: try WritingFixture.paragraphs(["Later."]))
                _ = try store.restoreProject(beta, to: version.id)
            }),
            ("remove a document with its words", { store in
                let gone = try store.addNode(.scene, titled: "Gone", in: beta)
                try store.replaceDocumentContent(of: gone.id, in: beta, with: try WritingFixture.paragraphs(["Gone."]))
                try store.removeNode(gone.id, in: beta)
            }),
            ("give a block up to another project (sync's door)", { store in
                let block = try #require(try store.documentContent(of: setting.draft, in: alpha).blocks.first)
                try store.releaseSyncedBlock(block.id, of: alpha, to: beta)
            }),
        ]
        for (what, write) in writers {
            try setting.fixture.store { try write($0) }
            for project in [setting.alpha, setting.beta] {
                let (kept, whole) = try setting.fixture.store { store in
                    (LinksFoundWhole.holds(project, in: store.transaction), try store.linksFoundAgain(of: project).isWhole)
                }
                #expect(kept && whole, "\(what): \(project.id) kept whole \(kept), whole when checked again \(whole)")
            }
        }
    }

    @Test("each repair that moves links forgets the kept verdicts in its transaction")
    func aRepairForgetsTheVerdicts() throws {
        let setting = try Setting()
        _ = try setting.fixture.store { store in try store.projects().map { try store.project($0.id) } }
        #expect(try setting.kept(setting.alpha) && (try setting.kept(setting.beta)))
        try setting.fixture.store { try WritingStore.forgetLinksFoundWhole(in: $0.transaction) }
        #expect(try !setting.kept(setting.alpha) && !(try setting.kept(setting.beta)))
    }
}
