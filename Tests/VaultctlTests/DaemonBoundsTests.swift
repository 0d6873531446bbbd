import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The daemon against hostile or careless clients of its own user (issue 13): a path it is asked to
/// open never blocks it, and privileged plaintext it streamed does not stay in its memory after the
/// session ends.
@Suite("vaultctl serve: bounded requests and no plaintext left in memory", .serialized)
struct DaemonBoundsTests {
    @Test("16 clients asking the daemon to open a FIFO are each refused at once (65, 'not a regular file'), and the daemon still answers")
    func fifoPathsDoNotWedgeTheDaemon() throws {
        let fixture = try DaemonCommandTests.Fixture()
        _ = try fixture.serve()
        let fifo = fixture.cli.file("trap.vbundle")
        #expect(mkfifo(fifo, 0o600) == 0)
        let clients = try (0..<16).map { index in
            try CLI.start(["open", fifo, "-o", fixture.cli.file("out-\(index)"), "--vault", fixture.cli.directory])
        }
        let deadline = Date().addingTimeInterval(20)
        while clients.contains(where: { $0.process.isRunning }) && Date() < deadline { usleep(50_000) }
        for client in clients where client.process.isRunning { kill(client.process.processIdentifier, SIGKILL) }
        for client in clients {
            client.process.waitUntilExit()
            let result = client.result()
            #expect(result.status == 65 && result.stderr.contains("not a regular file"), "\(result.status) \(result.stderr)")
        }
        let listed = try fixture.client(["session", "list"])
        #expect(listed.status == 0 && listed.stdout.contains("No live sessions."), "\(listed.stderr)")
        #expect(try fixture.stopDaemon().status == 0)
    }

    @Test("after 'session end', the daemon's memory (every readable mapping of /proc/PID/mem) holds no byte string of the privileged plaintext it streamed")
    func noPlaintextInTheDaemonAfterTheSession() throws {
        let fixture = try DaemonCommandTests.Fixture()
        // A small document (small reads come from the ordinary heap, not from mappings freed at once)
        // with a random 40-byte marker at several places.
        var generator = SystemRandomNumberGenerator()
        let marker = (0..<40).map { _ in UInt8.random(in: 0...255, using: &generator) }
        var document: [UInt8] = []
        for _ in 0..<6 { document += (0..<3000).map { _ in UInt8.random(in: 0...255, using: &generator) } + marker }
        try fixture.cli.write(document, to: "marked.txt")
        let put = try fixture.cli.run(["put", "--compartment", "chart", fixture.cli.file("marked.txt")])
        try #require(put.status == 0, "\(put.stderr)")
        let bundleID = put.stdout.trimmingCharacters(in: .whitespacesAndNewlines)

        let daemon = try fixture.serve()
        let pid = daemon.process.processIdentifier
        let started = try fixture.client(["session", "start", "--compartment", "chart", "--purpose", "memory check"])
        try #require(started.status == 0, "\(started.stderr)")
        for round in 0..<3 {
            let got = try fixture.client(["get", bundleID, "-o", fixture.cli.file("got-\(round).txt")])
            try #require(got.status == 0, "\(got.stderr)")
            #expect(try fixture.cli.bytes("got-\(round).txt") == document)
        }
        #expect(try fixture.client(["session", "end", "all"]).status == 0)

        let memory = try Self.readableMemory(of: pid)
        // The scan sees the daemon's heap: its vault path, held since it started, is found there.
        try #require(memory.contains { Self.occurrences(of: Array(fixture.cli.directory.utf8), in: $0) > 0 },
                     "the scan must be able to read the daemon's memory (run as root or with ptrace rights)")
        let hits = memory.reduce(0) { $0 + Self.occurrences(of: marker, in: $1) }
        #expect(hits == 0, "the privileged plaintext's marker is still in the daemon's memory \(hits) times")
        #expect(try fixture.stopDaemon().status == 0)
    }

    /// The contents of every readable mapping of process `pid` (those the kernel lets us read).
    static func readableMemory(of pid: pid_t) throws -> [[UInt8]] {
        let maps = try String(contentsOfFile: "/proc/\(pid)/maps", encoding: .utf8)
        let memory = open("/proc/\(pid)/mem", O_RDONLY)
        guard memory >= 0 else { return [] }
        defer { close(memory) }
        var regions: [[UInt8]] = []
        for line in maps.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 2, fields[1].hasPrefix("r") else { continue }
            let bounds = fields[0].split(separator: "-").compactMap { UInt64($0, radix: 16) }
            guard bounds.count == 2, bounds[1] > bounds[0], bounds[1] - bounds[0] <= 1 << 30 else { continue }
            var region = [UInt8](repeating: 0, count: Int(bounds[1] - bounds[0]))
            let read = region.withUnsafeMutableBytes { pread(memory, $0.baseAddress, $0.count, off_t(Int64(bitPattern: bounds[0]))) }
            if read > 0 { regions.append(Array(region[0..<read])) }
        }
        return regions
    }

    static func occurrences(of needle: [UInt8], in haystack: [UInt8]) -> Int {
        var count = 0
        haystack.withUnsafeBytes { bytes in
            needle.withUnsafeBytes { pattern in
                var offset = 0
                // memchr finds each candidate first byte; memcmp checks the rest.
                while offset + pattern.count <= bytes.count,
                      let found = memchr(bytes.baseAddress! + offset, Int32(pattern[0]), bytes.count - offset - pattern.count + 1) {
                    if memcmp(found, pattern.baseAddress!, pattern.count) == 0 { count += 1 }
                    offset = UnsafeRawPointer(found) - UnsafeRawPointer(bytes.baseAddress!) + 1
                }
            }
        }
        return count
    }
}
