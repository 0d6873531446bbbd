import CryptoVault

/// The assistant's one error type: a code to match on and a message for people. Messages never hold
/// a prompt, an answer, an API key or a header value; equality compares codes only.
public typealias AssistantError = CodedError<AssistantErrorCode>

public enum AssistantErrorCode: String, Sendable {
    /// A provider's URL is not `http://HOST[:PORT][/PATH]` with a host we may reach (loopback or a private network).
    case invalidEndpoint
    /// The connection could not be made, or broke.
    case connectionFailed
    /// The connection, the first byte, the gap between bytes or the whole answer took too long.
    case timedOut
    /// The server's HTTP response is not HTTP/1.1 as the client accepts it.
    case malformedResponse
    /// The response head or body is over its bound.
    case responseTooLarge
    /// The server answered with an error status (429, 500, ...).
    case providerStatus
    /// A stream event (an SSE event or an NDJSON line) is not what the protocol says.
    case malformedStream
    /// The stream ended before its end marker.
    case truncatedStream
    /// The provider reported an error in the stream.
    case providerError
    /// A released payload is not a chat transcript (a redaction crossed a message boundary, say).
    case invalidTranscript
    /// No such lane, provider or project setting.
    case unknownLane
    case unknownProvider
    /// The project's AI policy keeps this lane from this provider, or from every provider.
    case refusedByPolicy
    /// The egress funnel refused the prompt: nothing was sent.
    case egressRefused
    /// The decision a person confirmed is not what would be decided now (the document changed, the
    /// policy or the providers did): nothing was sent.
    case decisionChanged
    /// A name, URL, model or header is not what the registry accepts.
    case invalidSetting
    /// The model's answer failed the output contract (it echoed its prompt, or said nothing).
    case contractFailed
    /// A stored assistant record could not be read back.
    case damagedRecord
}
