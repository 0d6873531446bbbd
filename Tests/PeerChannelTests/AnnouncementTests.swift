import CryptoVault
import Dispatch
import Foundation
@testable import PeerChannel
import Testing

/// LAN announcements (SECURITY.md §9.10): the datagram byte by byte, a strict parser, and discovery
/// over loopback that lists each device once and ignores junk.
struct AnnouncementTests {
    static let deviceID = try! DeviceID(bytes: Array(0x10...0x1F))

    @Test func theDatagramIsLaidOutAsSpecified() throws {
        let announcement = try Announcement(deviceID: Self.deviceID, name: "desk", channelPort: 7421)
        #expect(announcement.serialized() == [0x53, 0x56, 0x50, 0x41, 0x01] + Self.deviceID.bytes + [0x1C, 0xFD, 0x04] + Array("desk".utf8))
        #expect(try Announcement(parsing: announcement.serialized()) == announcement)
        #expect(announcement.fingerprint == "10111213-14151617-18191a1b-1c1d1e1f")
    }

    @Test func aLongUTF8NameRoundTrips() throws {
        let name = String(repeating: "é", count: 32)
        let announcement = try Announcement(deviceID: Self.deviceID, name: name, channelPort: 1)
        #expect(announcement.serialized().count == Announcement.maximumLength)
        #expect(try Announcement(parsing: announcement.serialized()).name == name)
    }

    static var valid: [UInt8] { [0x53, 0x56, 0x50, 0x41, 0x01] + deviceID.bytes + [0x1C, 0xFD, 0x04] + Array("desk".utf8) }

    static func changed(_ change: (inout [UInt8]) -> Void) -> [UInt8] {
        var bytes = valid
        change(&bytes)
        return bytes
    }

    @Test(arguments: [
        [], Array(valid.prefix(24)), valid + [0x00],
        changed { $0[0] = 0x54 }, changed { $0[4] = 0x02 }, changed { $0[21] = 0; $0[22] = 0 },
        changed { $0[23] = 5 }, changed { $0[23] = 3 }, changed { $0[24] = 0xFF }, changed { $0[24] = 0x0A },
        [0x53, 0x56, 0x50, 0x41, 0x01] + deviceID.bytes + [0x1C, 0xFD, 65] + [UInt8](repeating: 0x61, count: 65),
    ])
    func aBadDatagramIsRefused(datagram: [UInt8]) {
        #expect(throws: PeerChannelError(.malformedAnnouncement, "")) { try Announcement(parsing: datagram) }
    }

    @Test func anInvalidAnnouncementCannotBeMade() {
        #expect(throws: PeerChannelError(.invalidConfiguration, "")) { try Announcement(deviceID: Self.deviceID, name: "desk", channelPort: 0) }
        #expect(throws: PeerChannelError(.invalidConfiguration, "")) { try Announcement(deviceID: Self.deviceID, name: "", channelPort: 1) }
    }

    /// A UDP port on loopback that nothing uses now.
    static func freeUDPPort() throws -> UInt16 {
        let descriptor = try SocketCalls.udpSocket()
        defer { SocketCalls.close(descriptor) }
        try SocketCalls.bindDatagram(descriptor, to: SocketAddress(host: "127.0.0.1", port: 0))
        return try SocketCalls.localAddress(descriptor).port
    }

    @Test func discoveryListsEachDeviceOnceAndIgnoresJunk() throws {
        let port = try Self.freeUDPPort()
        let listenAddress = SocketAddress(host: "127.0.0.1", port: port)
        let desk = try Announcement(deviceID: Self.deviceID, name: "desk", channelPort: 7421)
        let announcer = try Announcer(desk, destination: listenAddress, intervalSeconds: 0.1)
        let junk = try SocketCalls.udpSocket()
        defer { SocketCalls.close(junk) }
        let heard = Background { try Discovery.listen(on: listenAddress, seconds: 1.0) }
        usleep(100_000)
        announcer.start()
        for datagram in [[UInt8](repeating: 0x41, count: 30), [], Array(Self.valid.prefix(20)), [UInt8](repeating: 0, count: 1000)] {
            try SocketCalls.sendDatagram(junk, datagram, to: listenAddress)
        }
        let result = try heard.wait().get()
        announcer.stop()
        #expect(result == [Discovery.Heard(announcement: desk, channelAddress: SocketAddress(host: "127.0.0.1", port: 7421))])
    }

    @Test func discoveryCanStopAtTheDeviceItLooksFor() throws {
        let port = try Self.freeUDPPort()
        let listenAddress = SocketAddress(host: "127.0.0.1", port: port)
        let desk = try Announcement(deviceID: Self.deviceID, name: "desk", channelPort: 7421)
        let announcer = try Announcer(desk, destination: listenAddress, intervalSeconds: 0.1)
        let started = DispatchTime.now()
        let heard = Background { try Discovery.listen(on: listenAddress, seconds: 10) { $0.announcement.deviceID == Self.deviceID } }
        usleep(100_000)
        announcer.start()
        let result = try heard.wait().get()
        announcer.stop()
        #expect(result.map(\.announcement) == [desk])
        #expect(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds < 5_000_000_000)
    }
}
