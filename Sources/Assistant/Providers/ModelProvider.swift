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
public func makeProvider(_ configuration: ProviderConfiguration, client: HTTPClient = HTTPClient()) -> any ModelProvider {
    switch configuration.kind {
    case .openai: OpenAICompatibleProvider(configuration, client: client)
    case .ollama: OllamaProvider(configuration, client: client)
    }
}
