@testable import Assistant
import CryptoVault
import Foundation
import Registers
import Testing

/// The output contract: filler phrasings stripped (at least 200, counted and printed), text that
/// merely looks like filler kept, and echo detection measured on a labelled set (recall at least
/// 0.99 and false failures at most 1%, both printed).
@Suite struct OutputContractTests {
    static let body = "The gulls settled on the mast.\n\nBy dusk the harbour lamps were lit, one by one, along the quay."

    static let interjections = ["Sure!", "Sure.", "Certainly!", "Certainly.", "Of course!", "Absolutely!", "Okay.", "OK!", "Alright!",
                                "Great question!", "Happy to help!", "No problem!", "Gladly.", "Sure thing!", "Got it.", "Understood."]
    static let presenting = ["Here is the revised %@:", "Here's the revised %@:", "Here is a summary of the %@:", "Here is the updated %@.",
                             "I've revised the %@ as asked:", "I have tightened the %@:", "As requested, here is the shorter %@:",
                             "The following is the revised %@:", "Here's a polished version of the %@!", "Below is the edited %@:"]
    static let nouns = ["note", "paragraph", "scene", "memo"]
    static let bare = ["Here you go:", "Below is the continuation:", "Here it is:", "Here are the questions to check:"]
    static let closings = ["I hope this helps!", "Hope this helps.", "I hope that helps!", "Let me know if you'd like any changes.",
                           "Let me know if you want more detail.", "Feel free to ask for another version.", "Would you like me to shorten it further?",
                           "If you'd like, I can adjust the tone.", "Is there anything else you need?", "Happy writing!", "Good luck with the chapter!",
                           "Please let me know what you think.", "Don't hesitate to ask for more.", "I can also make it more formal.",
                           "Shall I continue?", "Enjoy!", "Best of luck!", "I'd be happy to revise it again."]

    static var openers: [String] {
        let presented = presenting.flatMap { template in nouns.map { template.replacingOccurrences(of: "%@", with: $0) } } + bare
        return interjections + presented + interjections.prefix(8).flatMap { word in presented.prefix(12).map { "\(word) \($0)" } }
    }

    static var closers: [String] { closings + interjections.prefix(4).flatMap { word in closings.prefix(6).map { "\(word) \($0)" } } }

    @Test func fillerPhrasingsAreStripped() {
        var stripped = 0
        var missed: [String] = []
        for opener in Self.openers {
            if FillerStripper.strip("\(opener)\n\n\(Self.body)") == Self.body { stripped += 1 } else { missed.append(opener) }
        }
        for closer in Self.closers {
            if FillerStripper.strip("\(Self.body)\n\n\(closer)") == Self.body { stripped += 1 } else { missed.append(closer) }
        }
        for (index, fence) in ["```", "```text", "```markdown", "```md"].enumerated() {
            let wrapped = "\(Self.openers[index * 7])\n\(fence)\n\(Self.body)\n```\n\(Self.closers[index * 5])"
            if FillerStripper.strip(wrapped) == Self.body { stripped += 1 } else { missed.append(wrapped) }
        }
        let total = Self.openers.count + Self.closers.count + 4
        print("Output contract: \(stripped) of \(total) filler phrasings stripped")
        #expect(missed.isEmpty, "not stripped: \(missed)")
        #expect(stripped >= 200)
    }

    @Test(arguments: [
        "Sure enough, the boats came in before the storm.",
        "Here is where the river bends, and the town begins.",
        "Of course he lied; everyone on the quay did.",
        "This is the harbour at dawn.",
        "Let me be clear about the lease: it ends in May.",
        "Okay was the only word she had left.",
    ])
    func textThatLooksLikeFillerIsKept(opening: String) {
        let text = "\(opening)\n\nThe rest of the scene follows."
        #expect(FillerStripper.strip(text) == text)
    }

    @Test(arguments: ["Good luck was all she had left.", "Enjoy the quiet while it lasts, said the harbourmaster.",
                      "If you want the truth, ask the ferryman.", "Anything else would have been a lie."])
    func closingLinesThatAreTheStoryAreKept(closing: String) {
        let text = "The lamps were lit.\n\n\(closing)"
        #expect(FillerStripper.strip(text) == text)
    }

    @Test func codeFencesAroundCodeAreKept() {
        let code = "```python\nprint('hi')\n```"
        #expect(FillerStripper.strip(code) == code)
    }

    // MARK: Echo detection

    static let documents = [
        "The ferry left at six, as it always did, with the mail sacks stacked by the rail and the captain counting heads twice.",
        "Mrs Alvarez reported three nights of poor sleep after the change of medication and asked whether the dose could move to the morning.",
        "The tenant withheld the March rent, citing the broken boiler, and the landlord served notice eleven days later without an inspection.",
        "Council minutes show the contract was awarded before the tender closed, a fact the deputy mayor declined to discuss on the record.",
        "Our retention rose to eighty-one percent after onboarding moved from email to the in-app checklist, with the largest gain in week two.",
        "To rotate the key, stop the service, run the rotate command with the new key file, and start the service again before the lease expires.",
        "She found the letter in the lining of the coat, folded into eighths, the ink gone brown, addressed to a street that no longer existed.",
        "INT. LIGHTHOUSE - NIGHT. The keeper climbs the stairs with a lamp; below, the sea throws itself against the rocks without rest.",
        "The study followed two hundred patients for a year and found no difference in readmission between the two discharge protocols.",
        "Launch the spring campaign with the harbour photographs, keep the copy under forty words, and lead with the free delivery offer.",
        "The witness said the van was blue, then green, then could not say, and counsel for the defence asked that the answer be struck.",
        "Rain came in sideways off the estuary, and the market traders packed up early, leaving the square to the pigeons and the bins.",
    ]
    static let unrelated = [
        "At noon the bell rang twice and nobody came, so the baker ate the bread himself and watched the road.",
        "Three questions remain: who signed the order, when the money moved, and why the audit skipped that quarter.",
        "The plan is simple: fewer meetings, shorter documents, and a weekly demo that anyone in the company can attend.",
        "Check the dates against the ledger, confirm the second signature, and ask the clerk for the original filing.",
        "He walked home the long way, past the shuttered cinema, counting the windows that still had lights on.",
        "Sources that would support this include the council's own tender register, contemporaneous emails, and the auditor's report.",
    ]

    struct Case { let answer: String; let instructions: [String]; let document: String; let revising: Bool; let echo: Bool }

    static func labelledSet() -> [Case] {
        var cases: [Case] = []
        for (registerIndex, register) in Register.allCases.enumerated() {
            for (laneIndex, lane) in Lane.known.enumerated() {
                let system = HouseStyle.systemPrompt(lane.task, register: register)
                let document = documents[(registerIndex + laneIndex) % documents.count]
                let instruction = "Make it shorter and keep the names."
                let revising = lane == .coauthorRevise
                let other = documents[(registerIndex + laneIndex + 5) % documents.count]
                let fresh = unrelated[(registerIndex * 5 + laneIndex) % unrelated.count]
                let quote = document.split(separator: " ").prefix(6).joined(separator: " ")
                // Echoes: the prompt back, whole or most of it, with or without a few words around it.
                cases.append(Case(answer: system, instructions: [system, instruction], document: document, revising: revising, echo: true))
                cases.append(Case(answer: "Okay. " + system + " Done.", instructions: [system, instruction], document: document, revising: revising, echo: true))
                cases.append(Case(answer: HouseStyle.preamble(for: register), instructions: [system], document: document, revising: revising, echo: true))
                cases.append(Case(answer: String(system.prefix(system.count * 3 / 4)), instructions: [system], document: document, revising: revising, echo: true))
                cases.append(Case(answer: "Instruction: \(instruction)\n\n\(system)", instructions: [system, instruction], document: document, revising: revising, echo: true))
                if revising {
                    cases.append(Case(answer: document, instructions: [system, instruction], document: document, revising: true, echo: true))
                    // Real revisions: a sentence changed, or the text tightened, are not echoes.
                    cases.append(Case(answer: document.replacingOccurrences(of: ",", with: ";") + " " + fresh, instructions: [system], document: document, revising: true, echo: false))
                    cases.append(Case(answer: String(document.dropLast()) + ", and nothing more was said.", instructions: [system], document: document, revising: true, echo: false))
                    cases.append(Case(answer: other, instructions: [system], document: document, revising: true, echo: false))
                } else {
                    cases.append(Case(answer: document, instructions: [system], document: document, revising: false, echo: true))
                    cases.append(Case(answer: document + " The end.", instructions: [system], document: document, revising: false, echo: true))
                    // Genuine answers: new text, a summary that quotes a phrase, a continuation.
                    cases.append(Case(answer: fresh, instructions: [system, instruction], document: document, revising: false, echo: false))
                    cases.append(Case(answer: "In short: \"\(quote)\", and then \(fresh.lowercased())", instructions: [system], document: document, revising: false, echo: false))
                    cases.append(Case(answer: other + " " + fresh, instructions: [system], document: document, revising: false, echo: false))
                    cases.append(Case(answer: fresh + " Keep every fact as it is.", instructions: [system], document: document, revising: false, echo: false))
                }
            }
        }
        return cases
    }

    @Test func echoDetectionRecallAndFalseFailuresOnTheLabelledSet() {
        let cases = Self.labelledSet()
        let detector = EchoDetector()
        var caught = 0, echoes = 0, falseFailures = 0, originals = 0
        for item in cases {
            let failed = detector.judge(item.answer, instructions: item.instructions, document: item.document, revising: item.revising).failed
            if item.echo { echoes += 1; if failed { caught += 1 } } else { originals += 1; if failed { falseFailures += 1 } }
        }
        let recall = Double(caught) / Double(echoes), falseRate = Double(falseFailures) / Double(originals)
        print("Echo detection: recall \(caught)/\(echoes) = \(recall), false failures \(falseFailures)/\(originals) = \(falseRate) "
              + "(4-grams; instructions ≥ \(EchoDetector.instructionThreshold), document ≥ \(EchoDetector.documentThreshold))")
        #expect(echoes + originals >= 300)
        #expect(recall >= 0.99)
        #expect(falseRate <= 0.01)
    }

    @Test func aFailedContractCarriesNoText() {
        let system = HouseStyle.systemPrompt(Lane.coauthorDraft.task, register: .legal)
        let result = OutputContract.check("Sure! " + system, instructions: [system], document: "The lease ends in May.", revising: false)
        #expect(result == .failed(.echoesInstructions))
        #expect(result.text == nil)
        #expect(OutputContract.check("I hope this helps!", instructions: [system], document: "x", revising: false) == .failed(.empty))
    }

    @Test func preambleUsesTheRegistersWords() {
        let legal = HouseStyle.systemPrompt(Lane.coauthorRevise.task, register: .legal)
        #expect(!legal.contains("scene"))
        #expect(!legal.contains("{"))
        #expect(HouseStyle.systemPrompt(Lane.coauthorRevise.task, register: .fiction).contains("scene"))
    }
}
