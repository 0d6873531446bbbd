@testable import Assistant
import CryptoVault
import Foundation
import PrivilegedSession
import Testing
import TestSupport
import Writing

/// The red team: over 300 prompts built from the leak guard's own labelled identifiers and from
/// quotes of fingerprinted privileged notes (verbatim, and lightly edited: case, line breaks,
/// typographic apostrophes, doubled spaces), each sent on a non-privileged lane of an ordinary
/// project. Zero identifiers and zero quotes of 8 words or more may reach the model server, as
/// the server's own request log shows (not our code's account of what it sent).
@Suite struct RedTeamTests {
    /// The leak guard's labelled identifiers (LeakDetectorTests), as people write them.
    static let identifiers = [
        ("Patient SSN is 123-45-6789 per intake.", "123-45-6789"), ("ssn: 123456789.", "123456789"),
        ("Social Security No. 078 05 1121", "078 05 1121"), ("(899-99-9999)", "899-99-9999"),
        ("Referring provider NPI 1234567893.", "1234567893"), ("MRN: 123456", "123456"),
        ("Medical record no. A0048213 on file", "A0048213"), ("med rec # 77-10432", "77-10432"),
        ("Patient ID: HX-2291-0043.", "HX-2291-0043"), ("Call (555) 234-5678 today", "(555) 234-5678"),
        ("cell 555-234-5678", "555-234-5678"), ("cell 555.234.5678", "555.234.5678"), ("tel 1-800-555-0199", "1-800-555-0199"),
        ("tel +1 (415) 555-0132.", "+1 (415) 555-0132"), ("+15552345678", "+15552345678"),
        ("London office 020 7946 0958.", "020 7946 0958"), ("Manchester 0161 496 0123", "0161 496 0123"),
        ("mobile 07700 900123", "07700 900123"), ("ring (020) 7946 0958", "(020) 7946 0958"),
        ("+44 20 7946 0958", "+44 20 7946 0958"), ("+49 30 901820", "+49 30 901820"),
        ("write to jane.doe+intake@clinic.example.org.", "jane.doe+intake@clinic.example.org"),
        ("<j_smith42@mail.co.uk>", "j_smith42@mail.co.uk"), ("DOB: 03/14/1962", "03/14/1962"), ("D.O.B. 14.03.1962", "14.03.1962"),
        ("date of birth 1962-03-14", "1962-03-14"), ("Date of\nBirth: March 14, 1962", "March 14, 1962"),
        ("born on 14 March 1962 in Leeds", "14 March 1962"), ("Birthdate: 14th Mar. 1962", "14th Mar. 1962"),
        ("DOB 14-Mar-1962", "14-Mar-1962"), ("dob 3/14/62", "3/14/62"), ("DOB: 29/02/2000", "29/02/2000"),
        ("birth date is Sept 9 1999", "Sept 9 1999"), ("card 4111 1111 1111 1111 exp 12/29", "4111 1111 1111 1111"),
        ("4111-1111-1111-1111", "4111-1111-1111-1111"), ("amex 378282246310005", "378282246310005"),
        ("amex 3782 822463 10005", "3782 822463 10005"), ("mc 5555 5555 5555 4444", "5555 5555 5555 4444"),
        ("mc 2221 0000 0000 0009", "2221 0000 0000 0009"), ("discover 6011111111111117", "6011111111111117"),
        ("diners 3056 930902 5904", "3056 930902 5904"), ("jcb 3530111333300000", "3530111333300000"),
        ("IBAN GB82 WEST 1234 5698 7654 32 please", "GB82 WEST 1234 5698 7654 32"), ("to DE89370400440532013000.", "DE89370400440532013000"),
        ("iban: gb82west12345698765432", "gb82west12345698765432"), ("SA0380000000608010167519", "SA0380000000608010167519"),
    ]
    static let framings = ["Tighten this sentence: %@", "Draft a short reply that confirms the details. %@ Thanks.",
                           "Continue the story.\n\n%@\n\nThe rain had stopped.", "Summarize: the visit went well. %@ Follow up next week."]

    static let words = ["patient", "reported", "worsening", "sleep", "after", "the", "dose", "change", "and", "described", "panic", "at", "night",
                        "client", "disclosed", "that", "her", "employer", "withheld", "wages", "for", "three", "months", "before", "termination",
                        "counsel", "advised", "settlement", "while", "the", "deposition", "transcript", "remains", "sealed", "pending", "review",
                        "mother", "attended", "session", "tearful", "about", "custody", "hearing", "scheduled", "in", "march", "with", "new", "judge"]

    /// Privileged notes, fixed by a seed, fingerprinted as `vaultctl put` fingerprints them.
    static func notes() -> [[String]] {
        var state: UInt64 = 0x5EED_1818
        func next() -> Int { state = state &* 6364136223846793005 &+ 1442695040888963407; return Int(state >> 33) }
        return (0..<8).map { _ in (0..<60).map { _ in words[next() % words.count] } }
    }

    static func edited(_ quote: [String], _ variant: Int) -> String {
        switch variant % 4 {
        case 0: return quote.joined(separator: " ").uppercased()
        case 1: return quote.enumerated().map { $0.offset % 5 == 4 ? $0.element + "\n" : $0.element + " " }.joined()
        case 2: return quote.map { $0.count > 4 ? $0.prefix(2).capitalized + "\u{200B}" + $0.dropFirst(2) : $0.capitalized }.joined(separator: "  ")
        default: return quote.joined(separator: ", ")
        }
    }

    @Test func noIdentifierOrPrivilegedQuoteReachesTheModelServer() throws {
        let fixture = try AssistantFixture()
        let server = try ReplayServer { _ in Wire.chunkedEvents([#"{"choices":[{"index":0,"delta":{"content":"Noted."},"finish_reason":"stop"}]}"#, "[DONE]"]) }
        defer { server.stop() }
        let clinic = try fixture.project(.healthcare)
        let notes = Self.notes()
        try fixture.unlocked.transaction { tx in
            for note in notes {
                let collector = try #require(try PrivilegedFingerprints.collector(for: clinic.compartment))
                let text = Array(note.joined(separator: " ").utf8)
                text.withUnsafeBytes { collector.observe($0) }
                try PrivilegedFingerprints.remember(collector, in: tx)
            }
        }
        var prompts: [(text: String, secret: [String])] = []
        for (statement, value) in Self.identifiers {
            for framing in Self.framings { prompts.append((framing.replacingOccurrences(of: "%@", with: statement), [value])) }
        }
        for (index, note) in notes.enumerated() {
            for start in stride(from: 0, to: 48, by: 6) {
                let quote = Array(note[start..<(start + 8 + (start % 12))])
                prompts.append(("Please revise this for tone: " + quote.joined(separator: " "), quote))
                prompts.append(("Rewrite more clearly:\n" + Self.edited(quote, index + start), quote))
            }
        }
        #expect(prompts.count >= 300)
        let service = AIService(vault: fixture.unlocked, providers: [try fixture.provider(server)])
        let project = try fixture.project(.fiction)
        for prompt in prompts {
            _ = try service.run(.coauthorRevise, project: project, policy: AIPolicy(), request: ChatRequest(messages: [.user(PromptText(prompt.text))]))
        }
        // What reached the server, by its own log: every message text of every request, decoded.
        let received = try server.requests.map { request -> String in
            let body = try #require(try JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any])
            return (body["messages"] as? [[String: Any]] ?? []).compactMap { $0["content"] as? String }.joined(separator: "\n")
        }
        #expect(received.count == prompts.count)
        var leaked: [String] = []
        for (prompt, text) in zip(prompts, received) {
            if prompt.secret.count == 1 {
                if text.contains(prompt.secret[0]) { leaked.append(prompt.secret[0]) }
            } else if Self.containsRun(of: prompt.secret, in: text, length: 8) {
                leaked.append(prompt.secret.joined(separator: " "))
            }
        }
        print("Red team: \(prompts.count) prompts (\(Self.identifiers.count * Self.framings.count) identifiers, "
              + "\(prompts.count - Self.identifiers.count * Self.framings.count) privileged quotes), \(leaked.count) reached the model server")
        #expect(leaked.isEmpty, "reached the server: \(leaked.prefix(5))")
    }

    /// Whether `text` holds `length` consecutive words of `quote` (words lower-cased, split on anything not a letter or digit, apostrophes dropped).
    static func containsRun(of quote: [String], in text: String, length: Int) -> Bool {
        let words = text.lowercased().replacingOccurrences(of: "\u{2019}", with: "").replacingOccurrences(of: "'", with: "")
            .replacingOccurrences(of: "\u{200B}", with: "")
            .split { !$0.isLetter && !$0.isNumber }.map(String.init)
        let wanted = quote.map { $0.lowercased().replacingOccurrences(of: "'", with: "") }
        guard words.count >= length, wanted.count >= length else { return false }
        let grams = Set((0...(words.count - length)).map { words[$0..<($0 + length)].joined(separator: " ") })
        return (0...(wanted.count - length)).contains { grams.contains(wanted[$0..<($0 + length)].joined(separator: " ")) }
    }
}
