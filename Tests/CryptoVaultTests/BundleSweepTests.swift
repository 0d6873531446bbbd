@testable import CryptoVault
import Foundation
import Testing
import TestSupport

/// Every one-bit flip and every truncation of a small three-chunk bundle, each opened the way
/// `vaultctl open BUNDLE -o OUT` does: decrypt into an AtomicOutputFile, commit on success, abandon
/// on failure. Each variant must be refused for the reason its position predicts, release no
/// plaintext, and leave nothing (neither OUT nor a temporary file) in the output folder.
@Suite("EncryptedBundle: every flipped bit and every truncation is refused, and no file is left")
struct BundleSweepTests {
    /// A bundle whose header states its length (sealed to a file), and one sealed from a stream to a
    /// stream, whose header says "unknown" and whose end only the final chunk's flag marks.
    enum Kind: String, CaseIterable, CustomTestStringConvertible {
        case knownLength, streamed
        var testDescription: String { rawValue }
    }

    static let plaintext = BundleFixture.pattern(3000)
    static let sealedChunk = 1024 + StreamCipher.tagSize

    /// Flips are swept on the bundle with a stated length; the streamed one differs only in its
    /// plaintext length field (all ones, so any flip puts it out of range) and in where it ends,
    /// which the truncation sweep covers.
    @Test("flipping any one bit of the header or of any chunk is refused for the right reason")
    func everyBitFlip() throws {
        let sweep = try Sweep(.knownLength)
        var failures: [String] = []
        for index in sweep.original.indices {
            var variant = sweep.original
            let mask = UInt8(1) << UInt8(index % 8)
            variant[index] ^= mask
            let expected = sweep.expectedFlipRefusal(at: index, mask: mask)
            if let failure = try sweep.check(variant, expected: expected) { failures.append("flip of byte \(index) (mask \(mask)): \(failure)") }
        }
        #expect(failures.isEmpty, "\(failures.count) of \(sweep.original.count) flips misbehaved:\n\(failures.prefix(25).joined(separator: "\n"))")
    }

    @Test("every truncation, from 0 bytes to one byte short, is refused for the right reason", arguments: Kind.allCases)
    func everyTruncation(_ kind: Kind) throws {
        let sweep = try Sweep(kind)
        var failures: [String] = []
        for length in 0..<sweep.original.count {
            let expected = sweep.expectedTruncationRefusal(length: length)
            if let failure = try sweep.check(Array(sweep.original[0..<length]), expected: expected) {
                failures.append("truncation to \(length) bytes: \(failure)")
            }
        }
        #expect(failures.isEmpty, "\(failures.count) of \(sweep.original.count) truncations misbehaved:\n\(failures.prefix(25).joined(separator: "\n"))")
    }
}

/// One sweep: the vault (unlocked once), the intact bundle, and the folder that must stay empty.
private final class Sweep {
    struct Refusal: CustomStringConvertible {
        let code: CryptoVaultErrorCode
        let says: String
        var description: String { "\(code.rawValue) saying '\(says)'" }
    }

    let fixture: BundleFixture
    let kind: BundleSweepTests.Kind
    let original: [UInt8]
    let headerSize: Int
    let variantPath: String
    let outputFolder: String
    var outputPath: String { outputFolder + "/plain.txt" }

    init(_ kind: BundleSweepTests.Kind) throws {
        fixture = try BundleFixture()
        self.kind = kind
        switch kind {
        case .knownLength:
            original = try fixture.bytes(try fixture.seal(BundleSweepTests.plaintext))
        case .streamed:
            let input = try Pipe.feeding(BundleSweepTests.plaintext)
            let output = Pipe.draining()
            try EncryptedBundle.seal(from: input.reader, to: output.writer, compartment: fixture.compartment, vault: fixture.unlocked,
                                     metadata: BundleMetadata(name: "bundle.txt", contentType: "text/plain", modificationTime: 1_700_000_000),
                                     options: .init(chunkSize: 1024, threads: 2))
            original = output.finish()
        }
        let header = try BundleHeader(parsing: original)
        headerSize = header.size
        #expect(header.hasKnownLength == (kind == .knownLength))
        #expect(original.count == headerSize + 3000 + 3 * StreamCipher.tagSize, "three chunks: 1024 + 1024 + 952 bytes")
        variantPath = fixture.path("variant.vbundle")
        outputFolder = fixture.path("out")
        try FileManager.default.createDirectory(atPath: outputFolder, withIntermediateDirectories: true)
        // The sweep means nothing unless the intact bundle goes through the same path and arrives.
        #expect(try check(original, expected: nil) == nil)
        #expect(try fixture.bytes(outputPath) == BundleSweepTests.plaintext)
        try FileManager.default.removeItem(atPath: outputPath)
    }

    /// Opens `variant` as the CLI does and returns what went wrong, or nil if it behaved: refused
    /// with `expected` (or opened, when `expected` is nil), no plaintext released on refusal, and
    /// nothing left in the output folder.
    func check(_ variant: [UInt8], expected: Refusal?) throws -> String? {
        try fixture.write(variant, to: variantPath)
        var released = 0
        var thrown: Error?
        do {
            try openLikeTheCLI { released += $0 }
        } catch {
            thrown = error
        }
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: outputFolder)
        guard let expected else {
            if let thrown { return "the intact bundle was refused: \(thrown)" }
            return leftovers == ["plain.txt"] ? nil : "after opening, the output folder holds \(leftovers)"
        }
        guard let thrown else { return "opened (\(released) bytes); expected \(expected)" }
        guard let error = thrown as? CryptoVaultError else { return "refused with a non-vault error \(thrown); expected \(expected)" }
        var problems: [String] = []
        if error.code != expected.code || !error.message.contains(expected.says) {
            problems.append("refused as \(error.code.rawValue) '\(error.message)'; expected \(expected)")
        }
        if released > 0 { problems.append("\(released) plaintext bytes were released before the refusal") }
        if !leftovers.isEmpty { problems.append("left behind in the output folder: \(leftovers)") }
        return problems.isEmpty ? nil : problems.joined(separator: "; ")
    }

    /// `vaultctl open -o`: the output file exists (as a temporary file) throughout, so every failure
    /// path, header or chunk, must abandon it.
    private func openLikeTheCLI(released: (Int) -> Void) throws {
        let output = try AtomicOutputFile(path: outputPath, replacing: false)
        do {
            let opened = try EncryptedBundle.open(try FileDescriptor.openForReading(variantPath), vault: fixture.unlocked)
            try opened.decrypt(threads: 2) { plaintext in
                released(plaintext.count)
                try output.descriptor.write(plaintext)
            }
            try output.commit()
        } catch {
            output.abandon()
            throw error
        }
    }

    // MARK: What each variant must be refused for

    /// The header fields, in order (SECURITY.md §5), as byte ranges of the file.
    private var metadataLength: Int { headerSize - BundleHeader.fixedSize }
    private var fields: [(name: String, range: Range<Int>)] {
        let widths = [("magic", 8), ("version", 2), ("header length", 2), ("vault id", 16), ("compartment id", 16),
                      ("key version", 4), ("bundle id", 16), ("chunk size", 4), ("plaintext length", 8), ("wrap nonce", 24),
                      ("wrapped key", 48), ("metadata length", 2), ("sealed metadata", metadataLength),
                      ("key commitment", 32), ("header MAC", 32)]
        var start = 0
        return widths.map { name, width in
            defer { start += width }
            return (name, start..<(start + width))
        }
    }

    /// The field `index` lies in, read as a big-endian integer after xoring `mask` into that byte.
    private func flippedValue(of range: Range<Int>, index: Int, mask: UInt8) -> UInt64 {
        range.reduce(0) { value, position in value << 8 | UInt64(original[position] ^ (position == index ? mask : 0)) }
    }

    func expectedFlipRefusal(at index: Int, mask: UInt8) -> Sweep.Refusal {
        guard index < headerSize else {
            let chunk = (index - headerSize) / BundleSweepTests.sealedChunk
            return Refusal(code: .corruptBundle, says: "chunk \(chunk) fails authentication")
        }
        let (name, range) = fields.first { $0.range.contains(index) }!
        let value = flippedValue(of: range, index: index, mask: mask)
        let macFailure = Refusal(code: .corruptBundle, says: "header: authentication failed")
        switch name {
        case "magic": return Refusal(code: .corruptBundle, says: "header: this is not a vault bundle (bad magic)")
        case "version": return Refusal(code: .corruptBundle, says: "header: format version \(value) is not supported")
        case "header length": return Refusal(code: .corruptBundle, says: "header: the header length field is inconsistent")
        case "vault id": return Refusal(code: .foreignBundle, says: "header: this bundle belongs to another vault")
        case "compartment id": return Refusal(code: .foreignBundle, says: "header: its compartment does not exist in this vault")
        case "key version":
            return value == 0 ? Refusal(code: .corruptBundle, says: "header: key version 0 does not exist")
                : Refusal(code: .foreignBundle, says: "header: key version \(value) of 'files' is retired or unknown")
        case "bundle id", "wrap nonce", "wrapped key":
            return Refusal(code: .corruptBundle, says: "header: the wrapped data key fails authentication")
        case "chunk size":
            let allowed = BundleHeader.chunkSizes.contains(Int(value)) && value & (value - 1) == 0
            return allowed ? macFailure : Refusal(code: .corruptBundle, says: "header: chunk size \(value) is not a power of two")
        case "plaintext length":
            let allowed = value <= BundleHeader.maximumPlaintextLength || value == BundleHeader.unknownLength
            return allowed ? macFailure : Refusal(code: .corruptBundle, says: "header: plaintext length \(value) is out of range")
        case "metadata length":
            let allowed = (StreamCipher.tagSize...(BundleMetadata.maximumEncodedSize + StreamCipher.tagSize)).contains(Int(value))
            return allowed ? Refusal(code: .corruptBundle, says: "header: the header length field is inconsistent")
                : Refusal(code: .corruptBundle, says: "header: the sealed metadata length \(value) is out of range")
        case "key commitment": return Refusal(code: .corruptBundle, says: "header: the key commitment does not match")
        default: return macFailure  // sealed metadata and the MAC itself: the MAC is checked before the metadata is opened
        }
    }

    func expectedTruncationRefusal(length: Int) -> Sweep.Refusal {
        guard length >= headerSize else { return Refusal(code: .truncatedBundle, says: "header: the bundle ends inside its header") }
        let payload = length - headerSize
        switch kind {
        case .knownLength:
            // The header states the length, so the file size alone says where it was cut.
            return Refusal(code: .truncatedBundle, says: "its header says \(original.count); it ends in chunk \(payload / BundleSweepTests.sealedChunk)")
        case .streamed:
            // Only the file size says where the payload ends: the chunk it ends in is taken for the
            // final one, and its last flag (or its length) exposes the cut.
            guard payload >= StreamCipher.tagSize else { return Refusal(code: .truncatedBundle, says: "truncated: the bundle has no final chunk") }
            let count = (payload + BundleSweepTests.sealedChunk - 1) / BundleSweepTests.sealedChunk
            let last = payload - (count - 1) * BundleSweepTests.sealedChunk
            if count > 1 && last <= StreamCipher.tagSize {
                return Refusal(code: .truncatedBundle, says: "truncated: the bundle ends inside chunk \(count - 1)")
            }
            return Refusal(code: .corruptBundle, says: "chunk \(count - 1) fails authentication")
        }
    }
}
