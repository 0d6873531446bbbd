import CryptoVault
import Registers
import Writing

/// The writing model's messages in the project's words. The store names the model's concepts
/// (project, document, folder, branch, proposal); where vaultctl knows the project, and so its
/// register, it says them as the register does ("a section cannot move under itself" to a lawyer,
/// "no note or folder" and "the suggested change" to a clinician), as every other label it prints does.
enum WritingVocabulary {
    /// The model's words a message may hold, and the concept each names. The fiction words are here
    /// too (the model's records are named after them), so none reaches a register that renames it.
    private static let words: [String: (key: TermKey, plural: Bool)] = [
        "project": (.project, false), "projects": (.project, true),
        "document": (.scene, false), "documents": (.scene, true), "scene": (.scene, false), "scenes": (.scene, true),
        "folder": (.chapter, false), "folders": (.chapter, true), "chapter": (.chapter, false), "chapters": (.chapter, true),
        "branch": (.branch, false), "branches": (.branch, true), "proposal": (.branch, false), "proposals": (.branch, true),
    ]

    /// A refusal of the store about a project of `register`: the dispatcher says its message and its
    /// hint in the register's words (`say`), and gives the exit code of `error`'s code. Thrown by
    /// `WritingContext.store(for:)` for every WritingError, so no refusal reaches a person in the
    /// model's words once the project is known.
    struct Refusal: Error {
        let error: WritingError
        let register: Register

        var code: WritingErrorCode { error.code }
        var message: String { say(error.message, register) }
        var hint: String? { ExitCode.hint(for: error).map { say($0, register) } }
    }

    /// `text` with each of the model's words said in `register`'s, outside quotes (a quoted name or
    /// title is the writer's own, a quoted command is a command's name, and both are left alone),
    /// and an "a" before a vowel made "an". An apostrophe inside a word ("project's") is not a quote.
    static func say(_ text: String, _ register: Register) -> String {
        var out = ""
        var plain = ""
        var quoted = false
        let characters = Array(text)
        for (index, character) in characters.enumerated() {
            guard character == "'" else {
                if quoted { out.append(character) } else { plain.append(character) }
                continue
            }
            let before = index > 0 ? characters[index - 1] : nil, after = index + 1 < characters.count ? characters[index + 1] : nil
            if !quoted, before.map(isWordCharacter) != true {
                out += sayWords(plain, register) + "'"
                plain = ""
                quoted = true
            } else if quoted, after.map(isWordCharacter) != true {
                out.append("'")
                quoted = false
            } else if quoted {
                out.append(character)
            } else {
                plain.append(character)
            }
        }
        return out + sayWords(plain, register)
    }

    private static func isWordCharacter(_ character: Character) -> Bool { character.isLetter || character.isNumber }

    /// The plain (unquoted) prose of a message in the register's words; a word starting a sentence
    /// keeps its capital ("Branch 2" to a lawyer is "Redline 2").
    private static func sayWords(_ text: String, _ register: Register) -> String {
        var out = ""
        var word = ""
        func flush() {
            defer { word = "" }
            guard let (key, plural) = words[word.lowercased()] else { out += word; return }
            var said = WritingContext.term(key, register, plural: plural)
            if word.first?.isUppercase == true { said = said.prefix(1).uppercased() + said.dropFirst() }
            fixArticle(before: said, in: &out)
            out += said
        }
        for character in text {
            if character.isLetter { word.append(character); continue }
            flush()
            out.append(character)
        }
        flush()
        return out
    }

    /// "a"/"an" just before a replaced word agrees with the word that replaced it ("an issue", "a redline").
    private static func fixArticle(before said: String, in out: inout String) {
        for article in ["a ", "an ", "A ", "An "] where out.hasSuffix(article) {
            let start = out.index(out.endIndex, offsetBy: -article.count)
            guard start == out.startIndex || !isWordCharacter(out[out.index(before: start)]) else { return }
            let vowel = said.first.map { "aeiouAEIOU".contains($0) } == true
            let capital = article.first == "A"
            out.replaceSubrange(start..., with: (capital ? (vowel ? "An" : "A") : (vowel ? "an" : "a")) + " ")
            return
        }
    }
}
