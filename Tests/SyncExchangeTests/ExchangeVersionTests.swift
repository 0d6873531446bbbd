import CryptoVault
import PeerChannel
@testable import Sync
import Testing
import TestSupport
import Writing

/// Version 2 of the exchange (attack review s7, A8; SECURITY.md §19.9): offers gained an origin and
/// a role's time, so a device of version 1 reads them at the wrong places. Each side refuses the
/// other's messages whole with the version named, and says so in its audit log.
@Suite(.serialized) struct ExchangeVersionTests {
    typealias F = SyncExchangeFixture

    /// An answerer of version 1: its projects answer offers one project in version 1's form (no
    /// origin, no role's time), and it answers anything else with its empty projects answer.
    final class VersionOneAnswerer: ChannelService {
        let project: ProjectID

        init(project: ProjectID) { self.project = project }

        var requestKinds: [String] { SyncWire.kinds }

        func respond(to kind: String, body: [UInt8], from peer: DeviceProfile) throws -> [UInt8] {
            guard kind == SyncWire.projectsKind else { return [1, 0, 0] }
            let register = Array("general".utf8), name = Array("Old".utf8)
            return [1, 0, 1] + project.bytes + [1, 0, 1, UInt8(register.count)] + register + [0, UInt8(name.count)] + name + [0, 0]
        }
    }

    @Test func aVersionOneRequestIsRefusedWholeNamingItsVersionAndRecordedSo() throws {
        let f = try F()
        let transport = try f.transport()
        let project = try F.project(f.desk, "Brief")
        let versionOne: [(String, [UInt8])] = [(SyncWire.projectsKind, [1]), (SyncWire.pullKind, [1] + project.id.bytes + [0, 0])]
        for (kind, body) in versionOne {
            do {
                _ = try transport.requestAsAnyPeer(kind, body: body)
                Issue.record("\(kind) of version 1 was answered")
            } catch let error as SyncExchangeError {
                #expect(error.code == .malformedMessage, "\(error)")
                #expect(error.message.contains("version 1 (the exchange before offers named an origin"), "\(error)")
                #expect(error.message.contains("this side speaks version 2 only"), "\(error)")
            }
        }
        let refused = f.desk.recording.events.withLock { events in
            events.filter { $0.action == .syncExchangeRefused }.map { Dictionary($0.details.map { ($0.name, $0.value) }, uniquingKeysWith: { a, _ in a }) }
        }
        #expect(refused.map { $0["request"] } == [SyncWire.projectsKind, SyncWire.pullKind], "\(refused)")
        #expect(refused.allSatisfy { $0["reason"] == "malformedMessage" && $0["version"] == "1" && $0["peer"] == f.laptopKeys.profile.deviceID.hex },
                "\(refused)")
        // A request of this version is answered as ever.
        #expect(try SyncProjectsPage(parsing: try transport.requestAsAnyPeer(SyncWire.projectsKind, body: [SyncWire.version])).offers.map(\.project) == [project.id])
    }

    @Test func aVersionOneAnswerEndsTheRunNamingItsVersionAndMakesNothing() throws {
        let project = try ProjectID.random()
        let f = try F(deskAnswers: VersionOneAnswerer(project: project))
        do {
            try f.syncLaptop()
            Issue.record("the laptop took an answer of version 1")
        } catch let error as SyncExchangeError {
            #expect(error.code == .malformedMessage && error.message.contains("version 1 (the exchange before offers named an origin"), "\(error)")
        }
        #expect(try !F.hasProject(f.laptop, project))
        #expect(F.details(f.laptop, .syncExchange, "error") == ["malformedMessage"])
    }
}
