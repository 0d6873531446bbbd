import Appliance
@testable import CryptoVault
import Foundation
import Testing
import TestSupport

@Suite("vaultctl: concurrent processes and kill -9")
struct CrashAndConcurrencyTests {
    @Test("concurrent writers are serialised and concurrent readers see a consistent vault")
    func concurrentProcesses() throws {
        let fixture = try CLIVault()
        let writers = try (0..<6).map { index in
            try CLI.start(["compartment", "create", "parallel \(index)", "--register", "general",
                           "--vault", fixture.directory, "--passphrase-file", fixture.passphraseFile])
        }
        let readers = try (0..<6).map { _ in try CLI.start(["status", "--json", "--vault", fixture.directory]) }
        for running in writers + readers { running.process.waitUntilExit() }
        for running in writers {
            let result = running.result()
            #expect(result.status == 0, "\(result.stderr)")
        }
        for running in readers {
            let result = running.result()
            #expect(result.status == 0, "\(result.stderr)")
            let json = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
            #expect((0...6).contains(json?["compartments"] as? Int ?? -1))
        }
        let list = try fixture.run(["compartment", "list", "--json"])
        let names = (try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [[String: Any]])?.compactMap { $0["name"] as? String }
        #expect(Set(names ?? []) == Set((0..<6).map { "parallel \($0)" }))
    }

    /// kill -9 at random moments of `passwd`, 200 times: afterwards the vault opens and exactly one of
    /// the old and new passphrases unlocks it (old if the commit had not happened, new if it had).
    @Test("kill -9 at any moment of passwd leaves the old or the new passphrase working, never neither")
    func killDuringPasswd() throws {
        let fixture = try CLIVault()
        var current = CLIVault.passphrase
        var (sawOld, sawNew) = (0, 0)
        let typicalDuration = try measurePasswd(fixture, from: current, to: current)
        for round in 0..<200 {
            let next = "rotated passphrase \(round)"
            let running = try CLI.start(["passwd", "--vault", fixture.directory, "--passphrase-file", "-", "--new-passphrase-file", "-"],
                                        stdin: "\(current)\n\(next)\n")
            usleep(UInt32.random(in: 0...UInt32(typicalDuration * 1.2 * 1_000_000)))
            kill(running.process.processIdentifier, SIGKILL)
            running.process.waitUntilExit()
            _ = running.result()
            let vault = try Vault.open(at: fixture.directory, journal: RecordingJournal(), modules: VaultModules.all)
            let oldWorks = (try? vault.unlock(with: .passphrase(try SecureBytes(copying: Array(current.utf8))))) != nil
            let newWorks = (try? vault.unlock(with: .passphrase(try SecureBytes(copying: Array(next.utf8))))) != nil
            #expect(oldWorks != newWorks, "round \(round): old \(oldWorks), new \(newWorks)")
            if newWorks { current = next; sawNew += 1 } else { sawOld += 1 }
        }
        // Both outcomes must have occurred, or the kills were not landing at random moments.
        #expect(sawOld > 0 && sawNew > 0, "old kept \(sawOld) times, new committed \(sawNew) times")
    }

    private func measurePasswd(_ fixture: CLIVault, from: String, to: String) throws -> Double {
        let start = Date()
        let result = try CLI.run(["passwd", "--vault", fixture.directory, "--passphrase-file", "-", "--new-passphrase-file", "-"],
                                 stdin: "\(from)\n\(to)\n")
        guard result.status == 0 else { throw CLIError(message: "passwd failed: \(result.stderr)") }
        return Date().timeIntervalSince(start)
    }
}
