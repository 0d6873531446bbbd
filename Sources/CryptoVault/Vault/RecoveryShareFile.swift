internal import CSodium

/// One recovery share as a small text file, handed to one person.
///
///     vaultctl recovery share v1
///     vault: <32 lowercase hex: vault id>
///     keyslot: <32 lowercase hex: the recovery-shares keyslot uuid>
///     threshold: <k>
///     share: <x> of <n>
///     value: <64 lowercase hex: the share's 32 bytes>
///     check: <16 lowercase hex: first 8 bytes of SHA-256 of every byte above, newlines included>
///
/// Each line ends with a single LF; nothing may follow the last one. The parser is strict (exact
/// line count and order, canonical decimal, lowercase hex) and bounded (at most `maximumSize` bytes).
/// The check catches a damaged or hand-edited file before it is combined with others.
public struct RecoveryShareFile: Sendable {
    public static let maximumSize = 512
    static let magic = "vaultctl recovery share v1"

    public let vaultID: VaultID
    public let keyslotUUID: KeyslotID
    public let threshold: Int
    public let shareCount: Int
    public let share: SecretShare

    public init(vaultID: VaultID, keyslotUUID: KeyslotID, threshold: Int, shareCount: Int, share: SecretShare) {
        self.vaultID = vaultID
        self.keyslotUUID = keyslotUUID
        self.threshold = threshold
        self.shareCount = shareCount
        self.share = share
    }

    /// A suggested file name, such as `share-2-of-5.txt`.
    public var fileName: String { "share-\(share.index)-of-\(shareCount).txt" }

    // MARK: Serialising

    /// The file's bytes, in wiped memory (they contain the share).
    public func serialized() throws -> SecureBytes {
        let head = Array("""
            \(Self.magic)
            vault: \(vaultID.hex)
            keyslot: \(keyslotUUID.hex)
            threshold: \(threshold)
            share: \(share.index) of \(shareCount)
            value: 
            """.utf8)
        let valueHex = try SecretHex.encode(share.value)
        let body = try SecureBytes(copying: head).appending(valueHex).appending(SecureBytes(copying: [0x0a]))
        let check = ByteEncoding.hex(Self.checksum(body))
        return try body.appending(SecureBytes(copying: Array("check: \(check)\n".utf8)))
    }

    static func checksum(_ bytes: SecureBytes) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 32)
        bytes.withUnsafeBytes { source in
            _ = crypto_hash_sha256(&digest, source.bindMemory(to: UInt8.self).baseAddress, UInt64(source.count))
        }
        return Array(digest.prefix(8))
    }

    // MARK: Parsing

    public init(parsing file: SecureBytes) throws {
        guard file.count <= Self.maximumSize else { throw Self.invalid("the file is larger than a share file can be") }
        let lines = try Self.splitLines(file)
        guard lines.count == 7 else { throw Self.invalid("a share file has 7 lines, this one has \(lines.count)") }
        guard try Self.publicLine(file, lines[0]) == Self.magic else { throw Self.invalid("it does not start with '\(Self.magic)'") }
        vaultID = try VaultID(bytes: try Self.hexField(file, lines[1], name: "vault", count: VaultID.size))
        keyslotUUID = try KeyslotID(bytes: try Self.hexField(file, lines[2], name: "keyslot", count: KeyslotID.size))
        threshold = try Self.decimal(try Self.field(file, lines[3], name: "threshold"), name: "threshold")
        let (index, count) = try Self.indexField(try Self.field(file, lines[4], name: "share"))
        shareCount = count
        let value = try Self.secretValue(file, lines[5])
        try Self.verifyChecksum(file, lines: lines)
        guard threshold >= 2, threshold <= shareCount, shareCount <= 255, index >= 1, index <= shareCount else {
            throw Self.invalid("share \(index) of \(shareCount) with threshold \(threshold) is not a possible share")
        }
        share = SecretShare(index: UInt8(index), value: value)
    }

    private static func invalid(_ reason: String) -> CryptoVaultError {
        CryptoVaultError(.invalidShare, "not a valid recovery share: \(reason)")
    }

    /// Byte ranges of each line, without its LF. The file must end with LF.
    private static func splitLines(_ file: SecureBytes) throws -> [Range<Int>] {
        try file.withUnsafeBytes { bytes in
            guard bytes.last == 0x0a else { throw invalid("it does not end with a newline (truncated?)") }
            var lines: [Range<Int>] = []
            var start = 0
            for (offset, byte) in bytes.enumerated() where byte == 0x0a {
                lines.append(start..<offset)
                start = offset + 1
            }
            return lines
        }
    }

    /// A line that holds no secret, as text; only printable ASCII is allowed.
    private static func publicLine(_ file: SecureBytes, _ range: Range<Int>) throws -> String {
        let bytes = file.withUnsafeBytes { Array($0[range]) }
        guard bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7f }) else { throw invalid("it contains a character that is not printable ASCII") }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func field(_ file: SecureBytes, _ range: Range<Int>, name: String) throws -> Substring {
        let line = try publicLine(file, range)
        let prefix = "\(name): "
        guard line.hasPrefix(prefix) else { throw invalid("expected a '\(name):' line") }
        return line.dropFirst(prefix.count)
    }

    private static func hexField(_ file: SecureBytes, _ range: Range<Int>, name: String, count: Int) throws -> [UInt8] {
        guard let bytes = ByteEncoding.bytes(fromHex: try field(file, range, name: name)), bytes.count == count else {
            throw invalid("the \(name) field is not \(count * 2) lowercase hex digits")
        }
        return bytes
    }

    /// Canonical decimal 1...255: no sign, no leading zero.
    private static func decimal(_ text: Substring, name: String) throws -> Int {
        guard !text.isEmpty, text.count <= 3, text.first != "0", text.allSatisfy(\.isASCII), let value = Int(text),
              (1...255).contains(value) else {
            throw invalid("the \(name) is not a number from 1 to 255")
        }
        return value
    }

    private static func indexField(_ text: Substring) throws -> (Int, Int) {
        let parts = text.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[1] == "of" else { throw invalid("the share line is not 'share: X of N'") }
        return (try decimal(parts[0], name: "share number"), try decimal(parts[2], name: "share count"))
    }

    private static func secretValue(_ file: SecureBytes, _ range: Range<Int>) throws -> SecureBytes {
        let prefix = Array("value: ".utf8)
        let hasPrefix = file.withUnsafeBytes { Array($0[range].prefix(prefix.count)) == prefix }
        guard hasPrefix, range.count == prefix.count + 64 else { throw invalid("the value field is not 64 lowercase hex digits") }
        let hex = try file.slice((range.lowerBound + prefix.count)..<range.upperBound)
        guard let value = try SecretHex.decode(hex) else { throw invalid("the value field is not 64 lowercase hex digits") }
        return value
    }

    private static func verifyChecksum(_ file: SecureBytes, lines: [Range<Int>]) throws {
        let covered = try file.slice(0..<lines[6].lowerBound)
        let expected = ByteEncoding.hex(checksum(covered))
        let line = try publicLine(file, lines[6])
        guard line.hasPrefix("check: "), constantTimeEquals(Array(line.dropFirst(7).utf8), Array(expected.utf8)) else {
            throw invalid("its check line does not match its contents (the file is damaged or was edited)")
        }
    }

    // MARK: Combining

    /// Reconstructs the split's secret from at least `threshold` shares of one split of this vault.
    static func combine(_ shares: [RecoveryShareFile], vaultID: VaultID) throws -> SecureBytes {
        guard let first = shares.first else { throw CryptoVaultError(.insufficientShares, "no recovery shares were given") }
        guard shares.allSatisfy({ $0.vaultID == vaultID }) else {
            throw CryptoVaultError(.invalidShare, "a recovery share belongs to a different vault")
        }
        guard shares.allSatisfy({ $0.keyslotUUID == first.keyslotUUID && $0.threshold == first.threshold
                                   && $0.shareCount == first.shareCount }) else {
            throw CryptoVaultError(.invalidShare, "the recovery shares come from different splits")
        }
        guard Set(shares.map(\.share.index)).count == shares.count else {
            throw CryptoVaultError(.invalidShare, "the same recovery share was given twice")
        }
        guard shares.count >= first.threshold else {
            throw CryptoVaultError(.insufficientShares,
                "\(shares.count) recovery share(s) given; this split needs \(first.threshold) of \(first.shareCount)")
        }
        return try Shamir.combine(shares.map(\.share), threshold: first.threshold)
    }
}

/// Lowercase hex for secrets, encoded and decoded inside wiped memory without branching on digits'
/// values in ways that index tables (the bytes are secret).
enum SecretHex {
    static func encode(_ secret: SecureBytes) throws -> SecureBytes {
        // sodium_bin2hex writes a terminating NUL, so the buffer has one byte more than the text.
        let terminated = try SecureBytes(count: secret.count * 2 + 1)
        terminated.withUnsafeMutableBytes { output in
            secret.withUnsafeBytes { input in
                _ = sodium_bin2hex(output.baseAddress!.assumingMemoryBound(to: CChar.self), output.count,
                                   input.bindMemory(to: UInt8.self).baseAddress, input.count)
            }
        }
        return try terminated.slice(0..<(secret.count * 2))
    }

    /// nil unless `text` is exactly an even number of lowercase hex digits.
    static func decode(_ text: SecureBytes) throws -> SecureBytes? {
        guard text.count % 2 == 0 else { return nil }
        let lowercase = text.withUnsafeBytes { bytes in
            bytes.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
        }
        guard lowercase else { return nil }
        let value = try SecureBytes(count: text.count / 2)
        var decoded = 0
        let status = value.withUnsafeMutableBytes { output in
            text.withUnsafeBytes { input in
                sodium_hex2bin(output.bindMemory(to: UInt8.self).baseAddress!, output.count,
                               input.baseAddress!.assumingMemoryBound(to: CChar.self), input.count, nil, &decoded, nil)
            }
        }
        return status == 0 && decoded == value.count ? value : nil
    }
}
