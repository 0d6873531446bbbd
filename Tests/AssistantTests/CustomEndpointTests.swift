@testable import Assistant
import CryptoVault
import Foundation
import PrivilegedSession
import Testing
import TestSupport
import Writing

/// CustomEndpoint: a base URL, a model and headers whose values (API keys) are sealed in the vault,
/// sent from locked memory, and never in the vault's clear files, the audit log, a list or an error.
@Suite struct CustomEndpointTests {
    static let secret = "sk-live-7f3a9c2e-CUSTOM-ENDPOINT-KEY"

    /// A gateway that answers only requests carrying `Authorization: Bearer <secret>`, else 401.
    static func gateway() throws -> ReplayServer {
        try ReplayServer { request in
            guard request.head.contains("\r\nAuthorization: Bearer \(secret)\r\n") else {
                let body = #"{"error":{"message":"Invalid API key","type":"invalid_request_error","code":"invalid_api_key"}}"#
                return [.send(Array("HTTP/1.1 401 Unauthorized\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)".utf8))]
            }
            return Wire.chunkedEvents([#"{"choices":[{"index":0,"delta":{"content":"The lamps came on."},"finish_reason":"stop"}]}"#, "[DONE]"])
        }
    }

    func custom(_ server: ReplayServer, value: String = secret) throws -> ProviderConfiguration {
        let header = try ProviderConfiguration.Header(name: "Authorization", value: try SecureBytes(copying: Array("Bearer \(value)".utf8)))
        return try ProviderConfiguration(name: "gateway", kind: .custom, url: server.url + "/openai", model: "gpt-oss", isLocal: false, headers: [header])
    }

    /// Every byte of every file in the vault's directory (the database, its WAL, bundles).
    static func vaultFiles(_ directory: String) throws -> [(String, Data)] {
        let enumerator = FileManager.default.enumerator(atPath: directory)
        var files: [(String, Data)] = []
        while let path = enumerator?.nextObject() as? String {
            var isDirectory: ObjCBool = false
            let full = directory + "/" + path
            if FileManager.default.fileExists(atPath: full, isDirectory: &isDirectory), !isDirectory.boolValue {
                files.append((path, try Data(contentsOf: URL(fileURLWithPath: full))))
            }
        }
        return files
    }

    @Test func theKeyIsSealedSentFromTheVaultAndNeverInClearFilesTheAuditLogOrTheList() throws {
        let fixture = try AssistantFixture()
        let server = try Self.gateway()
        defer { server.stop() }
        try fixture.unlocked.transaction { tx in try AssistantStore(tx).addProvider(try custom(server)) }
        let summaries = try AssistantStore.providerSummaries(in: fixture.unlocked.vault)
        #expect(summaries.map(\.headerNames) == [["Authorization"]])
        #expect(!"\(summaries)".contains(Self.secret))
        // A call: the service reads the providers, the header's value opened from the vault.
        let service = try AIService(vault: fixture.unlocked)
        let call = try service.run(.coauthorDraft, project: try fixture.project(), policy: AIPolicy(), request: AssistantFixture.chat)
        #expect(call.answer.text == "The lamps came on.")
        let request = try #require(server.requests.first)
        #expect(request.head.hasPrefix("POST /openai/chat/completions HTTP/1.1\r\n"), "a custom endpoint's URL is the API's base")
        #expect(request.head.contains("Authorization: Bearer \(Self.secret)"))
        // Nowhere in clear: not in any file of the vault, not in an audit entry's details.
        let needle = Data(Self.secret.utf8)
        for (path, bytes) in try Self.vaultFiles(fixture.vault.directory) { #expect(bytes.range(of: needle) == nil, "the key is in clear in \(path)") }
        let details = fixture.vault.recording.events.withLock { $0.flatMap { $0.details.map(\.value) } }
        #expect(!details.contains { $0.contains(Self.secret) })
        #expect(fixture.vault.recording.actions.contains("record.seal") && fixture.vault.recording.actions.contains("record.open"))
    }

    @Test func aWrongKeyIsAClearErrorThatDoesNotRepeatIt() throws {
        let fixture = try AssistantFixture()
        let server = try Self.gateway()
        defer { server.stop() }
        let wrong = "sk-live-WRONG-KEY-0000"
        try fixture.unlocked.transaction { tx in try AssistantStore(tx).addProvider(try custom(server, value: wrong)) }
        do {
            _ = try AIService(vault: fixture.unlocked).run(.coauthorDraft, project: try fixture.project(), policy: AIPolicy(), request: AssistantFixture.chat)
            Issue.record("a 401 was taken as an answer")
        } catch let error as AssistantError {
            #expect(error.code == .providerStatus)
            #expect(error.message.contains("401") && error.message.contains("credentials"), "\(error.message)")
            #expect(!error.message.contains(wrong) && !error.message.contains("Invalid API key"))
        }
    }

    @Test func anAbsentKeyIsAClearErrorNamingTheHeader() throws {
        let fixture = try AssistantFixture()
        let server = try Self.gateway()
        defer { server.stop() }
        try fixture.unlocked.transaction { tx in try AssistantStore(tx).addProvider(try custom(server)) }
        // The sealed value goes (as if removed or its compartment destroyed): the provider cannot be used.
        let compartment = try fixture.unlocked.compartment(named: AssistantStore.secretsCompartmentName)
        try fixture.unlocked.transaction { tx in try tx.removeRecord(at: try AssistantStore.headerLocation("gateway", 0), in: compartment) }
        do {
            _ = try AIService(vault: fixture.unlocked)
            Issue.record("a provider without its key's value was loaded")
        } catch let error as AssistantError {
            #expect(error.code == .damagedRecord)
            #expect(error.message.contains("header Authorization of provider gateway"), "\(error.message)")
        }
        #expect(server.requests.isEmpty)
    }

    @Test func removingTheProviderRemovesItsSealedValues() throws {
        let fixture = try AssistantFixture()
        let server = try Self.gateway()
        defer { server.stop() }
        try fixture.unlocked.transaction { tx in try AssistantStore(tx).addProvider(try custom(server)) }
        #expect(try fixture.unlocked.transaction { tx in try AssistantStore(tx).removeProvider("gateway") })
        let compartment = try fixture.unlocked.compartment(named: AssistantStore.secretsCompartmentName)
        #expect(throws: (any Error).self) {
            try fixture.unlocked.transaction { tx in _ = try tx.openRecord(at: try AssistantStore.headerLocation("gateway", 0), in: compartment) }
        }
    }

    @Test func headerNamesAreCheckedAndEachGivenOnce() throws {
        let value = try SecureBytes(copying: Array("x".utf8))
        #expect(assistantErrorCode { _ = try ProviderConfiguration.Header(name: "Content-Length", value: value) } == .invalidSetting)
        #expect(assistantErrorCode { _ = try ProviderConfiguration.Header(name: "Bad Name", value: value) } == .invalidSetting)
        let fixture = try AssistantFixture()
        let twice = try ProviderConfiguration(name: "g", kind: .custom, url: "http://127.0.0.1:9", model: "m", isLocal: false,
                                              headers: [try .init(name: "X-Key", value: value), try .init(name: "x-key", value: value)])
        #expect(assistantErrorCode { try fixture.unlocked.transaction { tx in try AssistantStore(tx).addProvider(twice) } } == .invalidSetting)
    }
}
