@testable import CryptoVault
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
import TestSupport

@Suite("AtomicOutputFile: temporaries of killed writers are swept")
struct AtomicOutputFileTests {
    @Test("the writer's pid is read only from names of exactly the form AtomicOutputFile makes", arguments: [
        (".report.pdf.vaultctl-4242-0a1b2c3d.tmp", Int32(4242)),
        (".a.vaultctl-1-ffffffff.tmp", 1),
        (".x.vaultctl-9.vaultctl-77-00000000.tmp", 77),
        ("report.pdf.vaultctl-4242-0a1b2c3d.tmp", nil),
        ("..vaultctl-4242-0a1b2c3d.tmp", nil),
        (".report.vaultctl-4242-0A1B2C3D.tmp", nil),
        (".report.vaultctl-4242-0a1b2c3.tmp", nil),
        (".report.vaultctl-4242-0a1b2c3d0.tmp", nil),
        (".report.vaultctl-04242-0a1b2c3d.tmp", nil),
        (".report.vaultctl-+4242-0a1b2c3d.tmp", nil),
        (".report.vaultctl-0-0a1b2c3d.tmp", nil),
        (".report.vaultctl-4242-0a1b2c3d.tmp.bak", nil),
        (".report.vaultctl-4242-0a-1b2c3d.tmp", nil),
        (".incoming-4242-0a1b2c3d0a1b2c3d", nil),
    ] as [(String, Int32?)])
    func writingProcess(_ name: String, _ pid: Int32?) {
        #expect(AtomicOutputFile.writingProcess(ofTemporary: name) == pid)
    }

    @Test("a sweep removes a dead writer's temporary file and nothing else: not a live writer's, not a symbolic link, not other names")
    func sweepRemovesOnlyAbandonedTemporaries() throws {
        let folder = NSTemporaryDirectory() + "atomic-output-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let dead = try Self.pidOfAnExitedProcess()
        let abandoned = ".chart.pdf.vaultctl-\(dead)-0badf00d.tmp"
        let live = ".chart.pdf.vaultctl-\(getpid())-0badf00d.tmp"
        let linked = ".notes.txt.vaultctl-\(dead)-12345678.tmp"
        let keep = ["chart.pdf", live, ".chart.pdf.vaultctl-\(dead)-0BADF00D.tmp", "chart.pdf.vaultctl-\(dead)-0badf00d.tmp", "target"]
        for name in [abandoned] + keep {
            FileManager.default.createFile(atPath: folder + "/" + name, contents: Data("plaintext of a chart".utf8))
        }
        try FileManager.default.createSymbolicLink(atPath: folder + "/" + linked, withDestinationPath: folder + "/target")

        // A temporary file of this very process, in use: kept as well.
        let writing = try AtomicOutputFile(path: folder + "/in-progress.pdf", replacing: false)
        defer { writing.abandon() }
        #expect(AtomicOutputFile.removeAbandonedTemporaries(besides: folder + "/chart.pdf") == [abandoned])
        let left = Set(try FileManager.default.contentsOfDirectory(atPath: folder))
        #expect(left == Set(keep + [linked, AtomicOutputFile.fileName(of: writing.temporaryPath)]), "\(left.sorted())")
        #expect(FileManager.default.contents(atPath: folder + "/target") != nil, "a link's target is never touched")
    }

    /// The id of a process that has exited and been reaped: `kill(pid, 0)` now fails with ESRCH
    /// (unless the id is reused at once, which a test run does not do in practice).
    static func pidOfAnExitedProcess() throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/true")
        try process.run()
        process.waitUntilExit()
        let pid = process.processIdentifier
        try #require(kill(pid, 0) != 0 && errno == ESRCH, "pid \(pid) is still in use")
        return pid
    }
}
