import CryptoVault
import PrivilegedSession

/// A model endpoint the owner added (`vaultctl ai providers add`), the seed's CustomEndpoint among them.
/// Its name, kind, URL, model, whether it is local and its headers' names are clear; a header's value
/// (an API key) is sealed in the vault and, once opened, lives only in locked memory: never printed,
/// logged, put in an error or an audit field.
public struct ProviderConfiguration: Sendable {
    public enum Kind: String, Sendable, CaseIterable {
        /// The OpenAI-compatible chat-completions protocol (llama.cpp's server, vLLM, Ollama's /v1).
        case openai
        /// Ollama's native `/api/chat`.
        case ollama
        /// A CustomEndpoint: the OpenAI chat-completions protocol at a base URL the owner gives whole
        /// (`BASE/chat/completions`, no `/v1` added), typically behind a gateway that wants headers
        /// (an API key, sealed in the vault).
        case custom
    }

    public struct Header: Sendable {
        public let name: String
        public let value: SecureBytes

        public init(name: String, value: SecureBytes) throws(AssistantError) {
            guard (1...64).contains(name.utf8.count), name.utf8.allSatisfy(HTTPResponseHead.isTokenByte) else {
                throw AssistantError(.invalidSetting, "a header name is 1 to 64 token characters")
            }
            let reserved = ["host", "content-length", "connection", "transfer-encoding", "user-agent", "content-type", "accept"]
            guard !reserved.contains(name.lowercased()) else { throw AssistantError(.invalidSetting, "the client sets \(name) itself") }
            let valid = value.withUnsafeBytes { bytes in bytes.count <= 4096 && bytes.allSatisfy(HTTPResponseHead.isValueByte) }
            guard valid else { throw AssistantError(.invalidSetting, "header \(name)'s value is at most 4096 bytes with no control byte") }
            self.name = name
            self.value = value
        }
    }

    public let name: String
    public let kind: Kind
    public let endpoint: HTTPEndpoint
    public let model: String
    /// The owner said it runs on this machine or on one of the owner's devices (`--local`), which
    /// the endpoint must bear out (loopback or a private network). Only a local provider can ever
    /// be allowed privileged content.
    public let isLocal: Bool
    public let headers: [Header]

    public init(name: String, kind: Kind, url: String, model: String, isLocal: Bool, headers: [Header] = []) throws(AssistantError) {
        guard (1...64).contains(name.utf8.count), name.utf8.allSatisfy(Self.isNameByte), name.first != "-" else {
            throw AssistantError(.invalidSetting, "a provider name is 1 to 64 of a-z, 0-9, '.', '_' and '-', not starting with '-'")
        }
        guard (1...128).contains(model.utf8.count), model.utf8.allSatisfy(Self.isModelByte) else {
            throw AssistantError(.invalidSetting, "a model name is 1 to 128 visible ASCII characters with no quote or backslash")
        }
        self.name = name
        self.kind = kind
        self.endpoint = try HTTPEndpoint(parsing: url)
        self.model = model
        self.isLocal = isLocal
        self.headers = headers
    }

    /// The headers' names, in order (what may be shown; never their values).
    public var headerNames: [String] { headers.map(\.name) }

    /// `model:NAME/MODEL`, the egress destination of every call to it.
    public var destination: EgressDestination { EgressDestination(kind: .model, id: "\(name)/\(model)") }

    static func isNameByte(_ byte: UInt8) -> Bool {
        if (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte) { return true }
        return nameMarks.contains(byte)
    }

    private static let nameMarks: Set<UInt8> = Set("._-".utf8)

    /// Visible ASCII but the quote and the backslash (a model name goes into JSON and the destination).
    static func isModelByte(_ byte: UInt8) -> Bool {
        guard byte > 0x20, byte < 0x7F else { return false }
        return byte != 0x22 && byte != 0x5C
    }
}
