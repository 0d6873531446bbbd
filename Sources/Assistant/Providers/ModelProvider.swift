import PrivilegedSession

/// A model behind a protocol. It takes a `ReleasedPayload` (a chat transcript the egress funnel let
/// out, `ChatTranscript`) and nothing else, so no text reaches it that did not pass the funnel; it
/// refuses a payload released for another destination, and a payload of privileged content unless
/// the provider is local. It streams what the model says as `ChatEvent`s, ending with `.finish`.
public protocol ModelProvider: Sendable {
    var configuration: ProviderConfiguration { get }

    /// Sends the released chat and calls `onEvent` with each event as it arrives, on this thread.
    func stream(_ payload: ReleasedPayload, _ onEvent: (ChatEvent) throws -> Void) throws
}

extension ModelProvider {
    /// The transcript in `payload`, once it is checked to be for this provider.
    func transcript(of payload: ReleasedPayload) throws -> ChatTranscript {
        guard payload.destination == configuration.destination else {
            throw AssistantError(.egressRefused, "the payload was released for \(payload.destination), not \(configuration.destination)")
        }
        // The last word on privileged content, whatever any policy said: a provider not marked local never gets it.
        guard !payload.carriesPrivilegedContent || configuration.isLocal else {
            throw AssistantError(.egressRefused, "provider \(configuration.name) is not local: privileged content never goes to it")
        }
        return try ChatTranscript(parsing: payload.bytes)
    }

    /// Collects the whole answer.
    public func complete(_ payload: ReleasedPayload) throws -> ChatAnswer {
        var answer = ChatAnswer()
        try stream(payload) { answer.add($0) }
        return answer
    }
}

/// The provider for a configuration, by its kind.
extension HTTPClient {
    /// POSTs a chat body to the provider's `path` and hands each piece of a 200 answer to `feed`.
    /// Any other status is a `ProviderFailure` carrying the first 64 KiB of the server's body (both
    /// providers answer errors the same way, whatever their stream's format).
    func postChat(_ body: [UInt8], for configuration: ProviderConfiguration, path: String, accept: String,
                  _ feed: (ArraySlice<UInt8>) throws -> Void) throws {
        var errorBody: [UInt8] = []
        var status = 0
        try post(body, to: configuration.endpoint, path: path, headers: [("Content-Type", "application/json"), ("Accept", accept)],
                 secretHeaders: configuration.headers.map { ($0.name, $0.value) },
                 head: { status = $0.status }, body: { bytes in
            guard status == 200 else { errorBody.append(contentsOf: bytes.prefix(max(0, 65536 - errorBody.count))); return }
            try feed(bytes)
        })
        guard status == 200 else { throw ProviderFailure.status(status, body: errorBody) }
    }
}

public func makeProvider(_ configuration: ProviderConfiguration, client: HTTPClient = HTTPClient()) -> any ModelProvider {
    switch configuration.kind {
    case .openai, .custom: OpenAICompatibleProvider(configuration, client: client)
    case .ollama: OllamaProvider(configuration, client: client)
    }
}
