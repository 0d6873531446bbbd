import CryptoVault
import Foundation
@testable import PeerChannel
import Testing

/// Review 17 s8, F5: once someone else's device is paired (a colleague's, to share one project),
/// one device must not be able to take every paired slot of the owner's daemon and turn the
/// owner's own devices away (`channelBusy`) from sync, repair and replication.
@Suite struct ChannelSlotShareTests {
    /// The desk, with the laptop (the owner's) and a colleague's device paired.
    struct ThreeDevices {
        let devices: PairedDevices
        let colleague: PairingDevice

        init() throws {
            devices = try PairedDevices()
            colleague = try PairingDevice("colleague")
            try devices.desk.vault.storePairing(FamilyPairing(peer: colleague.keys.profile, role: .host, pairedAt: 1_700_000_000))
            try colleague.vault.storePairing(FamilyPairing(peer: devices.desk.keys.profile, role: .join, pairedAt: 1_700_000_000))
        }

        /// A server on the desk where only the laptop is a priority device, as the daemon says of the owner's own.
        func server(_ limits: ChannelServer.Limits) throws -> RunningServer {
            let laptop = devices.laptop.keys.profile.deviceID
            return try RunningServer(devices.desk, limits: limits, isPriority: { $0 == laptop })
        }
    }

    @Test func aDevicesNewConnectionPastItsBoundClosesItsOwnOldestAndTakesNoMore() throws {
        let three = try ThreeDevices()
        let server = try three.server(ChannelServer.Limits())
        let desk = three.devices.desk.keys.profile
        var held: [ChannelClient] = []
        for _ in 0..<16 { held.append(try server.client(three.colleague, expecting: desk)) }
        // Only its four newest are held; the older ones were closed by the server.
        #expect(errorCode { _ = try held[0].request("echo", body: [1]) } != nil)
        for client in held.suffix(4) { #expect(try client.request("echo", body: [2]) == [2]) }
        #expect(server.server.connectionCounts.authenticated == 4)
        // The owner's laptop still gets in.
        #expect(try server.client(three.devices.laptop, expecting: desk).request("echo", body: [3]) == [3])
    }

    @Test func someoneElsesDevicesCannotTakeTheSlotsKeptForTheOwnersDevices() throws {
        let three = try ThreeDevices()
        let server = try three.server(ChannelServer.Limits(maximumAuthenticatedConnections: 4, maximumConnectionsPerDevice: 4,
                                                           reservedForPriorityDevices: 2))
        let desk = three.devices.desk.keys.profile
        let colleague = [try server.client(three.colleague, expecting: desk), try server.client(three.colleague, expecting: desk)]
        // Past the share of devices that are not the owner's: busy, and the reason says so.
        #expect(errorCode { _ = try server.client(three.colleague, expecting: desk) } == .channelBusy)
        #expect(server.events.waitForClosed(1) == [.channelBusy])
        // The owner's laptop takes the two kept for it; the colleague's two still work.
        let laptop = [try server.client(three.devices.laptop, expecting: desk), try server.client(three.devices.laptop, expecting: desk)]
        for client in colleague + laptop { #expect(try client.request("echo", body: [4]) == [4]) }
        // The whole bound holds for everyone.
        #expect(errorCode { _ = try server.client(three.devices.laptop, expecting: desk) } == .channelBusy)
    }

    @Test func boundsThatCannotHoldAreRefused() {
        #expect(throws: PeerChannelError(.invalidConfiguration, "")) {
            try ChannelServer.Limits(maximumAuthenticatedConnections: 4, reservedForPriorityDevices: 4).validate()
        }
        #expect(throws: PeerChannelError(.invalidConfiguration, "")) {
            try ChannelServer.Limits(maximumConnectionsPerDevice: 0).validate()
        }
    }
}
