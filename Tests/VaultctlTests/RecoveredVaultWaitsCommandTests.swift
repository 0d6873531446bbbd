import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
import TestSupport

/// `vaultctl recover` rebuilds a lost vault from the copy a paired keeper holds (SECURITY.md §13.6):
/// like `restore-backup`, it rewinds this device's records of every project to the copy, so its
/// projects wait, view-only, for a completed pull from every device that may hold the later ones
/// (§19.10; `RestoredWaits.mark` in the recovery's transaction). restore14 left this path without a
/// test of its own: here a laptop pushes its copy to the desk, writes again and syncs that with the
/// tablet only; recovered from the desk's copy, it syncs with the desk and is refused a write naming
/// the tablet (a change then would sign again the number the tablet holds: a fork for good); after
/// the tablet's pull it writes, and all three converge with no fork.
@Suite(.serialized)
struct RecoveredVaultWaitsCommandTests {
    @Test func aRecoveredLaptopWaitsForTheTabletThatHoldsItsLaterRecordThenAllThreeConverge() throws {
        let desk = try CLIVault(), tablet = try CLIVault(), laptop = try CLIVault()
        try RestoredOwnRecordsCommandTests.pair(desk, laptop)
        try RestoredOwnRecordsCommandTests.pair(tablet, laptop)
        try RestoreWaitsForEveryDeviceCommandTests.run(laptop, ["project", "create", "Memo", "--register", "general"])
        try RestoreWaitsForEveryDeviceCommandTests.run(laptop, ["doc", "add", "Memo", "Draft"])
        try RestoreWaitsForEveryDeviceCommandTests.run(laptop, ["doc", "write", "Memo", "Draft"], stdin: "First paragraph.\n")
        try ForkedColleagueCommandTests.synced(laptop, with: desk)
        try ForkedColleagueCommandTests.synced(laptop, with: tablet)
        // The desk keeps the laptop's copy; the laptop writes again, and only the tablet takes it.
        let (daemon, address) = try ServeChannelTests.serve(desk)
        let pushed = try laptop.run(["recover", "push", "--peer", try PeersCommandTests.fingerprint(desk), "--address", address])
        kill(daemon.process.processIdentifier, SIGTERM)
        daemon.process.waitUntilExit()
        try #require(pushed.status == 0, "\(pushed.stdout) \(pushed.stderr)")
        try RestoreWaitsForEveryDeviceCommandTests.run(laptop, ["doc", "write", "Memo", "Draft"],
                                                       stdin: "First paragraph.\n\nSecond, only the tablet got it.\n")
        try ForkedColleagueCommandTests.synced(laptop, with: tablet)

        // The laptop is lost; a fresh machine recovers it from the desk's copy.
        let running = try CLI.start(["recover", "host", "--peer", try PeersCommandTests.fingerprint(laptop), "--address", "127.0.0.1:0",
                                     "--vault", desk.directory, "--passphrase-file", desk.passphraseFile])
        let (code, hostAddress) = try Self.codeAndAddress(running)
        let recovered = try CLIVault(create: false)
        let output = try CLI.run(["recover", "--address", hostAddress, "--into", recovered.directory, "--code-file", "-",
                                  "--passphrase-file", recovered.passphraseFile], stdin: code + "\n")
        running.process.waitUntilExit()
        try #require(output.status == 0, "\(output.stdout) \(output.stderr)")
        #expect(output.stdout.contains("until this vault has synced with each device that may hold this device's records"), "\(output.stdout)")
        #expect(output.stdout.contains("The backup trusted 2 device(s) as your own"), "\(output.stdout)")
        let status = try recovered.run(["sync", "status"])
        #expect(status.stdout.contains("VIEW-ONLY since the restore"), "\(status.stdout)")

        try RestoredOwnRecordsCommandTests.confirm(desk, on: recovered)
        try RestoredOwnRecordsCommandTests.confirm(tablet, on: recovered)
        // The desk lacks the laptop's later record: its pull does not end the wait.
        try ForkedColleagueCommandTests.synced(recovered, with: desk)
        try RestoreWaitsForEveryDeviceCommandTests.expectRefusedNaming(recovered, "Memo", "Draft", device: tablet,
                                                                       words: RestoreWaitsForEveryDeviceCommandTests.restoredWords)
        try ForkedColleagueCommandTests.synced(recovered, with: tablet)
        #expect(try RestoreWaitsForEveryDeviceCommandTests.show(recovered, "Memo", "Draft").contains("Second, only the tablet got it."))
        let written = try recovered.run(["doc", "write", "Memo", "Draft"], stdin: RestoreWaitsForEveryDeviceCommandTests.restoredWords)
        #expect(written.status == 0, "\(written.status): \(written.stderr)")
        for device in [tablet, desk] { try ForkedColleagueCommandTests.synced(recovered, with: device) }
        let shows = try [recovered, tablet, desk].map { try RestoreWaitsForEveryDeviceCommandTests.show($0, "Memo", "Draft") }
        #expect(shows.allSatisfy { $0 == RestoreWaitsForEveryDeviceCommandTests.restoredWords }, "laptop, tablet, desk: \(shows)")
        try RestoreWaitsForEveryDeviceCommandTests.expectNoFork([recovered, tablet, desk])
    }

    /// The code and address `recover host` printed.
    static func codeAndAddress(_ running: CLI.Running) throws -> (String, String) {
        for _ in 0..<400 {
            let lines = String(decoding: FileManager.default.contents(atPath: running.outputPath) ?? Data(), as: UTF8.self).split(separator: "\n")
            if let code = lines.first(where: { $0.hasPrefix("Recovery code: ") })?.dropFirst(15),
               let listening = lines.first(where: { $0.hasPrefix("Listening on ") }),
               let address = listening.dropFirst(13).split(separator: ";").first {
                return (String(code), String(address))
            }
            guard running.process.isRunning else { break }
            Thread.sleep(forTimeInterval: 0.05)
        }
        kill(running.process.processIdentifier, SIGKILL)
        throw CLIError(message: "recover host printed no code: \(running.result().stderr)")
    }
}
