import CryptoVault
@testable import PrivilegedSession
import Testing

/// Recall and precision of the whole leak guard on the labelled corpus (`LeakCorpus`), printed and
/// held to the issue's floors: recall at least 0.99 on planted identifiers and quotes, precision at
/// least 0.95, and at least 95% of clean notes (near misses only) without a single hit.
struct LeakGuardCorpusTests {
    struct Tally {
        var planted = 0
        var found = 0
    }

    @Test func recallAndPrecisionOnTheLabelledCorpus() throws {
        let corpus = LeakCorpus(seed: 0x5EA1_ED0C, documents: 250, identifierNotes: 500, quoteNotes: 400, cleanNotes: 500)
        var index = try FingerprintIndex(key: SecureBytes(copying: (0..<32).map { UInt8($0) }))
        for document in corpus.documents { try index.add(document) }
        let guardian = LeakGuard(fingerprints: index)

        var tallies: [LeakKind: Tally] = [:]
        var hits = 0, trueHits = 0, cleanNotes = 0, cleanNotesWithHits = 0
        var misses: [String] = [], falseHits: [String] = []
        for sample in corpus.samples {
            let found = guardian.scan(sample.bytes)
            for planted in sample.planted {
                let caught = found.contains { $0.kind == planted.kind && $0.range.lowerBound <= planted.range.lowerBound
                                                 && $0.range.upperBound >= planted.range.upperBound }
                tallies[planted.kind, default: Tally()].planted += 1
                if caught { tallies[planted.kind, default: Tally()].found += 1 } else { misses.append(excerpt(sample.bytes, planted.range, planted.kind)) }
            }
            for hit in found {
                hits += 1
                if sample.planted.contains(where: { $0.kind == hit.kind && $0.range.overlaps(hit.range) }) {
                    trueHits += 1
                } else {
                    falseHits.append(excerpt(sample.bytes, hit.range, hit.kind))
                }
            }
            if sample.isClean {
                cleanNotes += 1
                if !found.isEmpty { cleanNotesWithHits += 1 }
            }
        }

        let planted = tallies.values.reduce(0) { $0 + $1.planted }
        let caught = tallies.values.reduce(0) { $0 + $1.found }
        let recall = Double(caught) / Double(planted)
        let precision = Double(trueHits) / Double(hits)
        let cleanPass = 1 - Double(cleanNotesWithHits) / Double(cleanNotes)
        print("leak guard corpus: \(corpus.samples.count) notes, \(corpus.documents.count) fingerprinted documents (\(index.count) shingles)")
        for kind in LeakKind.allCases {
            let tally = tallies[kind, default: Tally()]
            print("  \(kind.rawValue.padding(toLength: 28, withPad: " ", startingAt: 0)) planted \(tally.planted)  found \(tally.found)")
        }
        print("  recall \(format(recall)) (\(caught)/\(planted))   precision \(format(precision)) (\(trueHits)/\(hits))   clean notes without a hit \(format(cleanPass)) (\(cleanNotes - cleanNotesWithHits)/\(cleanNotes))")
        for miss in misses.prefix(10) { print("  missed: \(miss)") }
        for falseHit in falseHits.prefix(10) { print("  false hit: \(falseHit)") }

        // The corpus must really hold every kind in numbers, or the ratios would say little.
        for kind in LeakKind.allCases {
            #expect(tallies[kind, default: Tally()].planted >= 100, "too few \(kind) planted")
        }
        #expect(cleanNotes == 500)
        #expect(recall >= 0.99)
        #expect(precision >= 0.95)
        #expect(cleanPass >= 0.95)
    }

    private func excerpt(_ bytes: [UInt8], _ range: Range<Int>, _ kind: LeakKind) -> String {
        let start = max(0, range.lowerBound - 20), end = min(bytes.count, range.upperBound + 10)
        return "\(kind.rawValue): …\(String(decoding: bytes[start..<end], as: UTF8.self).replacingOccurrencesOfNewlines)…"
    }

    private func format(_ value: Double) -> String {
        let scaled = Int((value * 10000).rounded())
        let fraction = String(scaled % 10000)
        return "\(scaled / 10000)." + String(repeating: "0", count: 4 - fraction.count) + fraction
    }
}

private extension String {
    var replacingOccurrencesOfNewlines: String {
        String(map { $0.isNewline ? "⏎" : $0 })
    }
}
