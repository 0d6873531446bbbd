/// The sealed value of one model call and its answer (an AIInteraction, SECURITY.md §17.6):
///
///     record   = "AIX" version:u8 (1) document:16 field{8} tokens
///     field    = length:u32be bytes            ; in this order:
///                lane, provider, decision, outcome, prompt, answer, stored, branch
///     tokens   = prompt:u32be completion:u32be ; 0xFFFFFFFF when the server did not say
///
/// `prompt` is the transcript as the funnel released it (§17.3, redactions in place); `answer` the
/// model's text as it came, identifiers put back; `stored` the text the branch holds after the
/// output contract (empty when the contract failed: an echo is never stored as text); `branch` is
/// 16 bytes or empty. Text fields are UTF-8, `lane` to `outcome` 1 to 256 bytes. Nothing may
/// follow. Sealed in the project's compartment in parts of at most 1 MiB, as a branch is.
public struct AIInteractionRecord: Sendable, Equatable {
    static let magic: [UInt8] = Array("AIX".utf8) + [1]
    public static let unknownTokens: UInt32 = .max
    static let maximumBytes = 32 * 1024 * 1024
    static let partBytes = 1024 * 1024

    public let document: [UInt8]
    public let lane: String
    public let provider: String
    public let decision: String
    public let outcome: String
    public let prompt: [UInt8]
    public let answer: String
    public let stored: String
    public let branch: [UInt8]
    public let promptTokens: UInt32
    public let completionTokens: UInt32

    public init(document: [UInt8], lane: String, provider: String, decision: String, outcome: String, prompt: [UInt8], answer: String,
                stored: String, branch: [UInt8], promptTokens: UInt32 = unknownTokens, completionTokens: UInt32 = unknownTokens) {
        self.document = document
        self.lane = lane
        self.provider = provider
        self.decision = decision
        self.outcome = outcome
        self.prompt = prompt
        self.answer = answer
        self.stored = stored
        self.branch = branch
        self.promptTokens = promptTokens
        self.completionTokens = completionTokens
    }

    public func encoded() -> [UInt8] {
        var bytes = Self.magic + document
        for field in [Array(lane.utf8), Array(provider.utf8), Array(decision.utf8), Array(outcome.utf8), prompt, Array(answer.utf8),
                      Array(stored.utf8), branch] {
            Self.append(UInt32(field.count), to: &bytes)
            bytes += field
        }
        Self.append(promptTokens, to: &bytes)
        Self.append(completionTokens, to: &bytes)
        return bytes
    }

    public init(parsing bytes: [UInt8]) throws(AssistantError) {
        guard bytes.count <= Self.maximumBytes else { throw Self.damaged("is over \(Self.maximumBytes) bytes") }
        guard bytes.starts(with: Self.magic) else { throw Self.damaged("does not start with AIX version 1") }
        var position = Self.magic.count
        func take(_ count: Int) throws(AssistantError) -> [UInt8] {
            guard count >= 0, bytes.count - position >= count else { throw Self.damaged("ends early") }
            defer { position += count }
            return Array(bytes[position..<(position + count)])
        }
        func number() throws(AssistantError) -> UInt32 { try take(4).reduce(0) { $0 << 8 | UInt32($1) } }
        func field() throws(AssistantError) -> [UInt8] { try take(Int(try number())) }
        func name() throws(AssistantError) -> String {
            let value = try field()
            guard (1...256).contains(value.count), let text = String(validating: value, as: UTF8.self) else { throw Self.damaged("has a name that is not 1 to 256 bytes of UTF-8") }
            return text
        }
        func text() throws(AssistantError) -> String {
            guard let text = String(validating: try field(), as: UTF8.self) else { throw Self.damaged("has text that is not UTF-8") }
            return text
        }
        document = try take(16)
        lane = try name()
        provider = try name()
        decision = try name()
        outcome = try name()
        prompt = try field()
        answer = try text()
        stored = try text()
        branch = try field()
        guard branch.isEmpty || branch.count == 16 else { throw Self.damaged("names a branch that is not 16 bytes") }
        promptTokens = try number()
        completionTokens = try number()
        guard position == bytes.count else { throw Self.damaged("has bytes after its end") }
    }

    /// The encoding cut into sealed-record parts of at most 1 MiB (at least one).
    func parts() -> [[UInt8]] {
        let bytes = encoded()
        return stride(from: 0, to: max(bytes.count, 1), by: Self.partBytes).map { Array(bytes[$0..<min(bytes.count, $0 + Self.partBytes)]) }
    }

    static func append(_ value: UInt32, to bytes: inout [UInt8]) {
        bytes += [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    static func damaged(_ what: String) -> AssistantError { AssistantError(.damagedRecord, "an AI interaction record \(what)") }
}
