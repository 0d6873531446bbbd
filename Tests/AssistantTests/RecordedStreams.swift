import Foundation
import TestSupport

/// Streams as the model servers send them, each with its quirks, replayed by `ReplayServer`.
///
/// Captured: llama-cpp-python's server (0.3.36, the real one in .build/venv serving SmolLM2-135M),
/// whole HTTP responses as it sent them, in `Recorded/llama-cpp-python/*.http`, made by
/// `Tests/ModelTier/capture_streams.py` (`captured(_:)`).
///
/// Reconstructed (none of these servers can be installed here): llama.cpp's C++ `llama-server`,
/// vLLM and Ollama. They follow each server's streaming code and documentation for the versions
/// named (field order, separators, the usage chunk, what the last chunks hold); ids and timestamps
/// are fixed so the tests are stable. They are what we believe those servers send, not bytes seen.
enum RecordedStreams {
    /// A response captured from the real llama-cpp-python server: status line, fields and the
    /// chunked body, byte for byte.
    static func captured(_ name: String) throws -> [UInt8] {
        let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Recorded/llama-cpp-python")
        return [UInt8](try Data(contentsOf: directory.appendingPathComponent(name + ".http")))
    }

    /// llama.cpp's `llama-server` (b4200-era server.cpp): a first chunk with the role and a null
    /// content, LF LF separators, the usage and timings in the chunk with the finish reason.
    static let llamaCpp = [
        #"{"choices":[{"finish_reason":null,"index":0,"delta":{"role":"assistant","content":null}}],"created":1764806400,"id":"chatcmpl-Xq2","model":"SmolLM2-135M-Instruct","system_fingerprint":"b4200-3ad5451f","object":"chat.completion.chunk"}"#,
        #"{"choices":[{"finish_reason":null,"index":0,"delta":{"content":"The"}}],"created":1764806400,"id":"chatcmpl-Xq2","model":"SmolLM2-135M-Instruct","object":"chat.completion.chunk"}"#,
        #"{"choices":[{"finish_reason":null,"index":0,"delta":{"content":" harbour"}}],"created":1764806400,"id":"chatcmpl-Xq2","model":"SmolLM2-135M-Instruct","object":"chat.completion.chunk"}"#,
        #"{"choices":[{"finish_reason":null,"index":0,"delta":{"content":" was quiet."}}],"created":1764806400,"id":"chatcmpl-Xq2","model":"SmolLM2-135M-Instruct","object":"chat.completion.chunk"}"#,
        #"{"choices":[{"finish_reason":"stop","index":0,"delta":{}}],"created":1764806400,"id":"chatcmpl-Xq2","model":"SmolLM2-135M-Instruct","object":"chat.completion.chunk","usage":{"completion_tokens":5,"prompt_tokens":41,"total_tokens":46},"timings":{"prompt_n":41,"prompt_ms":60.2,"predicted_n":5,"predicted_ms":31.0}}"#,
        "[DONE]",
    ]

    /// vLLM's OpenAI server (0.6-era): an empty first content, the finish reason with an empty
    /// delta and a `stop_reason`, then usage in a chunk whose `choices` is empty.
    static let vllm = [
        #"{"id":"chatcmpl-9b7","object":"chat.completion.chunk","created":1764806400,"model":"Qwen2.5-7B-Instruct","choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]}"#,
        #"{"id":"chatcmpl-9b7","object":"chat.completion.chunk","created":1764806400,"model":"Qwen2.5-7B-Instruct","choices":[{"index":0,"delta":{"content":"Rain"},"logprobs":null,"finish_reason":null}]}"#,
        #"{"id":"chatcmpl-9b7","object":"chat.completion.chunk","created":1764806400,"model":"Qwen2.5-7B-Instruct","choices":[{"index":0,"delta":{"content":" fell on the quay."},"logprobs":null,"finish_reason":null}]}"#,
        #"{"id":"chatcmpl-9b7","object":"chat.completion.chunk","created":1764806400,"model":"Qwen2.5-7B-Instruct","choices":[{"index":0,"delta":{"content":""},"logprobs":null,"finish_reason":"stop","stop_reason":null}]}"#,
        #"{"id":"chatcmpl-9b7","object":"chat.completion.chunk","created":1764806400,"model":"Qwen2.5-7B-Instruct","choices":[],"usage":{"prompt_tokens":52,"total_tokens":59,"completion_tokens":7}}"#,
        "[DONE]",
    ]

    /// vLLM with a tool call (hermes parser): the id and name first, the arguments in three pieces.
    static let vllmToolCall = [
        #"{"id":"chatcmpl-t1","object":"chat.completion.chunk","created":1764806400,"model":"Qwen2.5-7B-Instruct","choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]}"#,
        #"{"id":"chatcmpl-t1","object":"chat.completion.chunk","created":1764806400,"model":"Qwen2.5-7B-Instruct","choices":[{"index":0,"delta":{"tool_calls":[{"id":"chatcmpl-tool-4f2","type":"function","index":0,"function":{"name":"search_notes"}}]},"logprobs":null,"finish_reason":null}]}"#,
        #"{"id":"chatcmpl-t1","object":"chat.completion.chunk","created":1764806400,"model":"Qwen2.5-7B-Instruct","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"query\": \""}}]},"logprobs":null,"finish_reason":null}]}"#,
        #"{"id":"chatcmpl-t1","object":"chat.completion.chunk","created":1764806400,"model":"Qwen2.5-7B-Instruct","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"harbour"}}]},"logprobs":null,"finish_reason":null}]}"#,
        #"{"id":"chatcmpl-t1","object":"chat.completion.chunk","created":1764806400,"model":"Qwen2.5-7B-Instruct","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"}"}}]},"logprobs":null,"finish_reason":null}]}"#,
        #"{"id":"chatcmpl-t1","object":"chat.completion.chunk","created":1764806400,"model":"Qwen2.5-7B-Instruct","choices":[{"index":0,"delta":{"content":""},"logprobs":null,"finish_reason":"tool_calls","stop_reason":null}]}"#,
        #"{"id":"chatcmpl-t1","object":"chat.completion.chunk","created":1764806400,"model":"Qwen2.5-7B-Instruct","choices":[],"usage":{"prompt_tokens":180,"total_tokens":201,"completion_tokens":21}}"#,
        "[DONE]",
    ]

    /// Ollama's OpenAI-compatible `/v1` (0.5-era): `choices` null in its usage chunk (a quirk some
    /// proxies in front of it have too).
    static let ollamaOpenAI = [
        #"{"id":"chatcmpl-212","object":"chat.completion.chunk","created":1764806400,"model":"llama3.2","system_fingerprint":"fp_ollama","choices":[{"index":0,"delta":{"role":"assistant","content":"Fog"},"finish_reason":null}]}"#,
        #"{"id":"chatcmpl-212","object":"chat.completion.chunk","created":1764806400,"model":"llama3.2","system_fingerprint":"fp_ollama","choices":[{"index":0,"delta":{"role":"assistant","content":" rolled in."},"finish_reason":null}]}"#,
        #"{"id":"chatcmpl-212","object":"chat.completion.chunk","created":1764806400,"model":"llama3.2","system_fingerprint":"fp_ollama","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":"stop"}]}"#,
        #"{"id":"chatcmpl-212","object":"chat.completion.chunk","created":1764806400,"model":"llama3.2","system_fingerprint":"fp_ollama","choices":null,"usage":{"prompt_tokens":30,"completion_tokens":4,"total_tokens":34}}"#,
        "[DONE]",
    ]

    /// Ollama's native `/api/chat`: one JSON object per line, the last with `done` and the counts.
    static let ollamaNative = [
        #"{"model":"llama3.2","created_at":"2026-12-04T20:00:00.1Z","message":{"role":"assistant","content":"Lamps"},"done":false}"#,
        #"{"model":"llama3.2","created_at":"2026-12-04T20:00:00.2Z","message":{"role":"assistant","content":" came on."},"done":false}"#,
        #"{"model":"llama3.2","created_at":"2026-12-04T20:00:00.3Z","message":{"role":"assistant","content":""},"done_reason":"stop","done":true,"total_duration":412000000,"load_duration":2000000,"prompt_eval_count":33,"prompt_eval_duration":90000000,"eval_count":4,"eval_duration":120000000}"#,
    ]

    /// Ollama's native tool call: whole, its arguments an object, no id.
    static let ollamaNativeToolCall = [
        #"{"model":"llama3.2","created_at":"2026-12-04T20:00:00.1Z","message":{"role":"assistant","content":"","tool_calls":[{"function":{"name":"search_notes","arguments":{"query":"harbour"}}}]},"done":false}"#,
        #"{"model":"llama3.2","created_at":"2026-12-04T20:00:00.2Z","message":{"role":"assistant","content":""},"done_reason":"stop","done":true,"prompt_eval_count":120,"eval_count":18}"#,
    ]

    static func ndjson(_ lines: [String]) -> [ReplayServer.Step] {
        [.send(Wire.head(200, ["Content-Type: application/x-ndjson", "Transfer-Encoding: chunked"]))] + lines.map { .send(Wire.chunk($0 + "\n")) } + [.send(Wire.lastChunk)]
    }
}
