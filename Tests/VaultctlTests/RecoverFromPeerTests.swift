import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing

/// Whole-vault recovery from a paired keeper (SECURITY.md §13.6), with real vaultctl processes on
/// loopback: `recover push` to the keeper's `serve`, `recover host` on the keeper, `recover --from`
/// on a fresh machine.
@Suite(.serialized)
struct RecoverFromPeerTests {
    /// `recover host` running, with the code and address it printed.
    struct Host {
        let running: CLI.Running
        let code: String
        let address: String

        func finish() -> CLI.Result {
            running.process.waitUntilExit()
            return running.result()
        }
    }

    /// A laptop with one stored file, paired with a desk whose daemon serves the channel.
    struct Owner {
        let desk: CLIVault
        let laptop: CLIVault
        let bundleID: String
        let contents: String
        let deskID: String
        let laptopID: String
    }

    static func owner() throws -> Owner {
        let (desk, laptop) = try PeersCommandTests.pairedVaults()
        let contents = "chart of 2 December: seen at 09:10, next visit in a week\n"
        let bundleID = try ReplicationCommandTests.laptopWithAFile(laptop, contents: contents)
        return Owner(desk: desk, laptop: laptop, bundleID: bundleID, contents: contents,
                     deskID: try PeersCommandTests.fingerprint(desk), laptopID: try PeersCommandTests.fingerprint(laptop))
    }

    /// Runs `body` with the desk's daemon serving the channel at the address it passes, then stops it.
    static func withKeeperServing(_ owner: Owner, _ body: (String) throws -> Void) throws {
        let (daemon, address) = try ServeChannelTests.serve(owner.desk)
        defer {
            kill(daemon.process.processIdentifier, SIGTERM)
            daemon.process.waitUntilExit()
        }
        try body(address)
    }

    static func push(_ owner: Owner, _ address: String, _ extra: [String] = []) throws -> CLI.Result {
        try owner.laptop.run(["recover", "push", "--peer", owner.deskID, "--address", address, "--json"] + extra)
    }

    /// An owner whose desk keeps a copy of the laptop's vault, pushed while the desk served.
    static func ownerWithKeptCopy() throws -> Owner {
        let owner = try Self.owner()
        try Self.withKeeperServing(owner) { address in
            let pushed = try Self.push(owner, address)
            #expect(pushed.status == 0, "\(pushed.stderr)")
        }
        return owner
    }

    /// Returns once the wall clock's second has changed (audit entries carry whole seconds).
    static func waitForTheNextSecond() {
        let start = Int(Date().timeIntervalSince1970)
        while Int(Date().timeIntervalSince1970) == start { usleep(20_000) }
    }

    /// A code of the right form that is not `code`: its first character changed.
    static func wrong(_ code: String) -> String {
        code.hasPrefix("2") ? "3" + code.dropFirst() : "2" + code.dropFirst()
    }

    /// With --json the code and address are on stderr (stdout carries the JSON document alone).
    static func startHost(_ owner: Owner, json: Bool = false) throws -> Host {
        let running = try CLI.start(["recover", "host", "--peer", owner.laptopID, "--address", "127.0.0.1:0",
                                     "--vault", owner.desk.directory, "--passphrase-file", owner.desk.passphraseFile] + (json ? ["--json"] : []))
        for _ in 0..<400 {
            let shown = json ? running.errorPath : running.outputPath
            let lines = String(decoding: FileManager.default.contents(atPath: shown) ?? Data(), as: UTF8.self).split(separator: "\n")
            if let code = lines.first(where: { $0.hasPrefix("Recovery code: ") })?.dropFirst(15),
               let listening = lines.first(where: { $0.hasPrefix("Listening on ") }),
               let address = listening.dropFirst(13).split(separator: ";").first {
                return Host(running: running, code: String(code), address: String(address))
            }
            guard running.process.isRunning else { break }
            Thread.sleep(forTimeInterval: 0.05)
        }
        kill(running.process.processIdentifier, SIGKILL)
        throw CLIError(message: "recover host printed no code: \(running.result().stderr)")
    }

    /// `recover --from` on a fresh machine: no vault, only the passphrase file; the code on stdin.
    /// `--from` is the spelling, the same option as `--address` (the help's).
    static func recover(_ owner: Owner, from address: String, code: String, into target: String, _ extra: [String] = [],
                        addressOption: String = "--from") throws -> CLI.Result {
        try CLI.run(["recover", addressOption, address, "--into", target, "--code-file", "-", "--passphrase-file", owner.laptop.passphraseFile] + extra,
                    stdin: code + "\n")
    }

    static func actions(_ vault: CLIVault, directory: String? = nil) throws -> [String] {
        let log = try CLI.run(["audit", "log", "--json", "--vault", directory ?? vault.directory, "--passphrase-file", vault.passphraseFile])
        let entries = try #require(try JSONSerialization.jsonObject(with: Data(log.stdout.utf8)) as? [[String: Any]], "\(log.stderr)")
        return entries.compactMap { $0["action"] as? String }
    }

    static func keptCopies(_ owner: Owner) throws -> [String] {
        let folder = owner.desk.directory + "/vaultcopies"
        return try FileManager.default.contentsOfDirectory(atPath: folder).flatMap { source in
            try FileManager.default.contentsOfDirectory(atPath: folder + "/" + source).filter { $0.hasSuffix(".vaultbackup") }
                .map { folder + "/" + source + "/" + $0 }
        }
    }

    @Test("a lost laptop is rebuilt from the copy its paired desk keeps: push, the folder deleted, recover --from with the code; it opens with the passphrase, its audit log verifies and shows the recovery, the file reads back byte for byte, and both sides audited")
    func aLostVaultIsRebuiltFromItsKeeper() throws {
        let owner = try Self.owner()
        try Self.withKeeperServing(owner) { address in
            let pushed = try Self.push(owner, address)
            #expect(pushed.status == 0, "\(pushed.stderr)")
            let report = try ReplicationCommandTests.json(pushed)
            #expect(report["sent"] as? Bool == true)
        }
        let sent = try Self.actions(owner.laptop)
        let decision = try #require(sent.lastIndex(of: "egress.decision"))
        let sentAt = try #require(sent.firstIndex(of: "vaultcopy.send"))
        #expect(decision < sentAt)
        #expect(try Self.actions(owner.desk).contains("vaultcopy.receive"))
        #expect(try Self.keptCopies(owner).count == 1)

        try FileManager.default.removeItem(atPath: owner.laptop.directory)
        let target = owner.laptop.root + "/rebuilt"
        let host = try Self.startHost(owner, json: true)
        defer { kill(host.running.process.processIdentifier, SIGKILL) }
        let recovered = try Self.recover(owner, from: host.address, code: host.code, into: target, ["--json"], addressOption: "--address")
        #expect(recovered.status == 0, "\(recovered.stderr)")
        let rebuilt = try ReplicationCommandTests.json(recovered)
        #expect(rebuilt["vault"] as? String == target && rebuilt["bundles"] as? Int == 1 && JSONOutputTests.badKeys(rebuilt).isEmpty, "\(rebuilt)")
        let hosted = host.finish()
        #expect(hosted.status == 0, "\(hosted.stderr)")
        let handed = try ReplicationCommandTests.json(hosted)
        // Both sides name the same copy: the SHA-256 the keeper sent is the one the new machine checked.
        #expect(handed["sha256"] as? String == rebuilt["sha256"] as? String && handed["recipient"] is String
                && JSONOutputTests.badKeys(handed).isEmpty, "\(handed)")

        let verified = try CLI.run(["audit", "verify", "--vault", target])
        #expect(verified.status == 0, "\(verified.stdout) \(verified.stderr)")
        let fetched = owner.laptop.root + "/fetched"
        let get = try CLI.run(["get", owner.bundleID, "-o", fetched, "--vault", target, "--passphrase-file", owner.laptop.passphraseFile])
        #expect(get.status == 0, "\(get.stderr)")
        #expect(FileManager.default.contents(atPath: fetched) == Data(owner.contents.utf8))
        #expect(try Self.actions(owner.laptop, directory: target).contains("vault.recover"))
        #expect(try Self.actions(owner.desk).contains("vaultcopy.handover"))
    }

    @Test("a wrong recovery code is refused with its reason (the code is wrong), counts against the code and is audited on the keeper; the right code still works afterwards")
    func aWrongCodeIsRefused() throws {
        let owner = try Self.ownerWithKeptCopy()
        let host = try Self.startHost(owner)
        defer { kill(host.running.process.processIdentifier, SIGKILL) }
        let wrongCode = Self.wrong(host.code)
        let target = owner.laptop.root + "/rebuilt"
        let refused = try Self.recover(owner, from: host.address, code: wrongCode, into: target)
        #expect(refused.status == 2, "\(refused.stderr)")
        #expect(refused.stderr.contains("the keeper refused the recovery: the code is wrong"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: target))

        let recovered = try Self.recover(owner, from: host.address, code: host.code, into: target)
        #expect(recovered.status == 0, "\(recovered.stderr)")
        let hosted = host.finish()
        #expect(hosted.stderr.contains("recovery attempt from 127.0.0.1"), "\(hosted.stderr)")
        let keeper = try Self.actions(owner.desk)
        #expect(keeper.filter { $0 == "vaultcopy.handover-failed" }.count == 1 && keeper.contains("vaultcopy.handover"))
    }

    @Test("a lost device's pairing revoked on the keeper after its copy was kept: recover host still hands the copy over by its fingerprint")
    func aRevokedDevicesCopyIsStillHandedOver() throws {
        let owner = try Self.ownerWithKeptCopy()
        let revoked = try owner.desk.run(["peers", "revoke", "--peer", owner.laptopID])
        #expect(revoked.status == 0, "\(revoked.stderr)")
        let host = try Self.startHost(owner)
        defer { kill(host.running.process.processIdentifier, SIGKILL) }
        let recovered = try Self.recover(owner, from: host.address, code: host.code, into: owner.laptop.root + "/rebuilt")
        #expect(recovered.status == 0, "\(recovered.stderr)")
        #expect(host.finish().status == 0)
    }

    @Test("three wrong codes kill the recovery code: the keeper stops (exit 2, the code is dead) with three failures audited, and hands nothing over")
    func threeWrongCodesKillTheCode() throws {
        let owner = try Self.ownerWithKeptCopy()
        let host = try Self.startHost(owner)
        defer { kill(host.running.process.processIdentifier, SIGKILL) }
        let wrongCode = Self.wrong(host.code)
        for _ in 0..<3 {
            let refused = try Self.recover(owner, from: host.address, code: wrongCode, into: owner.laptop.root + "/rebuilt")
            #expect(refused.status == 2 && refused.stderr.contains("the code is wrong"), "\(refused.stderr)")
        }
        let hosted = host.finish()
        #expect(hosted.status == 2 && hosted.stderr.contains("the recovery code failed 3 times and is dead"), "\(hosted.stderr)")
        let keeper = try Self.actions(owner.desk)
        #expect(keeper.filter { $0 == "vaultcopy.handover-failed" }.count == 3 && !keeper.contains("vaultcopy.handover"))
    }

    @Test("a copy altered on the keeper is refused at verify with its reason (a record does not match its SHA-256), and no vault is left in DIR")
    func aTamperedCopyIsRefused() throws {
        let owner = try Self.ownerWithKeptCopy()
        let kept = try #require(try Self.keptCopies(owner).first)
        let handle = try #require(FileHandle(forUpdatingAtPath: kept))
        let size = try handle.seekToEnd()
        // A byte of the last bundle's data: before its 32-byte digest and the 32-byte trailer.
        try handle.seek(toOffset: size - 80)
        let byte = try #require(try handle.read(upToCount: 1)).first!
        try handle.seek(toOffset: size - 80)
        try handle.write(contentsOf: [byte ^ 0x01])
        try handle.close()

        let host = try Self.startHost(owner)
        defer { kill(host.running.process.processIdentifier, SIGKILL) }
        let target = owner.laptop.root + "/rebuilt"
        let refused = try Self.recover(owner, from: host.address, code: host.code, into: target)
        #expect(refused.status == 65, "\(refused.stderr)")
        #expect(refused.stderr.contains("the backup is refused") && refused.stderr.contains("does not match its SHA-256 (altered)"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: target))
        #expect(try FileManager.default.contentsOfDirectory(atPath: owner.laptop.root).allSatisfy { !$0.hasPrefix(".re") })
    }

    @Test("a copy of another history is refused: the vault restored from an older backup and then changed offers a longer log that does not extend the kept one (vaultCopyRefused), and the kept copy stays")
    func anotherHistoryIsRefused() throws {
        let owner = try Self.owner()
        let older = owner.laptop.root + "/older.vaultbackup"
        #expect(try owner.laptop.run(["backup", "-o", older]).status == 0)
        let fork = owner.laptop.root + "/fork"
        let restored = try CLI.run(["restore-backup", older, "--into", fork, "--passphrase-file", owner.laptop.passphraseFile])
        #expect(restored.status == 0, "\(restored.stderr)")
        // The fork's first entry after the backup is its restore's vault.unlock; the laptop's is the
        // push's. Entries carry the time to the second, so two unlocks in one second are the same
        // entry and the fork would truly extend the kept log. A new second makes the histories differ.
        Self.waitForTheNextSecond()
        for index in 0..<8 {
            let created = try CLI.run(["compartment", "create", "Fork \(index)", "--register", "general", "--vault", fork,
                                       "--passphrase-file", owner.laptop.passphraseFile])
            #expect(created.status == 0, "\(created.stderr)")
        }
        try Self.withKeeperServing(owner) { address in
            let pushed = try Self.push(owner, address)
            #expect(pushed.status == 0, "\(pushed.stderr)")
            let kept = try Self.keptCopies(owner)
            // The fork has the same device keys, so the keeper knows it; its log is longer but another.
            let forked = try CLI.run(["recover", "push", "--peer", owner.deskID, "--address", address, "--vault", fork,
                                      "--passphrase-file", owner.laptop.passphraseFile])
            #expect(forked.status == 65, "\(forked.stderr)")
            #expect(forked.stderr.contains("does not extend the kept copy's (another history)"), "\(forked.stderr)")
            #expect(try Self.keptCopies(owner) == kept)
        }
    }

    @Test("the keeper replaces its copy only with a newer one: an older backup offered after a newer copy is refused as a rollback (vaultcopy.refuse on the keeper) and the newer copy stays")
    func anOlderCopyIsRefused() throws {
        let owner = try Self.owner()
        let older = owner.laptop.root + "/older.vaultbackup"
        #expect(try owner.laptop.run(["backup", "-o", older]).status == 0)
        try Self.withKeeperServing(owner) { address in
            #expect(try Self.push(owner, address).status == 0)
            let newer = try Self.keptCopies(owner)
            let rollback = try Self.push(owner, address, ["--file", older])
            #expect(rollback.status == 4, "\(rollback.stderr)")
            #expect(rollback.stderr.contains("is older and is refused (rollback)"), "\(rollback.stderr)")
            #expect(try Self.keptCopies(owner) == newer)
            // The same log again is not sent twice.
            let again = try Self.push(owner, address, ["--file", try #require(newer.first)])
            #expect(again.status == 0, "\(again.stderr)")
            let report = try ReplicationCommandTests.json(again)
            #expect(report["sent"] as? Bool == false)
        }
        #expect(try Self.actions(owner.desk).contains("vaultcopy.refuse"))
    }
}
