@testable import Assistant
import Foundation
import Testing
import TestSupport

/// The known answers of testvectors/assistant/ai-interaction.json, written by the independent
/// reader testvectors/independent/ai_interaction.py from SECURITY.md §17.3 and §17.6 alone: our
/// encoder makes the same bytes, our parser reads the same fields and refuses the same damage.
@Suite struct AIInteractionVectorTests {
    struct Vectors: Decodable {
        struct Record: Decodable {
            let name, document, lane, provider, decision, outcome, prompt, answer, stored, branch, encoded: String
            let prompt_tokens, completion_tokens: UInt32
        }
        struct Invalid: Decodable { let name, encoded: String }
        let records: [Record]
        let invalid_records: [Invalid]
        let transcripts: [Invalid]
        let invalid_transcripts: [Invalid]
    }

    static let vectors: Vectors = try! PackageFiles.decode("testvectors/assistant/ai-interaction.json")

    /// The vector file's hex, by TestSupport's one decoder (malformed hex stops the test here).
    static func bytes(_ hex: String) -> [UInt8] { [UInt8](hex: hex)! }

    @Test func recordsEncodeAndParseAsTheIndependentReaderDoes() throws {
        #expect(Self.vectors.records.count >= 4)
        for case let vector in Self.vectors.records {
            let record = AIInteractionRecord(document: Self.bytes(vector.document), lane: vector.lane, provider: vector.provider,
                                             decision: vector.decision, outcome: vector.outcome, prompt: Self.bytes(vector.prompt),
                                             answer: vector.answer, stored: vector.stored, branch: Self.bytes(vector.branch),
                                             promptTokens: vector.prompt_tokens, completionTokens: vector.completion_tokens)
            #expect(record.encoded() == Self.bytes(vector.encoded), "\(vector.name)")
            #expect(try AIInteractionRecord(parsing: Self.bytes(vector.encoded)) == record, "\(vector.name)")
        }
    }

    @Test func damagedRecordsAreRefused() {
        for vector in Self.vectors.invalid_records {
            #expect(assistantErrorCode { _ = try AIInteractionRecord(parsing: Self.bytes(vector.encoded)) } == .damagedRecord, "\(vector.name)")
        }
    }

    @Test func transcriptsParseAndBadOnesAreRefused() {
        for vector in Self.vectors.transcripts {
            #expect(assistantErrorCode { _ = try ChatTranscript(parsing: Self.bytes(vector.encoded)) } == nil, "\(vector.name)")
        }
        for vector in Self.vectors.invalid_transcripts {
            #expect(assistantErrorCode { _ = try ChatTranscript(parsing: Self.bytes(vector.encoded)) } == .invalidTranscript, "\(vector.name)")
        }
    }
}
