import Appliance
import CryptoVault
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
import TestSupport
#endif

/// Bundles sealed by this implementation (the CryptoVault library, in a vault made by the built
/// vaultctl) must be opened by the second, independent implementation in
/// testvectors/independent/bundle_opener.py, written from SECURITY.md §6 alone: the same plaintext,
/// whole and by byte ranges, the same metadata, and the same refusals.
///
/// Needs Debian's python3-nacl and python3-argon2 (see IndependentImplementationTests).
@Suite("bundles sealed by vaultctl's library, opened by the independent implementation (testvectors/independent)")
struct BundleIndependentTests {
    static let opener = IndependentImplementationTests.repositoryRoot
        .appendingPathComponent("testvectors/independent/bundle_opener.py").path
    static let compartmentName = "Patient files – Müller"

    @Test("the Python opener gives back every byte, whole and by ranges, of bundles sealed at chunk sizes 1024 and 65536",
          arguments: [1024, 65536])
    func samePlaintext(chunkSize: Int) throws {
        try IndependentImplementationTests.requireReader()
        let fixture = try IndependentBundleFixture()
        let sizes = [0, 1, chunkSize - 1, chunkSize, chunkSize + 1, 3 * chunkSize + 17, 200_000]
        for size in sizes {
            let plaintext = IndependentBundleFixture.random(size)
            let bundle = try fixture.seal(plaintext, chunkSize: chunkSize, name: "b\(size).vbundle")
            #expect(try fixture.openWithPython(bundle) == plaintext, "chunk size \(chunkSize), \(size) bytes: whole file")
            let ranges: [(Int, Int)] = [(0, 1), (chunkSize - 1, chunkSize + 1), (chunkSize, 2 * chunkSize), (size / 3, size / 3 + 5000),
                                        (max(0, size - 1), size + 10), (17, 17), (size + 1, size + 100)]
            for (start, end) in ranges where start <= end {
                let expected = start >= size ? [] : Array(plaintext[start..<min(end, size)])
                #expect(try fixture.openWithPython(bundle, range: "\(start):\(end)") == expected,
                        "chunk size \(chunkSize), \(size) bytes: range \(start):\(end)")
            }
        }
    }

    @Test("the largest chunk size (16 MiB) and many threads: sealed by the library, opened by Python and by Swift")
    func largestChunkSize() throws {
        try IndependentImplementationTests.requireReader()
        let fixture = try IndependentBundleFixture()
        for (size, threads) in [(0, 1), (100_000, 64), (16 << 20, 2)] {
            let plaintext = IndependentBundleFixture.random(size)
            let bundle = try fixture.seal(plaintext, chunkSize: 16 << 20, name: "big\(size).vbundle", threads: threads)
            #expect(try fixture.openWithPython(bundle) == plaintext, "16 MiB chunks, \(size) bytes, \(threads) threads")
            #expect(try fixture.openWithSwift(bundle, threads: threads) == plaintext, "Swift, \(size) bytes, \(threads) threads")
        }
    }

    @Test("metadata, a rotated key version and an unknown-length (streamed) bundle read the same in Python")
    func metadataVersionsAndStreams() throws {
        try IndependentImplementationTests.requireReader()
        let fixture = try IndependentBundleFixture()
        let plaintext = IndependentBundleFixture.random(5000)
        let first = try fixture.seal(plaintext, chunkSize: 1024, name: "v1.vbundle",
                                     metadata: BundleMetadata(name: "Befund Müller 患者.pdf", contentType: "application/pdf",
                                                              modificationTime: -42))
        let info = try fixture.python([first, "--info"])
        try #require(info.status == 0, "--info: \(info.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(info.stdout.utf8)) as? [String: Any])
        let metadata = object["metadata"] as? [String: Any]
        #expect(metadata?["name"] as? String == "Befund Müller 患者.pdf" && metadata?["content_type"] as? String == "application/pdf"
                && metadata?["modification_time"] as? Int == -42, "metadata: \(info.stdout)")
        #expect(object["key_version"] as? Int == 1 && object["plaintext_length"] as? Int == 5000 && object["chunk_count"] as? Int == 5)

        _ = try fixture.unlocked.rotateCompartment(named: Self.compartmentName)
        let second = try fixture.seal(plaintext, chunkSize: 2048, name: "v2.vbundle")
        #expect(try fixture.openWithPython(second) == plaintext, "key version 2")
        #expect(try fixture.openWithPython(first) == plaintext, "key version 1, still active")

        let streamed = try fixture.sealStreamed(plaintext, chunkSize: 1024, name: "streamed.vbundle")
        let header = try EncryptedBundle.readHeader(try FileDescriptor.openForReading(streamed))
        #expect(!header.hasKnownLength, "sealed from a pipe to a pipe: unknown length")
        #expect(try fixture.openWithPython(streamed) == plaintext, "unknown length")
        #expect(try fixture.openWithPython(streamed, range: "1000:3000") == Array(plaintext[1000..<3000]), "unknown length, range")

        try fixture.unlocked.retireCompartmentVersion(named: Self.compartmentName, version: 1)
        let retired = try fixture.python([first, "-o", fixture.path("retired.out")])
        #expect(retired.status == 65 && retired.stderr.contains("foreign (inactive-key-version)"), "retired version: \(retired.stderr)")
    }

    @Test("the Python opener refuses a flipped byte anywhere, a truncation and trailing data, as vaultctl does")
    func refusals() throws {
        try IndependentImplementationTests.requireReader()
        let fixture = try IndependentBundleFixture()
        let plaintext = IndependentBundleFixture.random(3000)
        let bundle = try fixture.seal(plaintext, chunkSize: 1024, name: "good.vbundle")
        let bytes = try fixture.bytes(bundle)
        let headerSize = try EncryptedBundle.readHeader(try FileDescriptor.openForReading(bundle)).size
        let cases: [(String, [UInt8], String)] = [
            ("payload byte in chunk 1", Self.flipping(bytes, at: headerSize + 1040 + 5), "corrupt (chunk): chunk 1 fails"),
            ("last byte (tag of the final chunk)", Self.flipping(bytes, at: bytes.count - 1), "corrupt (chunk): chunk 2 fails"),
            ("plaintext length field", Self.flipping(bytes, at: 75), "corrupt (mac)"),
            ("sealed metadata", Self.flipping(bytes, at: 151), "corrupt (mac)"),
            ("wrapped data key", Self.flipping(bytes, at: 120), "corrupt (unwrap)"),
            ("key commitment", Self.flipping(bytes, at: headerSize - 64), "corrupt (commitment)"),
            ("vault id", Self.flipping(bytes, at: 12), "foreign (wrong-vault)"),
            ("magic", Self.flipping(bytes, at: 0), "corrupt (header-structure)"),
            ("truncated by 100 bytes", Array(bytes.dropLast(100)), "truncated (truncated)"),
            ("trailing byte", bytes + [0], "truncated (trailing-data)"),
        ]
        for (name, variant, message) in cases {
            let path = try fixture.write(variant, name: "bad.vbundle")
            let result = try fixture.python([path, "-o", fixture.path("bad.out")])
            #expect(result.status == 65 && result.stderr.contains(message), "\(name): \(result.status) \(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: fixture.path("bad.out")), "\(name): no output file on a refusal")
            let swift = Result { try fixture.openWithSwift(path) }
            #expect((try? swift.get()) == nil, "\(name): the Swift opener must refuse it too")
        }
        #expect(try fixture.openWithPython(bundle) == plaintext, "the unaltered bundle still opens")
    }

    static func flipping(_ bytes: [UInt8], at index: Int) -> [UInt8] {
        var copy = bytes
        copy[index] ^= 0x01
        return copy
    }
}

/// A vault made by the built vaultctl, with one compartment made by vaultctl, unlocked through the
/// library so that bundles can be sealed in-process; and the Python opener to read them.
final class IndependentBundleFixture {
    let cli: CLIVault
    let unlocked: UnlockedVault
    private var count = 0

    init() throws {
        cli = try CLIVault()
        // Not privileged: these tests open bundles with the library directly, outside a session.
        let created = try cli.run(["compartment", "create", BundleIndependentTests.compartmentName, "--register", "healthcare", "--not-privileged"])
        guard created.status == 0 else { throw CLIError(message: "compartment create: \(created.stderr)") }
        let vault = try Vault.open(at: cli.directory, journal: RecordingJournal(), modules: VaultModules.all)
        unlocked = try vault.unlock(with: .passphrase(try SecureBytes(copying: Array(CLIVault.passphrase.utf8))))
    }

    var compartment: VaultCompartment {
        get throws { try unlocked.compartment(named: BundleIndependentTests.compartmentName) }
    }

    func path(_ name: String) -> String { cli.root + "/" + name }

    static func random(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }

    func bytes(_ path: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) }

    func write(_ bytes: [UInt8], name: String) throws -> String {
        let target = path(name)
        try Data(bytes).write(to: URL(fileURLWithPath: target))
        return target
    }

    /// Seals from a regular file to a regular file (the header is rewritten with the length at the end).
    func seal(_ plaintext: [UInt8], chunkSize: Int, name: String,
              metadata: BundleMetadata = BundleMetadata(name: "chart.pdf", contentType: "application/pdf",
                                                        modificationTime: 1_700_000_000),
              threads: Int = 2) throws -> String {
        let input = try write(plaintext, name: name + ".plain")
        let output = path(name)
        try? FileManager.default.removeItem(atPath: output)
        try EncryptedBundle.seal(from: try FileDescriptor.openForReading(input), to: try FileDescriptor.createExclusive(output),
                                 compartment: try compartment, vault: unlocked, metadata: metadata,
                                 options: .init(chunkSize: chunkSize, threads: threads))
        return output
    }

    /// Seals from a pipe to a pipe: the header says "unknown length".
    func sealStreamed(_ plaintext: [UInt8], chunkSize: Int, name: String) throws -> String {
        let input = Foundation.Pipe(), output = Foundation.Pipe()
        let feeder = Thread {
            try? input.fileHandleForWriting.write(contentsOf: Data(plaintext))
            try? input.fileHandleForWriting.close()
        }
        let collected = Collected()
        let drainer = Thread {
            collected.data = output.fileHandleForReading.readDataToEndOfFile()
            collected.done.signal()
        }
        feeder.start()
        drainer.start()
        try EncryptedBundle.seal(from: FileDescriptor(rawValue: input.fileHandleForReading.fileDescriptor, path: "pipe", ownsDescriptor: false),
                                 to: FileDescriptor(rawValue: output.fileHandleForWriting.fileDescriptor, path: "pipe", ownsDescriptor: false),
                                 compartment: try compartment, vault: unlocked,
                                 metadata: BundleMetadata(name: "stream", modificationTime: 0),
                                 options: .init(chunkSize: chunkSize, threads: 2))
        try output.fileHandleForWriting.close()
        collected.done.wait()
        return try write([UInt8](collected.data), name: name)
    }

    final class Collected: @unchecked Sendable {
        var data = Data()
        let done = DispatchSemaphore(value: 0)
    }

    func python(_ arguments: [String]) throws -> CLI.Result {
        try IndependentImplementationTests.run(IndependentImplementationTests.python,
                                               [BundleIndependentTests.opener, "--vault", cli.directory,
                                                "--passphrase-file", cli.passphraseFile] + arguments)
    }

    /// The plaintext bundle_opener.py writes to a file (the whole bundle, or --range START:END).
    func openWithPython(_ bundle: String, range: String? = nil) throws -> [UInt8] {
        count += 1
        let out = path("python-\(count).out")
        let result = try python([bundle, "-o", out] + (range.map { ["--range", $0] } ?? []))
        guard result.status == 0 else {
            Issue.record("bundle_opener.py \(bundle) \(range ?? ""): exit \(result.status): \(result.stderr)")
            return []
        }
        return try bytes(out)
    }

    func openWithSwift(_ bundle: String, threads: Int = 2) throws -> [UInt8] {
        let opened = try EncryptedBundle.open(try FileDescriptor.openForReading(bundle), vault: unlocked)
        var plaintext: [UInt8] = []
        try opened.decrypt(threads: threads) { plaintext += $0 }
        return plaintext
    }
}
