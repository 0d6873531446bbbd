@testable import Assistant
import CryptoVault
import Foundation
import PrivilegedSession
import TestSupport
import Writing

/// A vault with the writing model, a project in it, and shortcuts to reach a replayed model server.
final class AssistantFixture {
    let vault: TestVault

    init() throws { vault = try TestVault(modules: [WritingSchema.module, AssistantSchema.module]) }

    var unlocked: UnlockedVault { vault.unlocked }

    func project(_ register: Register = .fiction, privileged: Bool? = nil) throws -> WritingProject {
        try unlocked.createWritingProject(named: "Harbour \(UUID().uuidString.prefix(6))", register: register, kind: .document, privileged: privileged)
    }

    func provider(_ server: ReplayServer, kind: ProviderConfiguration.Kind = .openai, name: String = "local", model: String = "smollm2",
                  local: Bool = true) throws -> ProviderConfiguration {
        try ProviderConfiguration(name: name, kind: kind, url: server.url, model: model, isLocal: local)
    }

    /// `request` released by the funnel for `provider`, as content of `project`.
    func released(_ request: ChatRequest, for provider: ProviderConfiguration, from project: WritingProject) throws -> ReleasedPayload {
        let outcome = try EgressFunnel(vault: unlocked).submit(EgressRequest(destination: provider.destination, compartments: [project.compartment],
                                                                             payload: ChatTranscript.encode(request)))
        guard let released = outcome.released else { throw AssistantError(.egressRefused, "refused in the fixture") }
        return released
    }

    func session(of project: WritingProject) throws -> PrivilegedProcessingSession {
        try PrivilegedProcessingSession.start(vault: unlocked, compartment: project.compartment, actor: "dr.osei", purpose: "draft letter")
    }

    /// A document titled `title` in `project` holding `paragraphs`.
    func document(in project: WritingProject, _ paragraphs: [String], access: RecordAccess = .vault) throws -> NodeID {
        try unlocked.transaction { tx in
            let store = WritingStore(tx, access: access)
            let node = try store.addNode(.scene, titled: "Arrival", in: project.id)
            let content = DocumentContent(blocks: try paragraphs.map { Block(id: try BlockID.random(), kind: .paragraph, text: $0) })
            try store.replaceDocumentContent(of: node.id, in: project.id, with: content)
            return node.id
        }
    }

    static let chat = ChatRequest(messages: [.system("You are a careful editor."), .user(PromptText("Continue: the boats came in."))])

    /// A client with short bounds, so the error paths are quick.
    static let quickClient = HTTPClient(timeouts: HTTPClient.Timeouts(connect: .seconds(2), firstByte: .seconds(2), idle: .seconds(1), total: .seconds(3)))
}

/// The code a throwing call failed with, if it threw an AssistantError.
func assistantErrorCode(_ body: () throws -> Void) -> AssistantErrorCode? {
    do {
        try body()
        return nil
    } catch let error as AssistantError {
        return error.code
    } catch {
        return nil
    }
}
