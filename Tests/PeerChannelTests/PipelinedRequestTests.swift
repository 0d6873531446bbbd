import CryptoVault
import Foundation
@testable import PeerChannel
import Testing

/// Runs of requests with a bounded number unanswered (`ChannelRequesting.requests`, SECURITY.md §9.9):
/// answers in request order, the window used and never exceeded, and a failure in the middle that
/// leaves no answer behind for the next request to take as its own.
@Suite("Pipelined requests over the channel")
struct PipelinedRequestTests {
    /// Bodies of different lengths and contents, so that an answer given to the wrong request shows.
    static let bodies = (0..<40).map { index in (0..<(1 + index * 997 % 3000)).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ index) } }

    /// A run of `bodies` as "echo" requests: the answers by index, and the most requests that were
    /// unanswered at once (counting the one being made).
    static func echoRun(_ bodies: [[UInt8]], over channel: ChannelRequesting,
                        window: Int) throws -> (answers: [(index: Int, body: [UInt8])], mostUnanswered: Int) {
        var made = 0, mostUnanswered = 0
        var answers: [(index: Int, body: [UInt8])] = []
        try channel.requests("echo", window: window, bodies: {
            guard made < bodies.count else { return nil }
            made += 1
            mostUnanswered = max(mostUnanswered, made - answers.count)
            return bodies[made - 1]
        }) { index, answer in answers.append((index, answer)) }
        return (answers, mostUnanswered)
    }

    /// The next request on `client` gets its own answer: a ping echoes what it was sent.
    static func pingEchoes(_ client: ChannelClient, _ text: String) throws -> Bool {
        try PingService.parseAnswer(client.request(PingService.kind, body: Array(text.utf8))).echo == Array(text.utf8)
    }

    @Test("answers come back in request order, with exactly the window unanswered at most", arguments: 1...ChannelLimits.maximumRequestsInFlight)
    func answersInRequestOrder(window: Int) throws {
        let devices = try PairedDevices()
        let server = try RunningServer(devices.desk)
        let client = try server.client(devices.laptop, expecting: devices.desk.keys.profile)
        let run = try Self.echoRun(Self.bodies, over: client, window: window)
        #expect(run.answers.map(\.index) == Array(Self.bodies.indices))
        #expect(run.answers.map(\.body) == Self.bodies)
        #expect(run.mostUnanswered == window)
        #expect(try Self.pingEchoes(client, "after the run"))
    }

    @Test("a refusal in the middle of a window ends the run with the peer's code and text; the answers owed are read, so the next request gets its own")
    func refusalInTheMiddleOfAWindow() throws {
        let devices = try PairedDevices()
        // Requests 4 and 5 are refused: the run reports 4's refusal; 5 and 6 were already sent.
        let service = InterceptingService(TestService()) { kind, earlier, _ in
            if kind == "echo", earlier == 4 || earlier == 5 {
                throw PeerChannelError(.replicaQuotaExceeded, "request \(earlier) is over the quota")
            }
        }
        let server = try RunningServer(devices.desk, services: [service])
        let client = try server.client(devices.laptop, expecting: devices.desk.keys.profile)
        var made = 0
        var answered: [Int] = []
        let error = #expect(throws: PeerChannelError.self) {
            try client.requests("echo", window: 3, bodies: {
                guard made < 10 else { return nil }
                made += 1
                return [UInt8(made - 1)]
            }) { index, answer in
                #expect(answer == [UInt8(index)])
                answered.append(index)
            }
        }
        #expect(error?.code == .replicaQuotaExceeded)
        #expect(error?.message.contains("request 4 is over the quota") == true)
        #expect(answered == [0, 1, 2, 3])
        // Nothing was sent after the refusal was read: 4 and the window behind it.
        #expect(made == 7)
        #expect(try Self.pingEchoes(client, "after the refusal"))
        #expect(try client.request("echo", body: [42]) == [42])
        #expect(service.count(of: "echo") == 8)
    }

    /// What the caller's closures throw ends the run the same way, unchanged.
    struct CallerFailure: Error, Equatable {
        let index: Int
    }

    @Test("an error thrown while handling an answer or making a body ends the run as it is; the next request gets its own answer")
    func callerFailuresEndTheRun() throws {
        let devices = try PairedDevices()
        let server = try RunningServer(devices.desk)
        let client = try server.client(devices.laptop, expecting: devices.desk.keys.profile)
        var made = 0
        #expect(throws: CallerFailure(index: 2)) {
            try client.requests("echo", window: 4, bodies: {
                made += 1
                return [UInt8(made)]
            }) { index, _ in
                if index == 2 { throw CallerFailure(index: index) }
            }
        }
        #expect(made == 6)
        #expect(try Self.pingEchoes(client, "after a failed answer"))

        made = 0
        #expect(throws: CallerFailure(index: 3)) {
            try client.requests("echo", window: 4, bodies: {
                guard made < 3 else { throw CallerFailure(index: made) }
                made += 1
                return [UInt8(made)]
            }) { _, _ in }
        }
        #expect(try Self.pingEchoes(client, "after a failed body"))
    }

    @Test("a window outside 1 to the maximum is refused before any body is made", arguments: [0, -1, ChannelLimits.maximumRequestsInFlight + 1])
    func windowOutOfRange(window: Int) throws {
        let devices = try PairedDevices()
        let server = try RunningServer(devices.desk)
        let client = try server.client(devices.laptop, expecting: devices.desk.keys.profile)
        let inMemory = InMemoryChannel(from: devices.laptop.keys.profile, to: devices.desk.keys.profile, services: [TestService()])
        for channel in [client, inMemory] as [ChannelRequesting] {
            var made = 0
            #expect(throws: PeerChannelError(.invalidConfiguration, "")) {
                try channel.requests("echo", window: window, bodies: { made += 1; return [1] }) { _, _ in }
            }
            #expect(made == 0)
        }
    }

    @Test("a requester without a window of its own answers the run one request at a time, in order")
    func defaultIsOneAtATime() throws {
        let devices = try PairedDevices()
        let inMemory = InMemoryChannel(from: devices.laptop.keys.profile, to: devices.desk.keys.profile, services: [TestService()])
        let run = try Self.echoRun(Self.bodies, over: inMemory, window: ChannelLimits.maximumRequestsInFlight)
        #expect(run.answers.map(\.index) == Array(Self.bodies.indices))
        #expect(run.answers.map(\.body) == Self.bodies)
        #expect(run.mostUnanswered == 1)
    }
}
