import CryptoVault
import Foundation

/// One self-contained file an auditor can verify with the genesis key alone (SECURITY.md §8):
///
///     vaultctl audit export v1
///     origin <origin>
///     key <epoch> <base64 public key> [<base64 introduction note>]     one per epoch, from 0
///     checkpoint <epoch> <base64 signed note>                          in order
///     cosignature <base64 witness public key> <base64 cosigned note>   zero or more, in order received
///     entry <base64 encoded entry>                                     in order, from seq 0
///     end <entry count> <base64 SHA-256 of every byte before this line>
///
/// Lines end with LF. Details stay sealed; nothing in the file needs a passphrase to check.
public enum AuditExport {
    static let firstLine = "vaultctl audit export v1"
    public static let maximumLineLength = 4 << 20

    public static func write(_ snapshot: AuditSnapshot, to output: FileDescriptor) throws {
        try write(snapshot) { bytes in try bytes.withUnsafeBytes { try output.write($0) } }
    }

    /// The export's bytes, handed to `sink` line by line (the console serves them from memory).
    public static func write(_ snapshot: AuditSnapshot, into sink: (_ bytes: [UInt8]) throws -> Void) throws {
        try withoutActuallyEscaping(sink) { sink in try write(snapshot, writer: DigestingWriter(sink: sink)) }
    }

    private static func write(_ snapshot: AuditSnapshot, writer: DigestingWriter) throws {
        var count = 0
        let emit = writer.emit
        try emit(firstLine)
        try emit("origin \(snapshot.origin)")
        for key in snapshot.keys {
            let introduction = key.introduction.map { " " + base64(Array($0.utf8)) } ?? ""
            try emit("key \(key.epoch) \(base64(key.publicKey))\(introduction)")
        }
        for checkpoint in snapshot.checkpoints { try emit("checkpoint \(checkpoint.epoch) \(base64(Array(checkpoint.note.utf8)))") }
        for cosignature in snapshot.cosignatures {
            try emit("cosignature \(base64(cosignature.witnessPublicKey)) \(base64(Array(cosignature.cosignedNote.utf8)))")
        }
        try snapshot.forEachEntry { _, encoded, _ in
            try emit("entry \(base64(Array(encoded)))")
            count += 1
        }
        try writer.finish("end \(count) \(base64(writer.digest()))")
    }

    /// Parses an export strictly: known line kinds in the fixed order, canonical numbers and base64,
    /// a matching count and digest, nothing after the end line.
    public static func parse(_ bytes: [UInt8]) throws -> AuditSnapshot {
        var parser = ExportParser(bytes)
        guard try parser.line() == firstLine else { throw ExportParser.malformed("it is not a vaultctl audit export") }
        let origin = try parser.field("origin")
        var keys: [AuditSnapshot.Key] = []
        while parser.next(is: "key ") {
            let parts = try parser.fields("key", count: 2...3)
            keys.append(AuditSnapshot.Key(epoch: try ExportParser.number(parts[0]), publicKey: try ExportParser.base64(parts[1]),
                                          introduction: parts.count == 3 ? try ExportParser.text(parts[2]) : nil))
        }
        var checkpoints: [AuditSnapshot.SignedCheckpoint] = []
        while parser.next(is: "checkpoint ") {
            let parts = try parser.fields("checkpoint", count: 2...2)
            checkpoints.append(.init(epoch: try ExportParser.number(parts[0]), note: try ExportParser.text(parts[1])))
        }
        var cosignatures: [ExportedCosignature] = []
        while parser.next(is: "cosignature ") {
            let parts = try parser.fields("cosignature", count: 2...2)
            let key = try ExportParser.base64(parts[0])
            guard key.count == 32 else { throw ExportParser.malformed("a witness public key is not 32 bytes") }
            cosignatures.append(ExportedCosignature(witnessPublicKey: key, cosignedNote: try ExportParser.text(parts[1])))
        }
        var entries: [[UInt8]] = []
        while parser.next(is: "entry ") { entries.append(try ExportParser.base64(try parser.field("entry"))) }
        let digest = SHA256.hash(Array(bytes[0..<parser.offset]))
        let end = try parser.fields("end", count: 2...2)
        guard try ExportParser.number(end[0]) == entries.count, try ExportParser.base64(end[1]) == digest, parser.isAtEnd else {
            throw ExportParser.malformed("its end line does not match its contents (the file is truncated or was edited)")
        }
        return AuditSnapshot(origin: origin, keys: keys, checkpoints: checkpoints, cosignatures: cosignatures, entries: .encoded(entries))
    }

    static func base64(_ bytes: [UInt8]) -> String { Data(bytes).base64EncodedString() }
}

/// Writes lines and hashes every byte written, for the export's end line.
final class DigestingWriter {
    private var hasher: SHA256.Hasher? = SHA256.Hasher()
    private let sink: ([UInt8]) throws -> Void

    init(sink: @escaping ([UInt8]) throws -> Void) { self.sink = sink }

    func emit(_ line: String) throws {
        let bytes = Array((line + "\n").utf8)
        hasher!.update(bytes)
        try sink(bytes)
    }

    func digest() -> [UInt8] { hasher.take()!.finalize() }

    /// The last line, which the digest does not cover (it carries the digest).
    func finish(_ line: String) throws { try sink(Array((line + "\n").utf8)) }
}

/// Line-by-line reader for `AuditExport.parse`.
struct ExportParser {
    private let bytes: [UInt8]
    private(set) var offset = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var isAtEnd: Bool { offset == bytes.count }

    func next(is prefix: String) -> Bool {
        let prefixBytes = Array(prefix.utf8)
        return bytes.count - offset >= prefixBytes.count && Array(bytes[offset..<(offset + prefixBytes.count)]) == prefixBytes
    }

    mutating func line() throws -> String {
        guard let end = bytes[offset...].prefix(AuditExport.maximumLineLength + 1).firstIndex(of: 0x0a) else {
            throw Self.malformed("a line is unterminated or too long")
        }
        guard let text = String(validating: bytes[offset..<end], as: UTF8.self), !text.contains("\r") else {
            throw Self.malformed("a line is not UTF-8 text")
        }
        offset = end + 1
        return text
    }

    mutating func field(_ name: String) throws -> String {
        try fields(name, count: 1...1)[0]
    }

    mutating func fields(_ name: String, count: ClosedRange<Int>) throws -> [String] {
        let parts = try line().split(separator: " ", omittingEmptySubsequences: false).map(String.init)
        guard parts.first == name, count.contains(parts.count - 1), parts.allSatisfy({ !$0.isEmpty }) else {
            throw Self.malformed("expected a '\(name)' line")
        }
        return Array(parts.dropFirst())
    }

    static func number(_ text: String) throws -> Int {
        guard let value = Int(text), value >= 0, String(value) == text else { throw malformed("'\(text.prefix(20))' is not a canonical number") }
        return value
    }

    static func base64(_ text: String) throws -> [UInt8] {
        guard let data = Data(base64Encoded: text), data.base64EncodedString() == text else { throw malformed("a value is not canonical base64") }
        return Array(data)
    }

    static func text(_ base64Text: String) throws -> String {
        guard let text = String(validating: try base64(base64Text), as: UTF8.self) else { throw malformed("a note is not UTF-8") }
        return text
    }

    static func malformed(_ reason: String) -> AuditChainError {
        AuditChainError(.malformedEntry, "not a valid audit export: \(reason)")
    }
}
