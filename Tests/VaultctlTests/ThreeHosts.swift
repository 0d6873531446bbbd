import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Three hosts for sync tests between three devices (issue 17): three network namespaces, each pair
/// joined by a veth pair of its own (a cable between two machines), so the link between two
/// specific hosts can be cut and restored while both keep their link to the third. Pair k of
/// (0,1), (0,2), (1,2) is the subnet 10.196.(base+k).0/24, the lower host .1 and the other .2; no
/// namespace forwards, so a cut pair has no other way to each other. Needs root and iproute2
/// (`TwoHosts.available`); there is no loopback stand-in, since a link between two of three
/// processes on one host cannot be cut.
final class ThreeHosts {
    static let pairs = [(0, 1), (0, 2), (1, 2)]

    private let suffix = String(UUID().uuidString.prefix(6)).lowercased()
    private let base = Int.random(in: 0...84) * 3
    /// Whether each pair's link is up, by pair index.
    private(set) var linked = [true, true, true]

    init() throws {
        if let reason = TwoHosts.namespaceFailure() { throw CLIError(message: "the three hosts' network namespaces could not be made: \(reason)") }
        guard createNetwork() else {
            removeNetwork()
            throw CLIError(message: "the three hosts' network namespaces could not be set up")
        }
    }

    deinit { removeNetwork() }

    var description: String {
        "three network namespaces, each pair joined by its own veth pair (10.196.\(base).0/24, .\(base + 1), .\(base + 2))"
    }

    /// The index of the pair of hosts `a` and `b` in `pairs`.
    static func pair(_ a: Int, _ b: Int) -> Int {
        pairs.firstIndex { $0 == (min(a, b), max(a, b)) }!
    }

    /// Where `host` answers `other`: its address on their link.
    func address(of host: Int, for other: Int) -> String {
        "10.196.\(base + Self.pair(host, other)).\(host < other ? 1 : 2)"
    }

    /// Starts vaultctl on `host`.
    func start(_ host: Int, _ arguments: [String]) throws -> CLI.Running {
        try CLI.start(["netns", "exec", namespace(host), CLI.binary] + arguments, executable: TwoHosts.ip)
    }

    /// Cuts the link between `a` and `b` (both ends down), or restores it. True when iproute2 did it.
    @discardableResult
    func setLink(_ a: Int, _ b: Int, up: Bool) -> Bool {
        let pair = Self.pair(a, b)
        let done = [a, b].allSatisfy { TwoHosts.runIP(["-n", namespace($0), "link", "set", link(pair, end: $0), up ? "up" : "down"]) == 0 }
        if done { linked[pair] = up }
        return done
    }

    func isLinked(_ a: Int, _ b: Int) -> Bool { linked[Self.pair(a, b)] }

    private func namespace(_ host: Int) -> String { "sv3h\(host)-" + suffix }
    /// Pair k's end on `host` ("t" + pair + end + suffix: 9 characters, under the 15 allowed).
    private func link(_ pair: Int, end host: Int) -> String { "t\(pair)\(host)" + suffix }

    private func createNetwork() -> Bool {
        var steps = (0..<3).map { ["netns", "add", namespace($0)] }
        for (index, (a, b)) in Self.pairs.enumerated() {
            steps.append(["link", "add", link(index, end: a), "type", "veth", "peer", "name", link(index, end: b)])
            for host in [a, b] {
                let other = host == a ? b : a
                steps += [["link", "set", link(index, end: host), "netns", namespace(host)],
                          ["-n", namespace(host), "addr", "add", address(of: host, for: other) + "/24", "dev", link(index, end: host)],
                          ["-n", namespace(host), "link", "set", link(index, end: host), "up"]]
            }
        }
        steps += (0..<3).map { ["-n", namespace($0), "link", "set", "lo", "up"] }
        return steps.allSatisfy { TwoHosts.runIP($0) == 0 }
    }

    private func removeNetwork() {
        for host in 0..<3 { TwoHosts.runIP(["netns", "delete", namespace(host)]) }
    }
}
