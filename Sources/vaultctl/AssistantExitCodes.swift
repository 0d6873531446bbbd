import Assistant

extension ExitCode {
    /// The Assistant's failures: a bad setting is a usage error, a provider that cannot be reached
    /// or stalls unavailable, a refusal by the policy or the funnel refused, a broken answer or a
    /// damaged record bad data.
    init(for error: AssistantError) {
        switch error.code {
        case .invalidEndpoint, .invalidSetting, .unknownLane: self = .usage
        case .unknownProvider: self = .noInput
        case .connectionFailed, .timedOut, .providerStatus, .providerError: self = .unavailable
        case .malformedResponse, .responseTooLarge, .malformedStream, .truncatedStream, .invalidTranscript, .damagedRecord: self = .dataError
        case .refusedByPolicy, .egressRefused, .decisionChanged: self = .refused
        case .contractFailed: self = .failure
        }
    }
}
