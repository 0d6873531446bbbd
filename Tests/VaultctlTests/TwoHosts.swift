import CryptoVault
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import TestSupport

/// Two hosts for tests of what crosses a network: two network namespaces joined by a veth pair
/// (10.199.N.1 and 10.199.N.2), made with iproute2 when the tests run as root; elsewhere both hosts
/// are this one, on loopback, and `description` says so.
final class TwoHosts {
    enum Side { case desk, laptop }

    let usesNamespaces: Bool
    private let suffix = String(UUID().uuidString.prefix(6)).lowercased()
    private let subnet = Int.random(in: 1...250)

    static let ip = "/usr/sbin/ip"

    /// Whether this machine lets the tests make network namespaces: root, iproute2, and a container
    /// that allows it.
    static var available: Bool { namespaceFailure() == nil }

    /// Root with iproute2, as CI runs the tests: there the tests that need network namespaces must
    /// make them, and fail with the reason when they cannot (`namespaced()`, `ThreeHosts`); they
    /// are skipped only elsewhere (`NetworkNamespaces.availableOrSaySkipped`).
    static var rootWithIPRoute2: Bool {
        getuid() == 0 && FileManager.default.isExecutableFile(atPath: ip)
    }

    /// Why this machine does not let the tests make a network namespace (iproute2's own words when it
    /// refused), or nil when it does.
    static func namespaceFailure() -> String? {
        guard rootWithIPRoute2 else { return "network namespaces need root and iproute2 at \(ip) (this is uid \(getuid()))" }
        let probe = "svprobe-\(getpid())"
        let (status, error) = runIPReporting(["netns", "add", probe])
        guard status == 0 else { return "'ip netns add' exited \(status): \(error)" }
        runIP(["netns", "delete", probe])
        return nil
    }

    /// Two hosts in network namespaces, for a test with no loopback stand-in: throws with the reason
    /// when they cannot be made (a failure, never a skip).
    static func namespaced() throws -> TwoHosts {
        if let reason = namespaceFailure() { throw CLIError(message: "the two hosts' network namespaces could not be made: \(reason)") }
        let hosts = TwoHosts()
        guard hosts.usesNamespaces else { throw CLIError(message: "the two hosts' network namespaces could not be made") }
        return hosts
    }

    init() {
        usesNamespaces = Self.available
        if usesNamespaces && !createNetwork() { fatalError("the network namespaces could not be set up") }
    }

    deinit {
        guard usesNamespaces else { return }
        for side in [Side.desk, .laptop] { _ = Self.runIP(["netns", "delete", namespace(side)]) }
    }

    var description: String {
        usesNamespaces ? "two network namespaces joined by a veth pair (\(address(.desk)) and \(address(.laptop)))"
                       : "loopback only (network namespaces need root and iproute2)"
    }

    func address(_ side: Side) -> String {
        guard usesNamespaces else { return "127.0.0.1" }
        return "10.199.\(subnet).\(side == .desk ? 1 : 2)"
    }

    /// Starts vaultctl on `side`'s host.
    func start(_ side: Side, _ arguments: [String]) throws -> CLI.Running {
        guard usesNamespaces else { return try CLI.start(arguments) }
        return try CLI.start(["netns", "exec", namespace(side), CLI.binary] + arguments, executable: Self.ip)
    }

    /// Runs vaultctl on `side`'s host on `vault`, unlocking it with its passphrase file.
    func run(_ side: Side, _ vault: CLIVault, _ arguments: [String]) throws -> CLI.Result {
        let running = try start(side, arguments + ["--vault", vault.directory, "--passphrase-file", vault.passphraseFile])
        running.process.waitUntilExit()
        return running.result()
    }

    /// Takes `side`'s end of the veth pair down (the link cut) or up again; false on loopback, where
    /// there is no link to cut.
    @discardableResult
    func setLink(_ side: Side, up: Bool) -> Bool {
        guard usesNamespaces else { return false }
        return Self.runIP(["-n", namespace(side), "link", "set", link(side), up ? "up" : "down"]) == 0
    }

    /// Gives each host a default route over its end of the link, so a broadcast to
    /// 255.255.255.255 (a LAN announcement) leaves by it and reaches the other host. A link taken down
    /// loses the route: call again after restoring it. False on loopback.
    @discardableResult
    func routeBroadcasts() -> Bool {
        guard usesNamespaces else { return false }
        return [Side.desk, .laptop].allSatisfy { Self.runIP(["-n", namespace($0), "route", "replace", "default", "dev", link($0)]) == 0 }
    }

    func namespace(_ side: Side) -> String { (side == .desk ? "svdesk-" : "svlap-") + suffix }
    private func link(_ side: Side) -> String { (side == .desk ? "vd" : "vl") + suffix }

    private func createNetwork() -> Bool {
        var steps: [[String]] = [["netns", "add", namespace(.desk)], ["netns", "add", namespace(.laptop)],
                                 ["link", "add", link(.desk), "type", "veth", "peer", "name", link(.laptop)]]
        for side in [Side.desk, .laptop] {
            steps += [["link", "set", link(side), "netns", namespace(side)],
                      ["-n", namespace(side), "addr", "add", address(side) + "/24", "dev", link(side)],
                      ["-n", namespace(side), "link", "set", link(side), "up"],
                      ["-n", namespace(side), "link", "set", "lo", "up"]]
        }
        return steps.allSatisfy { Self.runIP($0) == 0 }
    }

    /// `ip ARGUMENTS`: its exit status and what it wrote to stderr (-1 when it could not be started).
    static func runIPReporting(_ arguments: [String]) -> (status: Int32, error: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ip)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        let error = Pipe()
        process.standardError = error
        do { try process.run() } catch { return (-1, "\(error)") }
        let said = error.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: said, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    }

    @discardableResult
    static func runIP(_ arguments: [String]) -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ip)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return -1 }
        process.waitUntilExit()
        return process.terminationStatus
    }
}

extension CLI.Running {
    /// Waits for the process at most `seconds`, then kills it (the result then has SIGKILL's status).
    func finish(within seconds: Double) -> CLI.Result {
        let clock = VaultClock.system
        let end = clock.monotonic() + seconds
        while process.isRunning, clock.monotonic() < end { usleep(20_000) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        return result()
    }
}
