import Agents
import CryptoVault
import PrivilegedSession
import Testing
import TestSupport
import Writing

/// The vault's own read-only tool: reads a document of the task's project through the writing
/// model, a privileged one only with the task's session, and its output carries the compartment.
@Suite struct DocumentReaderToolTests {
    let vault = try! TestVault(modules: [WritingSchema.module])

    func project(privileged: Bool) throws -> WritingProject {
        try vault.unlocked.transaction { transaction in
            let store = WritingStore(transaction)
            let project = try store.createProject(named: privileged ? "Matter" : "Novel", register: privileged ? .legal : .fiction, kind: .document)
            let node = try store.addNode(.scene, titled: "Lease", in: project.id)
            try store.replaceDocumentContent(of: node.id, in: project.id, with: try PlainText.parse(Array("The tenant pays rent monthly.\n".utf8)))
            return project
        }
    }

    func registry(_ tool: DocumentReaderTool) throws -> ToolRegistry {
        var registry = ToolRegistry()
        try registry.register(try DocumentReaderTool.descriptor(), handler: tool)
        return registry
    }

    @Test func aDocumentIsReadByTitleWithItsCompartmentInTheTaint() throws {
        let project = try project(privileged: false)
        var taint = TaskTaint()
        let output = try registry(DocumentReaderTool(vault: vault.unlocked, project: project.id))
            .call(DocumentReaderTool.name, arguments: Array(#"{"title":"Lease"}"#.utf8), taint: &taint)
        #expect(output.text.contains("The tenant pays rent monthly."))
        #expect(output.provenance == .vault([project.compartment]))
        #expect(taint.compartments.map(\.id) == [project.compartment.id] && !taint.readPrivileged)
        #expect(agentsErrorCode { try registry(DocumentReaderTool(vault: vault.unlocked, project: project.id))
            .call(DocumentReaderTool.name, arguments: Array(#"{"title":"Missing"}"#.utf8), taint: &taint) } == .invalidArguments)
    }

    @Test func aPrivilegedDocumentNeedsTheTasksSessionAndMarksTheLanePrivileged() throws {
        let project = try project(privileged: true)
        var taint = TaskTaint()
        let refused = agentsError { try registry(DocumentReaderTool(vault: vault.unlocked, project: project.id))
            .call(DocumentReaderTool.name, arguments: Array(#"{"title":"Lease"}"#.utf8), taint: &taint) }
        #expect(refused?.code == .toolRefused && refused?.message.contains("rent") == false)
        #expect(taint == TaskTaint())
        let session = try PrivilegedProcessingSession.start(vault: vault.unlocked, compartment: project.compartment, actor: "counsel",
                                                            purpose: "issue spotting")
        let output = try registry(DocumentReaderTool(vault: vault.unlocked, project: project.id, access: .session(session)))
            .call(DocumentReaderTool.name, arguments: Array(#"{"title":"Lease"}"#.utf8), taint: &taint)
        #expect(output.text.contains("rent monthly"))
        #expect(taint.readPrivileged)
    }
}
