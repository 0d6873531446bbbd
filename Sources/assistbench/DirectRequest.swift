import Assistant
import CryptoVault
import Foundation

/// The baseline: the request the provider would send (the same JSON body, keys sorted, through the
/// same HTTP client) straight to the model server, with no lane, policy, funnel or audit.
struct DirectRequest {
    let endpoint: HTTPEndpoint
    let body: [UInt8]

    init(endpoint: HTTPEndpoint, system: String, user: String, model: String, maximumTokens: Int) {
        self.endpoint = endpoint
        let object: [String: Any] = ["model": model, "stream": true, "stream_options": ["include_usage": true], "max_tokens": maximumTokens,
                                     "temperature": 0, "messages": [["role": "system", "content": system], ["role": "user", "content": user]]]
        body = [UInt8]((try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data())
    }

    /// Milliseconds from the request to the first chunk whose delta has text (the whole answer is
    /// then read to its end, as the whole path reads it).
    func firstToken() throws -> Double {
        let start = VaultClock.system.monotonic()
        var first: Double?
        var seen: [UInt8] = []
        try HTTPClient().post(body, to: endpoint, path: "/v1/chat/completions", headers: [("Content-Type", "application/json"), ("Accept", "text/event-stream")],
                              head: { _ in }, body: { bytes in
            guard first == nil else { return }
            seen.append(contentsOf: bytes)
            if Self.hasText(seen) { first = VaultClock.system.monotonic() }
        })
        guard let first else { throw AssistantError(.truncatedStream, "the model answered no text") }
        return (first - start) * 1000
    }

    /// Whether the stream so far holds a delta with non-empty content (`"content": "x`, with or
    /// without the space llama-cpp-python puts after the colon).
    static func hasText(_ bytes: [UInt8]) -> Bool {
        let text = String(decoding: bytes, as: UTF8.self)
        return text.range(of: #""content": ?"[^"]"#, options: .regularExpression) != nil
    }
}
