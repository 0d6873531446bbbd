import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import Testing

/// `-o PATH` (issue 13): a device node or FIFO is written into and never replaced by a regular file;
/// a dangling symbolic link is neither followed nor replaced; only a regular file is ever replaced.
@Suite("-o PATH writes into devices and FIFOs and replaces nothing but a regular file")
struct OutputPathTests {
    /// A vault with one sealed bundle of known plaintext.
    final class Fixture {
        let cli: BundleCLI
        let plaintext: [UInt8]
        let bundle: String

        init() throws {
            cli = try BundleCLI()
            plaintext = Array("Progress note: no change; next visit in four weeks.\n".utf8)
            try cli.write(plaintext, to: "note.txt")
            bundle = cli.file("note.vbundle")
            let sealed = try cli.run(["seal", "--compartment", "files", cli.file("note.txt"), "-o", bundle])
            guard sealed.status == 0 else { throw CLIError(message: "seal failed: \(sealed.stderr)") }
        }

        func fileType(_ path: String) -> mode_t? {
            var status = stat()
            return lstat(path, &status) == 0 ? status.st_mode & S_IFMT : nil
        }
    }

    @Test("open -o FIFO --force writes the plaintext to the FIFO's reader and leaves the FIFO a FIFO")
    func fifoWithAReader() throws {
        let fixture = try Fixture()
        let fifo = fixture.cli.file("pipe")
        #expect(mkfifo(fifo, 0o600) == 0)
        let received = Mutex<Data?>(nil)
        let reader = Thread {
            // Opening for reading waits for the writer, then reads to its end.
            let data = FileHandle(forReadingAtPath: fifo)?.readDataToEndOfFile()
            received.withLock { $0 = data }
        }
        reader.start()
        let opened = try fixture.cli.run(["open", fixture.bundle, "-o", fifo, "--force"])
        #expect(opened.status == 0, "\(opened.stderr)")
        let deadline = Date().addingTimeInterval(10)
        while received.withLock({ $0 }) == nil && Date() < deadline { usleep(20_000) }
        #expect(received.withLock { $0 }.map { [UInt8]($0) } == fixture.plaintext)
        #expect(fixture.fileType(fifo) == S_IFIFO, "the FIFO is still a FIFO, not a regular file")
        #expect(try fixture.cli.leftovers() == [])
    }

    @Test("open -o /dev/null, with or without --force, writes into the device and leaves it a character device",
          arguments: [false, true])
    func devNull(force: Bool) throws {
        let fixture = try Fixture()
        let opened = try fixture.cli.run(["open", fixture.bundle, "-o", "/dev/null"] + (force ? ["--force"] : []))
        #expect(opened.status == 0, "\(opened.stderr)")
        #expect(fixture.fileType("/dev/null") == S_IFCHR)
    }

    @Test("a dangling symbolic link at -o is refused (73, 'symbolic link to nothing'), with or without --force; its target is not created",
          arguments: [false, true])
    func danglingSymlink(force: Bool) throws {
        let fixture = try Fixture()
        let link = fixture.cli.file("dangling")
        let target = fixture.cli.file("created-through-the-link")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        let opened = try fixture.cli.run(["open", fixture.bundle, "-o", link] + (force ? ["--force"] : []))
        #expect(opened.status == 73 && opened.stderr.contains("symbolic link to nothing"), "\(opened.status) \(opened.stderr)")
        #expect(fixture.fileType(link) == S_IFLNK, "the link is not replaced")
        #expect(fixture.fileType(target) == nil, "the link is not followed")
        #expect(try fixture.cli.leftovers() == [])
    }

    @Test("a symbolic link to a regular file is refused without --force (73, 'already exists'); with it, the target is replaced and the link stays")
    func symlinkToRegularFile() throws {
        let fixture = try Fixture()
        let link = fixture.cli.file("latest")
        try fixture.cli.write(Array("previous output".utf8), to: "target.txt")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: fixture.cli.file("target.txt"))

        let refused = try fixture.cli.run(["open", fixture.bundle, "-o", link])
        #expect(refused.status == 73 && refused.stderr.contains("already exists"), "\(refused.status) \(refused.stderr)")
        #expect(try fixture.cli.bytes("target.txt") == Array("previous output".utf8))

        let forced = try fixture.cli.run(["open", fixture.bundle, "-o", link, "--force"])
        #expect(forced.status == 0, "\(forced.stderr)")
        #expect(fixture.fileType(link) == S_IFLNK, "the link is still a link")
        #expect(try fixture.cli.bytes("target.txt") == fixture.plaintext)
        #expect(try fixture.cli.leftovers() == [])
    }

    @Test("a directory at -o is refused (73, 'is a directory') even with --force, and nothing is left in or beside it")
    func directory() throws {
        let fixture = try Fixture()
        let folder = fixture.cli.file("folder")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        let opened = try fixture.cli.run(["open", fixture.bundle, "-o", folder, "--force"])
        #expect(opened.status == 73 && opened.stderr.contains("is a directory"), "\(opened.status) \(opened.stderr)")
        #expect(fixture.fileType(folder) == S_IFDIR)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == [])
        #expect(try fixture.cli.leftovers() == [])
    }

    @Test("a Unix socket at -o is refused (73) even with --force and stays a socket")
    func socket() throws {
        let fixture = try Fixture()
        let path = fixture.cli.file("s.sock")
        let descriptor = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: Array(path.utf8).prefix(raw.count - 1))
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        try #require(bound == 0, "the fixture's path must fit a socket address")
        let opened = try fixture.cli.run(["open", fixture.bundle, "-o", path, "--force"])
        #expect(opened.status == 73 && opened.stderr.contains("neither a regular file"), "\(opened.status) \(opened.stderr)")
        #expect(fixture.fileType(path) == S_IFSOCK)
    }
}
