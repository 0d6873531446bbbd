import CryptoVault
import Registers
import Writing

/// The writing model's errors in the project's words. The store names the model's concepts
/// (project, document, folder); where vaultctl knows the project, and so its register, it says
/// them as the register does ("a section cannot move under itself" to a lawyer, "no note or folder"
/// to a clinician), as every other label it prints does.
enum WritingVocabulary {
    /// The model's words an error may hold, and the concept each names.
    private static let words: [String: (key: TermKey, plural: Bool)] = [
        "project": (.project, false), "projects": (.project, true), "document": (.scene, false), "documents": (.scene, true),
        "folder": (.chapter, false), "folders": (.chapter, true),
    ]

    /// The refusals about the binder, whose messages are the model's words and nothing else (others,
    /// a branch's conflict or a version not found, name their own things and keep their words).
    private static let binderCodes: Set<WritingErrorCode> = [.moveIntoItself, .wrongNodeKind, .nodeNotFound, .folderNotEmpty]

    /// `error` with its message in `register`'s words, when it is one of the binder's refusals.
    static func relabel(_ error: WritingError, _ register: Register) -> WritingError {
        binderCodes.contains(error.code) ? WritingError(error.code, say(error.message, register)) : error
    }

    /// `text` with each of the model's words said in `register`'s, outside quotes (a quoted name or
    /// title is the writer's own and is left alone), and an "a" before a vowel made "an".
    static func say(_ text: String, _ register: Register) -> String {
        text.split(separator: "'", omittingEmptySubsequences: false).enumerated().map { index, part in
            index % 2 == 1 ? String(part) : sayWords(String(part), register)
        }.joined(separator: "'")
    }

    private static func sayWords(_ text: String, _ register: Register) -> String {
        var out: [String] = []
        for token in text.split(separator: " ", omittingEmptySubsequences: false).map(String.init) {
            let word = token.prefix { $0.isLetter }
            guard let (key, plural) = words[String(word)] else { out.append(token); continue }
            let said = WritingContext.term(key, register, plural: plural) + token.dropFirst(word.count)
            if let article = out.last, article == "a" || article == "an" {
                out[out.count - 1] = said.first.map { "aeiou".contains($0) } == true ? "an" : "a"
            }
            out.append(said)
        }
        return out.joined(separator: " ")
    }
}
