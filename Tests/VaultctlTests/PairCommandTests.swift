import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing

/// `vaultctl pair host`, `pair join` and `peers list` between two vaults over loopback.
struct PairCommandTests {
    /// Whether this machine can listen on the IPv6 loopback (containers often have none).
    static var hasIPv6Loopback: Bool {
        let descriptor = socket(AF_INET6, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = sockaddr_in6()
        address.sin6_family = sa_family_t(AF_INET6)
        address.sin6_addr.__in6_u.__u6_addr8.15 = 1
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) == 0 }
        }
    }

    /// A running `pair host` with the code and address it printed.
    struct Host {
        let running: CLI.Running
        let code: String
        let address: String

        func finish() -> CLI.Result {
            running.process.waitUntilExit()
            return running.result()
        }

        func stderr() -> String {
            String(decoding: FileManager.default.contents(atPath: running.errorPath) ?? Data(), as: UTF8.self)
        }
    }

    static func startHost(_ vault: CLIVault, _ listen: [String] = ["--address", "127.0.0.1:0"]) throws -> Host {
        let running = try CLI.start(["pair", "host"] + listen + ["--vault", vault.directory, "--passphrase-file", vault.passphraseFile])
        // With --json the code and address are on stderr (stdout carries the JSON document alone).
        let shown = listen.contains("--json") ? running.errorPath : running.outputPath
        for _ in 0..<400 {
            let output = String(decoding: FileManager.default.contents(atPath: shown) ?? Data(), as: UTF8.self)
            let lines = output.split(separator: "\n")
            if let code = lines.first(where: { $0.hasPrefix("Pairing code: ") })?.dropFirst(14),
               let listening = lines.first(where: { $0.hasPrefix("Listening on ") }),
               let address = listening.dropFirst(13).split(separator: ";").first {
                return Host(running: running, code: String(code), address: String(address))
            }
            guard running.process.isRunning else { break }
            Thread.sleep(forTimeInterval: 0.05)
        }
        kill(running.process.processIdentifier, SIGKILL)
        throw CLIError(message: "pair host printed no code: \(running.result().stderr)")
    }

    static func join(_ vault: CLIVault, _ address: String, code: String, positional: Bool = false, extra: [String] = []) throws -> CLI.Result {
        let codeFile = vault.root + "/code"
        try vault.write(code + "\n", to: codeFile)
        return try vault.run(["pair", "join"] + (positional ? [address] : ["--address", address]) + ["--code-file", codeFile] + extra)
    }

    static func json(_ result: CLI.Result) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(result.stdout.utf8))
    }

    static func deviceID(_ vault: CLIVault) throws -> String {
        let identity = try #require(try json(try vault.run(["device", "--json"])) as? [String: Any])
        return try #require(identity["device_id"] as? String)
    }

    static func pairedIDs(_ vault: CLIVault) throws -> [String] {
        let pairings = try #require(try json(try vault.run(["peers", "list", "--json"], unlock: false)) as? [[String: Any]])
        return pairings.compactMap { ($0["peer"] as? [String: Any])?["device_id"] as? String }
    }

    @Test func twoVaultsPairAndEachListsTheOther() throws {
        let desk = try CLIVault(), laptop = try CLIVault()
        let host = try Self.startHost(desk)
        #expect(host.code.count == 11 && host.code.dropFirst(5).first == "-")
        let joined = try Self.join(laptop, host.address, code: host.code.lowercased())
        let hosted = host.finish()
        #expect(joined.status == 0, "\(joined.stderr)")
        #expect(hosted.status == 0, "\(hosted.stderr)")
        let deskID = try Self.deviceID(desk), laptopID = try Self.deviceID(laptop)
        #expect(try Self.pairedIDs(desk) == [laptopID] && Self.pairedIDs(laptop) == [deskID])
        #expect(joined.stdout.contains("Paired with ") && hosted.stdout.contains("Paired with "))
        let listed = try laptop.run(["peers", "list"], unlock: false)
        #expect(listed.stdout.contains("joined"))
        let log = try desk.run(["audit", "log", "--json", "--action", "peer"])
        let actions = try #require(try Self.json(log) as? [[String: Any]]).compactMap { $0["action"] as? String }
        #expect(actions == ["peer.pair", "peer.trust"])
        // Without --trust and without a terminal, each side records the other as someone else's.
        #expect(hosted.stderr.contains("recorded as someone else's") && joined.stderr.contains("recorded as someone else's"))
        let trusted = try #require(try Self.json(try desk.run(["peers", "list", "--json"], unlock: false)) as? [[String: Any]])
        #expect(trusted.map { $0["trust"] as? String } == ["other"])
    }

    static func deviceName(_ vault: CLIVault) throws -> String? {
        try #require(try json(try vault.run(["device", "--json"], unlock: false)) as? [String: Any])["name"] as? String
    }

    @Test("pair host --name and pair join --name name each device for itself: 'device' shows its own name, the other side's 'peers list' the name it was given, both recorded in the audit log")
    func eachSideNamesItselfAtPairing() throws {
        let desk = try CLIVault(), laptop = try CLIVault()
        // The laptop already has its keys under the host's name (as both machines would): --name renames it.
        let before = try laptop.run(["device", "--json"])
        #expect(before.status == 0, "\(before.stderr)")
        let host = try Self.startHost(desk, ["--address", "127.0.0.1:0", "--name", "front desk"])
        let codeFile = laptop.root + "/code"
        try laptop.write(host.code + "\n", to: codeFile)
        let joined = try laptop.run(["pair", "join", "--address", host.address, "--code-file", codeFile, "--name", "laptop"])
        let hosted = host.finish()
        #expect(joined.status == 0 && hosted.status == 0, "\(joined.stderr) \(hosted.stderr)")
        #expect(!joined.stderr.contains("both devices are named") && !hosted.stderr.contains("both devices are named"))
        #expect(joined.stdout.contains("Paired with front desk") && hosted.stdout.contains("Paired with laptop"), "\(joined.stdout) \(hosted.stdout)")

        #expect(try Self.deviceName(desk) == "front desk" && Self.deviceName(laptop) == "laptop")
        let deskPeers = try #require(try Self.json(try desk.run(["peers", "list", "--json"], unlock: false)) as? [[String: Any]])
        let laptopPeers = try #require(try Self.json(try laptop.run(["peers", "list", "--json"], unlock: false)) as? [[String: Any]])
        #expect(deskPeers.compactMap { ($0["peer"] as? [String: Any])?["name"] as? String } == ["laptop"])
        #expect(laptopPeers.compactMap { ($0["peer"] as? [String: Any])?["name"] as? String } == ["front desk"])
        #expect(try laptop.run(["peers", "list"], unlock: false).stdout.hasPrefix("front desk  "))

        // Each vault's keys were made by init, under the host's name; each pairing renamed them to the chosen one.
        func details(_ vault: CLIVault, _ action: String) throws -> [[String: String]] {
            let log = try #require(try Self.json(try vault.run(["audit", "log", "--json", "--details", "--action", action])) as? [[String: Any]])
            return log.compactMap { $0["details"] as? [String: String] }
        }
        #expect(try details(desk, "device.create").count == 1)
        #expect(try details(desk, "device.rename").map { $0["name"] } == ["front desk"])
        #expect(try details(laptop, "device.rename").map { $0["name"] } == ["laptop"])
        #expect(try details(desk, "peer.pair").map { $0["name"] } == ["laptop"])
        #expect(try details(laptop, "peer.pair").map { $0["name"] } == ["front desk"])
    }

    @Test("without --name both machines keep the host's name, and pairing says so and how to tell them apart")
    func sameNamesArePointedOut() throws {
        let desk = try CLIVault(), laptop = try CLIVault()
        let host = try Self.startHost(desk)
        let joined = try Self.join(laptop, host.address, code: host.code)
        let hosted = host.finish()
        #expect(joined.status == 0 && hosted.status == 0, "\(joined.stderr)")
        #expect(joined.stderr.contains("both devices are named") && joined.stderr.contains("--name NAME"), "\(joined.stderr)")
        #expect(hosted.stderr.contains("both devices are named"), "\(hosted.stderr)")
    }

    @Test("a --name that is too long, has a control, format or no-break character, or an outer space is refused (64) with the reason, before any connection and leaving the name as it was",
          arguments: [
              (String(repeating: "n", count: 65), "1 to 64 bytes"), ("", "1 to 64 bytes"),
              ("desk\u{7}", "U+0007"), ("desk\nlaptop", "U+000A"), ("desk\u{202E}kpot", "U+202E"), ("desk\u{200B}", "U+200B"),
              ("desk\u{00A0}2", "U+00A0"), ("desk\u{2028}", "U+2028"), (" desk", "begin or end with a space"), ("desk ", "begin or end with a space"),
          ])
    func badNamesAreRefused(name: String, reason: String) throws {
        let laptop = try CLIVault()
        #expect(try laptop.run(["device"]).status == 0)
        let original = try Self.deviceName(laptop)
        let joined = try Self.join(laptop, "127.0.0.1:9", code: "7KQ2M-X9D4R", extra: ["--name", name])
        #expect(joined.status == 64 && joined.stderr.contains(reason) && !joined.stderr.contains("connect"), "\(joined.stderr)")
        let hosted = try laptop.run(["pair", "host", "--address", "127.0.0.1:0", "--name", name])
        #expect(hosted.status == 64 && hosted.stderr.contains(reason) && !hosted.stdout.contains("Pairing code"), "\(hosted.stderr)")
        #expect(try Self.deviceName(laptop) == original)
        let renamed = try laptop.run(["device", "rename", try #require(original), name])
        #expect(renamed.status == 64 && renamed.stderr.contains(reason), "device rename checks names the same way: \(renamed.stderr)")
    }

    @Test func aWrongCodeFailsOnBothSidesAndTheHostWaitsForTheRightOne() throws {
        let desk = try CLIVault(), laptop = try CLIVault()
        let host = try Self.startHost(desk)
        let wrongCode = String(host.code.prefix(10)) + (host.code.last == "0" ? "1" : "0")
        let wrong = try Self.join(laptop, host.address, code: wrongCode)
        #expect(wrong.status == 2 && wrong.stderr.contains("the code is wrong"), "\(wrong.stderr)")
        #expect(host.running.process.isRunning && host.stderr().contains("failed: the joining device used another code"))
        #expect(try Self.pairedIDs(laptop).isEmpty && Self.pairedIDs(desk).isEmpty)

        let right = try Self.join(laptop, host.address, code: host.code)
        #expect(right.status == 0 && host.finish().status == 0)
        #expect(try Self.pairedIDs(laptop) == [Self.deviceID(desk)])
    }

    @Test func threeWrongAttemptsKillTheCodeAndEndTheHost() throws {
        let desk = try CLIVault(), laptop = try CLIVault()
        let host = try Self.startHost(desk)
        for guess in ["AAAAA-AAAAA", "BBBBB-BBBBB", "CCCCC-CCCCC"] where guess != host.code {
            #expect(try Self.join(laptop, host.address, code: guess).status == 2)
        }
        let hosted = host.finish()
        #expect(hosted.status == 2 && hosted.stderr.contains("failed 3 times and is dead"), "\(hosted.stderr)")
        let late = try Self.join(laptop, host.address, code: host.code)
        #expect(late.status == 74 && late.stderr.contains("connect"))
        #expect(try Self.pairedIDs(desk).isEmpty && Self.pairedIDs(laptop).isEmpty)
    }

    @Test func aHostileClientIsRefusedWithTheReasonAndLeavesNoPairing() throws {
        let desk = try CLIVault()
        let host = try Self.startHost(desk)
        let parts = host.address.split(separator: ":")
        let attack = try CLI.start(["-c", "printf '\\377\\377hello' > /dev/tcp/\(parts[0])/\(parts[1])"], executable: "/bin/bash")
        attack.process.waitUntilExit()
        for _ in 0..<100 where !host.stderr().contains("failed") { Thread.sleep(forTimeInterval: 0.05) }
        #expect(host.stderr().contains("announced a frame of 65535 bytes"), "\(host.stderr())")
        #expect(host.running.process.isRunning)
        // SIGKILL: a child of the test runner may inherit a mask that blocks SIGTERM.
        kill(host.running.process.processIdentifier, SIGKILL)
        _ = host.finish()
        #expect(try Self.pairedIDs(desk).isEmpty)
    }

    @Test func theCodeIsNeverTakenFromTheCommandLineAndAMistypedOneIsRefusedLocally() throws {
        let laptop = try CLIVault()
        let inArgv = try laptop.run(["pair", "join", "127.0.0.1:9", "7KQ2M-X9D4R"])
        #expect(inArgv.status == 64)
        let mistyped = try Self.join(laptop, "127.0.0.1:9", code: "7KQ2M-X9D4")
        #expect(mistyped.status == 64 && mistyped.stderr.contains("a pairing code is 10 letters and digits"))
        let badAddress = try Self.join(laptop, "[::1]9", code: "7KQ2M-X9D4R")
        #expect(badAddress.status == 64 && badAddress.stderr.contains("is not an ADDR:PORT with an IPv4 address, an IPv6 address in brackets"),
                "\(badAddress.stderr)")
        let unbracketed = try Self.join(laptop, "::1:9", code: "7KQ2M-X9D4R")
        #expect(unbracketed.status == 64 && unbracketed.stderr.contains("in brackets before the port, as in [::1]:7420"), "\(unbracketed.stderr)")
    }

    @Test("two vaults pair over the IPv6 loopback: the host listens on [::1] and prints it so, the joiner connects to it",
          .enabled(if: hasIPv6Loopback, "this machine has no IPv6 loopback (::1): pairing over IPv6 is skipped"))
    func pairingOverIPv6() throws {
        let desk = try CLIVault(), laptop = try CLIVault()
        let host = try Self.startHost(desk, ["--address", "[::1]:0"])
        #expect(host.address.hasPrefix("[::1]:"), "\(host.address)")
        let joined = try Self.join(laptop, host.address, code: host.code)
        #expect(joined.status == 0, "\(joined.stderr)")
        #expect(host.finish().status == 0)
        #expect(try Self.pairedIDs(laptop) == [Self.deviceID(desk)] && Self.pairedIDs(desk) == [Self.deviceID(laptop)])
    }

    @Test("a host name works where an address is taken: pair host listens on localhost:0 and pair join connects to localhost:PORT")
    func pairingByHostName() throws {
        let desk = try CLIVault(), laptop = try CLIVault()
        let host = try Self.startHost(desk, ["--address", "localhost:0"])
        let port = try #require(host.address.split(separator: ":").last)
        let joined = try Self.join(laptop, "localhost:\(port)", code: host.code)
        #expect(joined.status == 0 && host.finish().status == 0, "\(joined.stderr)")
        #expect(try Self.pairedIDs(laptop) == [Self.deviceID(desk)])
    }

    @Test("the older spellings still work: 'pair host --listen' and the address as pair join's argument; both forms at once are refused")
    func olderSpellingsStillWork() throws {
        let desk = try CLIVault(), laptop = try CLIVault()
        let host = try Self.startHost(desk, ["--listen", "127.0.0.1:0"])
        let joined = try Self.join(laptop, host.address, code: host.code, positional: true)
        #expect(joined.status == 0 && host.finish().status == 0, "\(joined.stderr)")
        #expect(try Self.pairedIDs(laptop) == [Self.deviceID(desk)])
        let both = try laptop.run(["pair", "join", "127.0.0.1:9", "--address", "127.0.0.1:9"])
        #expect(both.status == 64 && both.stderr.contains("give the address once, as --address ADDR:PORT"), "\(both.stderr)")
        let neither = try laptop.run(["pair", "join"])
        #expect(neither.status == 64 && neither.stderr.contains("missing --address"), "\(neither.stderr)")
        let help = try CLI.run(["pair", "host", "--help"]).stdout
        #expect(help.contains("--address ADDR:PORT") && !help.contains("--listen"), "the help shows the one name: \(help)")
    }
}
