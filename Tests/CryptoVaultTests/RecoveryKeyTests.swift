import Foundation
import Testing
import TestSupport
@testable import CryptoVault

private let alphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ")

private func parseFailure(_ text: String) -> CryptoVaultError? {
    do { _ = try RecoveryKey(parsing: text) } catch let error as CryptoVaultError { return error } catch {}
    return nil
}

/// Fixed keys with their display form, computed independently (Python: hashlib + Crockford base32), so
/// a key printed today still parses after any refactoring.
struct RecoveryKeyVector: Sendable, CustomTestStringConvertible {
    let key: [UInt8]
    let display: String
    var testDescription: String { display }

    static let all = [
        RecoveryKeyVector(key: Array(0..<20), display: "000G40-R40M30-E20918-5GR38E-1W8124-GK3AMK"),
        RecoveryKeyVector(key: [UInt8](repeating: 0, count: 10) + [0x08, 0x42, 0x10, 0x84, 0x21, 0x08, 0x42, 0x10, 0x84, 0x21],
                          display: "000000-000000-000011-111111-111111-11QE1K"),
        RecoveryKeyVector(key: [UInt8](repeating: 0xff, count: 20), display: "ZZZZZZ-ZZZZZZ-ZZZZZZ-ZZZZZZ-ZZZZZZ-ZZ1BKA"),
    ]
}

@Suite struct RecoveryKeyTests {
    @Test(arguments: RecoveryKeyVector.all)
    func knownKeysDisplayAndParse(_ vector: RecoveryKeyVector) throws {
        let key = try RecoveryKey(keyMaterial: SecureBytes(copying: vector.key))
        #expect(key.displayString == vector.display)
        #expect(try RecoveryKey(parsing: vector.display).keyMaterial.exposedCopy() == vector.key)
    }

    /// Key files are read into locked memory and parsed from bytes: the same grammar must hold there.
    @Test(arguments: RecoveryKeyVector.all)
    func bytesParseLikeText(_ vector: RecoveryKeyVector) throws {
        for typed in [vector.display, vector.display.lowercased() + "\n", vector.display.replacingOccurrences(of: "-", with: " ") + "\r\n"] {
            let key = try RecoveryKey(parsing: try SecureBytes(copying: Array(typed.utf8)))
            #expect(key.keyMaterial.exposedCopy() == vector.key)
        }
        var mistyped = Array(vector.display.utf8)
        mistyped[0] = mistyped[0] == UInt8(ascii: "Z") ? UInt8(ascii: "Y") : UInt8(ascii: "Z")
        #expect(throws: CryptoVaultError(.invalidRecoveryKey, "")) { try RecoveryKey(parsing: try SecureBytes(copying: mistyped)) }
        let nonASCII = Array("É".utf8) + Array(vector.display.utf8.dropFirst())
        do {
            _ = try RecoveryKey(parsing: try SecureBytes(copying: nonASCII))
            Issue.record("a non-ASCII byte was accepted")
        } catch let error as CryptoVaultError {
            #expect(error.code == .invalidRecoveryKey && error.message.contains("byte 0xc3 at position 1"))
        }
    }

    @Test func generatedKeysRoundTrip() throws {
        for _ in 0..<50 {
            let key = try RecoveryKey.generate()
            #expect(key.keyMaterial.count == 20)
            let text = key.displayString
            let groups = text.split(separator: "-", omittingEmptySubsequences: false)
            #expect(groups.count == 6 && groups.allSatisfy { $0.count == 6 && $0.allSatisfy(alphabet.contains) })
            #expect(try RecoveryKey(parsing: text).keyMaterial == key.keyMaterial)
        }
    }

    @Test func generatedKeysDiffer() throws {
        #expect(try RecoveryKey.generate().keyMaterial != RecoveryKey.generate().keyMaterial)
    }

    // MARK: Forgiving where it is safe

    @Test(arguments: RecoveryKeyVector.all)
    func lenientSpellingsParseToTheSameKey(_ vector: RecoveryKeyVector) throws {
        let plain = vector.display.replacingOccurrences(of: "-", with: "")
        let spellings = [
            vector.display.lowercased(),
            plain,
            vector.display.replacingOccurrences(of: "-", with: " "),
            " " + vector.display + " ",
            vector.display + "\n",
            vector.display + "\r\n",
            vector.display.replacingOccurrences(of: "1", with: "I"),
            vector.display.replacingOccurrences(of: "1", with: "l"),
            vector.display.replacingOccurrences(of: "1", with: "L"),
            vector.display.replacingOccurrences(of: "0", with: "O"),
            vector.display.replacingOccurrences(of: "0", with: "o"),
        ]
        for spelling in spellings {
            #expect(try RecoveryKey(parsing: spelling).keyMaterial.exposedCopy() == vector.key, "\(spelling)")
        }
    }

    @Test func aliasesAreExercisedByTheVectors() {
        #expect(RecoveryKeyVector.all[1].display.contains("1") && RecoveryKeyVector.all[1].display.contains("0"))
    }

    // MARK: Typing mistakes

    /// Replacing any one symbol by any other symbol (or alias of another value) fails the checksum.
    @Test(arguments: RecoveryKeyVector.all)
    func everySingleSubstitutionIsCaught(_ vector: RecoveryKeyVector) throws {
        let text = Array(vector.display)
        for position in text.indices where text[position] != "-" {
            for replacement in alphabet + ["I", "L", "O", "i", "l", "o"] {
                guard value(of: replacement) != value(of: text[position]) else { continue }
                var typed = text
                typed[position] = replacement
                let error = parseFailure(String(typed))
                #expect(error?.code == .invalidRecoveryKey, "\(replacement) at \(position + 1)")
                #expect(error?.message == "checksum does not match: a character is mistyped")
            }
        }
    }

    @Test(arguments: RecoveryKeyVector.all)
    func everyAdjacentTranspositionIsCaught(_ vector: RecoveryKeyVector) throws {
        let symbols = Array(vector.display.replacingOccurrences(of: "-", with: ""))
        for position in 0..<(symbols.count - 1) where symbols[position] != symbols[position + 1] {
            var typed = symbols
            typed.swapAt(position, position + 1)
            let error = parseFailure(String(typed))
            #expect(error?.code == .invalidRecoveryKey, "swap at \(position + 1)")
            #expect(error?.message == "checksum does not match: a character is mistyped")
        }
    }

    @Test(arguments: [
        ("U", "'U'"), ("u", "'u'"), ("*", "'*'"), ("_", "'_'"), (".", "'.'"), ("\t", "U+9"), ("Ũ", "U+168"),
    ] as [(Character, String)])
    func foreignCharactersAreNamedByPositionWithoutEchoingTheKey(_ character: Character, shown: String) throws {
        let display = RecoveryKeyVector.all[0].display
        for position in [0, 6, 20, 40] {  // 0-based, in the typed text; 6 is a dash
            var typed = Array(display)
            typed[position] = character
            let error = try #require(parseFailure(String(typed)))
            #expect(error.code == .invalidRecoveryKey)
            #expect(error.message == "unexpected character \(shown) at position \(position + 1)")
            #expect(!error.message.contains("000G40") && !error.message.contains("GK3AMK"))
        }
    }

    @Test(arguments: [
        ("000G40-R40M30-E20918-5GR38E-1W8124-GK3AM", 35),
        ("000G40-R40M30-E20918-5GR38E-1W8124-GK3AMKK", 37),
        ("000G40-R40M30-E20918-5GR38E-1W8124", 30),
        ("", 0),
        ("------", 0),
        ("000G40-R40M30-E20918-5GR38E-1W8124-GK3AMK-000G40-R40M30-E20918-5GR38E-1W8124-GK3AMK", 72),
    ])
    func wrongLengthsAreRefusedWithTheCount(_ text: String, count: Int) throws {
        let error = try #require(parseFailure(text))
        #expect(error.code == .invalidRecoveryKey)
        #expect(error.message == "a recovery key has 36 characters, got \(count)")
    }

    @Test func onlyOneTrailingNewlineIsIgnored() throws {
        let error = try #require(parseFailure(RecoveryKeyVector.all[0].display + "\n\n"))
        #expect(error.message == "unexpected character U+A at position 42")
        #expect(parseFailure("\n" + RecoveryKeyVector.all[0].display)?.message == "unexpected character U+A at position 1")
    }

    @Test func keyMaterialMustBeTwentyBytes() throws {
        let error = try #require(throws: CryptoVaultError.self) {
            try RecoveryKey(keyMaterial: SecureBytes(count: 16))
        }
        #expect(error.code == .invalidRecoveryKey)
    }

    private func value(of character: Character) -> Int? {
        switch character.uppercased() {
        case "I", "L": return 1
        case "O": return 0
        default: return alphabet.firstIndex(of: Character(character.uppercased()))
        }
    }
}
