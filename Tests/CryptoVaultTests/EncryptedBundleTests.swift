@testable import CryptoVault
import Foundation
import Testing
import TestSupport

@Suite("EncryptedBundle: round trips, ranges, rewrap and refusals")
struct EncryptedBundleTests {
    @Test("sizes around chunk boundaries round-trip on one thread and on two",
          arguments: [0, 1, 1023, 1024, 1025, 4096, 10_000, 64 * 1024 + 7])
    func roundTrip(_ size: Int) throws {
        let fixture = try BundleFixture()
        let plaintext = BundleFixture.pattern(size)
        for threads in [1, 2] {
            let path = try fixture.seal(plaintext, threads: threads, name: "t\(threads)")
            #expect(try fixture.open(path, threads: threads) == plaintext)
            let chunks = max(1, (size + 1023) / 1024)
            let header = try EncryptedBundle.readHeader(try FileDescriptor.openForReading(path))
            #expect(try fixture.bytes(path).count == header.size + size + 16 * chunks)
            #expect(header.plaintextLength == UInt64(size))
        }
    }

    @Test("metadata is sealed in the header and comes back; the file name is not in the bundle in clear")
    func metadata() throws {
        let fixture = try BundleFixture()
        let path = try fixture.seal(Array("hello".utf8), name: "Patient-Jane-Roe")
        let opened = try EncryptedBundle.open(try FileDescriptor.openForReading(path), vault: fixture.unlocked)
        #expect(opened.metadata == BundleMetadata(name: "Patient-Jane-Roe.txt", contentType: "text/plain", modificationTime: 1_700_000_000))
        #expect(!(try fixture.bytes(path)).contains(subsequence: Array("Jane".utf8)))
    }

    @Test("any byte range reads exactly the plaintext bytes, touching only its chunks")
    func ranges() throws {
        let fixture = try BundleFixture()
        let plaintext = BundleFixture.pattern(5000)
        let path = try fixture.seal(plaintext)
        for (start, end) in [(0, 1), (0, 5000), (1023, 1025), (1024, 2048), (4999, 5000), (4000, 9000), (17, 17), (3000, 3100)] {
            let expected = Array(plaintext[min(start, 5000)..<min(end, 5000)])
            #expect(try fixture.read(path, UInt64(start)..<UInt64(end)) == expected, "\(start)..<\(end)")
        }
        // A damaged chunk outside the range does not stop a range read: only touched chunks are read.
        var bytes = try fixture.bytes(path)
        bytes[bytes.count - 3] ^= 1
        try fixture.write(bytes, to: path)
        #expect(try fixture.read(path, 0..<1024) == Array(plaintext[0..<1024]))
        #expect(errorCode { try fixture.read(path, 4000..<5000) } == .corruptBundle)
    }

    @Test("rewrap changes only the header; the payload bytes are identical and it opens under the new version")
    func rewrap() throws {
        let fixture = try BundleFixture()
        let plaintext = BundleFixture.pattern(3000)
        let path = try fixture.seal(plaintext)
        let before = try fixture.bytes(path)
        _ = try fixture.unlocked.rotateCompartment(named: "files")
        let opened = try EncryptedBundle.open(try FileDescriptor.openForReading(path), vault: fixture.unlocked)
        let header = try opened.rewrappedHeader(for: 2, vault: fixture.unlocked)
        #expect(header.size == opened.header.size && header.keyVersion == 2)
        var after = before
        after.replaceSubrange(0..<header.size, with: header.serialized())
        try fixture.write(after, to: path)
        #expect(after[header.size...] == before[header.size...])
        #expect(try fixture.open(path) == plaintext)
        try fixture.unlocked.retireCompartmentVersion(named: "files", version: 1)
        #expect(try fixture.open(path) == plaintext)
    }

    @Test("a bundle whose key version was retired can no longer be opened, and says why")
    func retiredVersion() throws {
        let fixture = try BundleFixture()
        let path = try fixture.seal([1, 2, 3])
        _ = try fixture.unlocked.rotateCompartment(named: "files")
        try fixture.unlocked.retireCompartmentVersion(named: "files", version: 1)
        let message = errorMessage { try fixture.open(path) } ?? ""
        #expect(errorCode { try fixture.open(path) } == .foreignBundle)
        #expect(message.contains("key version 1") && message.contains("retired"))
    }

    @Test("a bundle from another vault, a destroyed compartment, or moved to another compartment is refused")
    func foreign() throws {
        let fixture = try BundleFixture()
        let other = try BundleFixture()
        let path = try other.seal([9, 9, 9])
        #expect(errorCode { try fixture.open(path) } == .foreignBundle)

        let local = try fixture.seal([1, 2, 3])
        let second = try fixture.unlocked.createCompartment(named: "second", register: .general)
        var moved = try fixture.bytes(local)
        moved.replaceSubrange(28..<44, with: second.id.bytes)
        try fixture.write(moved, to: local)
        #expect(errorCode { try fixture.open(local) } == .corruptBundle)

        let doomed = try fixture.seal([4, 5, 6], name: "doomed")
        try fixture.unlocked.destroyCompartment(named: "files")
        #expect(errorMessage { try fixture.open(doomed) }?.contains("destroyed") == true)
    }

    @Test("splicing a header or a chunk from another bundle is refused")
    func splicing() throws {
        let fixture = try BundleFixture()
        let first = try fixture.seal(BundleFixture.pattern(3000, seed: 1), name: "aaaa")
        let second = try fixture.seal(BundleFixture.pattern(3000, seed: 2), name: "bbbb")
        let a = try fixture.bytes(first)
        let b = try fixture.bytes(second)
        let headerSize = try EncryptedBundle.readHeader(try FileDescriptor.openForReading(first)).size
        try fixture.write(Array(b[0..<headerSize]) + Array(a[headerSize...]), to: first + ".x")
        #expect(errorMessage { try fixture.open(first + ".x") }?.contains("chunk 0") == true)
        var chunkSwapped = a
        chunkSwapped.replaceSubrange(headerSize..<(headerSize + 1040), with: b[headerSize..<(headerSize + 1040)])
        try fixture.write(chunkSwapped, to: first + ".y")
        #expect(errorMessage { try fixture.open(first + ".y") }?.contains("chunk 0") == true)
    }

    @Test("reordered, duplicated, dropped chunks, two final chunks, and trailing data are refused")
    func chunkSurgery() throws {
        let fixture = try BundleFixture()
        let path = try fixture.seal(BundleFixture.pattern(3000))
        let bytes = try fixture.bytes(path)
        let h = try EncryptedBundle.readHeader(try FileDescriptor.openForReading(path)).size
        let c0 = Array(bytes[h..<(h + 1040)]), c1 = Array(bytes[(h + 1040)..<(h + 2080)]), c2 = Array(bytes[(h + 2080)...])
        let header = Array(bytes[0..<h])
        let cases: [(String, [UInt8], CryptoVaultErrorCode)] = [
            ("reordered", header + c1 + c0 + c2, .corruptBundle),
            ("duplicated", header + c0 + c0 + c2, .corruptBundle),
            ("dropped middle", header + c0 + c2, .truncatedBundle),
            ("missing final", header + c0 + c1, .truncatedBundle),
            ("two finals", header + c0 + c1 + c2 + c2, .truncatedBundle),
            ("trailing data", bytes + [0], .truncatedBundle),
        ]
        for (name, variant, code) in cases {
            try fixture.write(variant, to: path)
            #expect(errorCode { try fixture.open(path) } == code, "\(name)")
        }
    }

    @Test("sealing a stream to a stream says 'unknown length'; the final chunk marks the end")
    func streamedUnknownLength() throws {
        let fixture = try BundleFixture()
        let plaintext = BundleFixture.pattern(2500)
        let input = try Pipe.feeding(plaintext)
        let output = Pipe.draining()
        let header = try EncryptedBundle.seal(from: input.reader, to: output.writer, compartment: fixture.compartment,
                                              vault: fixture.unlocked, metadata: BundleMetadata(name: "s", modificationTime: 0),
                                              options: .init(chunkSize: 1024, threads: 2))
        let sealed = output.finish()
        #expect(header.plaintextLength == BundleHeader.unknownLength)
        let path = fixture.path("streamed.vbundle")
        try fixture.write(sealed, to: path)
        #expect(try fixture.open(path) == plaintext)
        try fixture.write(Array(sealed.dropLast(100)), to: path)
        #expect(errorCode { try fixture.open(path) } == .corruptBundle, "cut inside the final chunk")
        try fixture.write(Array(sealed.dropLast(452 + 16)), to: path)
        #expect(errorCode { try fixture.open(path) } == .corruptBundle, "dropping the final chunk leaves a non-final last chunk")
    }
}

/// Pipes for streaming tests: one fed from a background thread, one drained into memory.
final class Pipe: @unchecked Sendable {
    let reader: FileDescriptor
    let writer: FileDescriptor
    private var collected: [UInt8] = []
    private let done = DispatchSemaphore(value: 0)

    private init() {
        var ends: [Int32] = [0, 0]
        _ = Glibc.pipe(&ends)
        reader = FileDescriptor(rawValue: ends[0], path: "pipe", ownsDescriptor: true)
        writer = FileDescriptor(rawValue: ends[1], path: "pipe", ownsDescriptor: false)
    }

    static func feeding(_ bytes: [UInt8]) throws -> Pipe {
        let pipe = Pipe()
        Thread.detachNewThread {
            bytes.withUnsafeBytes { try? pipe.writer.write($0) }
            close(pipe.writer.rawValue)
        }
        return pipe
    }

    static func draining() -> Pipe {
        let pipe = Pipe()
        Thread.detachNewThread {
            var buffer = [UInt8](repeating: 0, count: 4096)
            while let count = try? buffer.withUnsafeMutableBytes({ try pipe.reader.readFully(into: $0) }), count > 0 {
                pipe.collected += buffer[0..<count]
            }
            pipe.done.signal()
        }
        return pipe
    }

    /// Closes the writing end and returns everything that came through.
    func finish() -> [UInt8] {
        close(writer.rawValue)
        done.wait()
        return collected
    }
}
