import CryptoVault

/// The UDP datagram a device broadcasts on its LAN so that paired devices can find its channel
/// (SECURITY.md §9.10):
///
///     magic "SVPA" (4) || version 0x01 (1) || device_id (16) || u16be(channel_port) (2)
///         || name_length (1) || name (1...64 bytes of UTF-8, a valid device name)
///
/// 24 + len(name) bytes, at most 88. An announcement is a **hint**: it is not authenticated, so
/// anyone on the LAN can send one with any name, id or port. It only says where to try; whether the
/// device there is the one paired is decided by the channel handshake, which checks the pinned key.
public struct Announcement: Sendable, Equatable {
    /// The UDP port announcements are sent to by default.
    public static let defaultPort: UInt16 = 7422
    static let magic = Array("SVPA".utf8)
    static let version: UInt8 = 0x01
    static let fixedLength = 24
    public static let maximumLength = fixedLength + DeviceProfile.nameSizes.upperBound

    public let deviceID: DeviceID
    public let name: String
    public let channelPort: UInt16

    /// An announcement for this device; refuses a port of 0 or an invalid name (`.invalidConfiguration`).
    public init(deviceID: DeviceID, name: String, channelPort: UInt16) throws(PeerChannelError) {
        guard channelPort != 0, Self.isValidName(name) else {
            throw PeerChannelError(.invalidConfiguration, "an announcement needs a port other than 0 and a valid device name")
        }
        self.deviceID = deviceID
        self.name = name
        self.channelPort = channelPort
    }

    /// Parses a datagram strictly: magic, version, exact length, a valid name; `.malformedAnnouncement`
    /// otherwise.
    public init(parsing datagram: [UInt8]) throws(PeerChannelError) {
        guard datagram.count > Self.fixedLength, datagram.count <= Self.maximumLength,
              Array(datagram.prefix(4)) == Self.magic, datagram[4] == Self.version else {
            throw PeerChannelError(.malformedAnnouncement, "a datagram of \(datagram.count) bytes is not a version-1 announcement")
        }
        let nameLength = Int(datagram[23])
        guard datagram.count == Self.fixedLength + nameLength,
              let name = String(validating: datagram[Self.fixedLength...], as: UTF8.self) else {
            throw PeerChannelError(.malformedAnnouncement, "an announcement's name length or encoding is wrong")
        }
        let port = UInt16(datagram[21]) << 8 | UInt16(datagram[22])
        do {
            // 16 bytes by the length checks above, so only the port or the name can be refused.
            try self.init(deviceID: try DeviceID(bytes: Array(datagram[5..<21])), name: name, channelPort: port)
        } catch {
            throw PeerChannelError(.malformedAnnouncement, "an announcement with port 0 or an invalid name")
        }
    }

    /// The datagram.
    public func serialized() -> [UInt8] {
        Self.magic + [Self.version] + deviceID.bytes + [UInt8(channelPort >> 8), UInt8(channelPort & 0xFF),
                                                  UInt8(name.utf8.count)] + Array(name.utf8)
    }

    /// The fingerprint people compare (§4.7).
    public var fingerprint: String { deviceID.fingerprint }

    private static func isValidName(_ name: String) -> Bool {
        (try? DeviceProfile.validate(name: name)) != nil
    }
}
