import CryptoVault
import Foundation

/// How a keeper hands a kept whole-vault copy to a fresh machine that holds no key of any kind
/// (`vaultctl recover host` and `vaultctl recover --from`, SECURITY.md §13.6). The one-time code the
/// keeper shows is the only thing the two share, so the exchange is the pairing exchange of §9.7 with
/// its own labels: CPace on the code, then Noise_XXpsk3 keyed by it. The recipient's static key is a
/// fresh one it throws away afterwards; its public key is its identifier in CPace's AD, which the
/// keeper checks against the key the handshake authenticated.
public enum VaultCopyHandoverBinding {
    public static let protocolVersion: UInt8 = 1
    static let channelIdentifierLabel = Array("SealedVault PeerChannel recovery".utf8)
    static let prologueLabel = Array("SealedVault PeerChannel recovery Noise".utf8)

    /// CPace's CI: lv_cat("SealedVault PeerChannel recovery", version), so a pairing code can never
    /// serve a recovery nor the reverse.
    public static var channelIdentifier: [UInt8] {
        CPaceEncoding.lengthValueConcatenation(channelIdentifierLabel, [protocolVersion])
    }

    /// The Noise_XXpsk3 prologue: lv_cat("SealedVault PeerChannel recovery Noise", version).
    public static var prologue: [UInt8] {
        CPaceEncoding.lengthValueConcatenation(prologueLabel, [protocolVersion])
    }
}

/// The keeper's first transport message: whose copy it is, then the copy's offer (§13.6).
///
///     source device id (16) || vault copy offer (96)
public struct VaultCopyHandoverHeader: Sendable, Equatable {
    public static let size = 16 + VaultCopyOffer.size

    public let sourceDeviceID: DeviceID
    public let offer: VaultCopyOffer

    public init(sourceDeviceID: DeviceID, offer: VaultCopyOffer) {
        self.sourceDeviceID = sourceDeviceID
        self.offer = offer
    }

    public init(parsing bytes: [UInt8]) throws {
        guard bytes.count == Self.size else {
            throw PeerChannelError(.malformedReplicationMessage, "a handover header of \(bytes.count) bytes (\(Self.size) expected)")
        }
        var reader = ReplicationReader(Array(bytes.prefix(ReplicationWire.identifierSize)), "a handover header")
        sourceDeviceID = try reader.readIdentifier()
        offer = try VaultCopyOffer(parsing: Array(bytes.dropFirst(ReplicationWire.identifierSize)))
    }

    public func serialized() -> [UInt8] { sourceDeviceID.bytes + offer.serialized() }

    /// The copy's bytes travel in transport messages of this many plaintext bytes, the last shorter.
    public static let dataMessageSize = NoiseTransport.maximumPlaintextLength
}

/// What a keeper handed over, for its report.
public struct VaultCopyHandoverResult: Sendable {
    public let header: VaultCopyHandoverHeader
    public let recipient: SocketAddress
    public let recipientKey: [UInt8]
}

/// The keeper's side of a handover: it holds the code's lease (5 minutes, 3 failed attempts) and
/// serves one connection at a time until the copy is handed over or the code dies.
public struct VaultCopyHandover {
    /// How long a connection may stay silent before the keeper drops it.
    public static let silenceSeconds = 30.0

    public let vault: UnlockedVault
    public let keys: DeviceKeys
    /// The device whose copy is handed over (by id: a lost device's pairing may have been revoked
    /// since its copy was kept, and the copy is still its owner's to get back).
    public let sourceDeviceID: DeviceID
    public private(set) var lease: PairingCodeLease

    public init(vault: UnlockedVault, keys: DeviceKeys, sourceDeviceID: DeviceID, lease: PairingCodeLease) {
        self.vault = vault
        self.keys = keys
        self.sourceDeviceID = sourceDeviceID
        self.lease = lease
    }

    var sourceFingerprint: String { sourceDeviceID.fingerprint }

    /// The copy kept for the device `sourceDeviceID`, or why there is none.
    public static func keptCopy(in vault: UnlockedVault, for sourceDeviceID: DeviceID) throws -> String {
        guard let held = VaultCopyStore(vaultDirectory: vault.vault.directory).held(for: sourceDeviceID) else {
            throw PeerChannelError(.vaultCopyNotFound, "this vault keeps no whole-vault copy of \(sourceDeviceID.fingerprint)")
        }
        return held.path
    }

    /// One attempt on `connection`. On success the handover is recorded (`vaultcopy.handover`) and
    /// the code is spent; on failure the recipient gets a refusal, the failure is recorded
    /// (`vaultcopy.handover-failed`), and the attempt counts against the code once it reached CPace.
    public mutating func serve(_ connection: TCPConnection) throws -> VaultCopyHandoverResult {
        var usedCode = false
        do {
            let result = try attempt(connection, usedCode: &usedCode)
            lease.recordSuccess()
            return result
        } catch let error as PeerChannelError {
            if usedCode { lease.recordFailure() }
            try? connection.writeFrame(PairingWire.refusal(for: error.code))
            try? vault.record(VaultEvent(.vaultCopyHandoverFailed, details: [
                .init("peer", sourceFingerprint), .init("recipient", connection.peer.description), .init("reason", error.code.rawValue)]))
            throw error
        }
    }

    private func attempt(_ connection: TCPConnection, usedCode: inout Bool) throws -> VaultCopyHandoverResult {
        try lease.checkUsable()
        let path = try Self.keptCopy(in: vault, for: sourceDeviceID)
        let responded = try PairingSteps.respond(
            over: connection, code: lease.code, channelIdentifier: VaultCopyHandoverBinding.channelIdentifier,
            prologue: VaultCopyHandoverBinding.prologue, keys: keys, usedCode: &usedCode)
        var transport = responded.transport
        let recipientKey = responded.peerIdentifier
        guard transport.remoteStaticKey == recipientKey else {
            throw PeerChannelError(.peerIdentityMismatch, "the recipient's handshake key is not the one its CPace message named")
        }
        let header = try header(of: path)
        try connection.writeFrame(try transport.seal(header.serialized()))
        try sendData(of: path, length: header.offer.length, over: connection, &transport)
        let receipt = try transport.open(try PairingWire.receive(from: connection))
        guard receipt == header.offer.sha256 else {
            throw PeerChannelError(.vaultCopyDigestMismatch, "the recipient received the copy with another SHA-256 than sent")
        }
        try vault.record(VaultEvent(.vaultCopyHandover, details: VaultCopyService.details(fingerprint: sourceFingerprint, offer: header.offer) + [
            .init("recipient", connection.peer.description), .init("recipient_key", ByteEncoding.hex(recipientKey))]))
        return VaultCopyHandoverResult(header: header, recipient: connection.peer, recipientKey: recipientKey)
    }

    /// The header of the kept copy: the facts its name holds, its length and its SHA-256 now. The
    /// keeper does not check the copy again: the recipient checks everything, with the key.
    private func header(of path: String) throws -> VaultCopyHandoverHeader {
        let store = VaultCopyStore(vaultDirectory: vault.vault.directory)
        guard let held = store.held(for: sourceDeviceID), held.path == path,
              let length = try FileDescriptor.openForReading(path).regularFileSize() else {
            throw PeerChannelError(.vaultCopyNotFound, "the copy kept for \(sourceFingerprint) changed while it was being handed over")
        }
        let offer = VaultCopyOffer(vaultID: try store.vaultID(of: held), entries: held.entries, lastLeafHash: held.lastLeafHash,
                                   length: length, sha256: try VaultCopyCheck.sha256(of: path))
        return VaultCopyHandoverHeader(sourceDeviceID: sourceDeviceID, offer: offer)
    }

    private func sendData(of path: String, length: UInt64, over connection: TCPConnection, _ transport: inout NoiseTransport) throws {
        let file = try FileDescriptor.openForReading(path)
        var buffer = [UInt8](repeating: 0, count: VaultCopyHandoverHeader.dataMessageSize)
        var offset: UInt64 = 0
        while offset < length {
            let count = Int(min(UInt64(buffer.count), length - offset))
            guard try buffer.withUnsafeMutableBytes({ try file.read(into: UnsafeMutableRawBufferPointer(rebasing: $0[0..<count]), at: offset) }) == count else {
                throw PeerChannelError(.vaultCopyNotFound, "the kept copy got shorter while it was being handed over")
            }
            connection.setDeadline(secondsFromNow: Self.silenceSeconds)
            try connection.writeFrame(try transport.seal(buffer[0..<count]))
            offset += UInt64(count)
        }
        connection.setDeadline(secondsFromNow: Self.silenceSeconds)
    }
}

/// The fresh machine's side of a handover (`vaultctl recover --from`): it has no vault and no key,
/// only the code a person read off the keeper.
public struct VaultCopyRecipient {
    /// The longest copy accepted, so a keeper cannot fill this disk without end.
    public static let maximumLength: UInt64 = 1 << 44

    public init() {}

    /// Runs the exchange on `connection` with `code` and writes the copy into `output`; returns its
    /// header (whose SHA-256 the bytes written have) and the keeper's static key.
    public func receive(_ connection: TCPConnection, code: PairingCode, into output: FileDescriptor,
                        progress: (UInt64) -> Void = { _ in }) throws -> (header: VaultCopyHandoverHeader, keeperKey: [UInt8]) {
        let ownKey = try X25519PrivateKey()
        let sessionIdentifier = try PairingBinding.newSessionIdentifier()
        let cpace = try CPaceInitiator(
            password: code.canonicalBytes, channelIdentifier: VaultCopyHandoverBinding.channelIdentifier, sessionIdentifier: sessionIdentifier,
            associatedData: PairingBinding.associatedData(role: .initiator, deviceIdentifier: ownKey.publicKey))
        try connection.writeFrame(PairingWire.opening(sessionIdentifier: sessionIdentifier, cpaceMessage: cpace.message))
        let cpaceKeys = try cpace.receive(responderMessage: try refusalsNamed { try PairingWire.receive(from: connection) })
        _ = try PairingBinding.peerDeviceIdentifier(in: cpaceKeys.peerAssociatedData, ownRole: .initiator)
        var handshake = try NoiseHandshake(pattern: .xxpsk3, role: .initiator, prologue: VaultCopyHandoverBinding.prologue,
                                           staticKey: ownKey, presharedKey: PairingBinding.presharedKey(from: cpaceKeys))
        try connection.writeFrame(try handshake.writeMessage())
        try refusalsNamed { try PairingSteps.read(&handshake, from: connection) }
        try connection.writeFrame(try handshake.writeMessage())
        var transport = try handshake.transport()
        // The copy follows its header at once, in transport messages up to the Noise limit: they are
        // accepted from here on (the keeper sends nothing before this side's last handshake message).
        try connection.allowFrames(upTo: FrameCodec.maximumMessageLength)
        let first = try refusalsNamed { try PairingWire.receive(from: connection) }
        let header: VaultCopyHandoverHeader
        do {
            header = try VaultCopyHandoverHeader(parsing: try transport.open(first))
        } catch let error as PeerChannelError where error.code == .messageAuthenticationFailed {
            throw PeerChannelError(.wrongPairingCode, "the keeper's first message did not authenticate: the code is wrong")
        }
        guard header.offer.length <= Self.maximumLength else {
            throw PeerChannelError(.vaultCopyTooLarge, "the keeper offers a copy of \(header.offer.length) bytes, over the \(Self.maximumLength) this accepts")
        }
        let digest = try receiveData(header.offer.length, from: connection, &transport, into: output, progress: progress)
        guard digest == header.offer.sha256 else {
            throw PeerChannelError(.vaultCopyDigestMismatch, "the copy arrived with another SHA-256 than the keeper announced")
        }
        try connection.writeFrame(try transport.seal(digest))
        return (header, transport.remoteStaticKey)
    }

    private func receiveData(_ length: UInt64, from connection: TCPConnection, _ transport: inout NoiseTransport,
                             into output: FileDescriptor, progress: (UInt64) -> Void) throws -> [UInt8] {
        var hasher = SHA256.Hasher()
        var received: UInt64 = 0
        while received < length {
            connection.setDeadline(secondsFromNow: VaultCopyHandover.silenceSeconds)
            let data = try transport.open(try PairingWire.receive(from: connection))
            let expected = Int(min(UInt64(VaultCopyHandoverHeader.dataMessageSize), length - received))
            guard data.count == expected else {
                throw PeerChannelError(.malformedReplicationMessage, "a handover data message of \(data.count) bytes (\(expected) expected)")
            }
            hasher.update(data)
            try data.withUnsafeBytes { try output.write($0) }
            received += UInt64(data.count)
            progress(received)
        }
        return hasher.finalize()
    }

    /// A refusal from the keeper, in the words of a recovery rather than a pairing.
    private func refusalsNamed<Result>(_ body: () throws -> Result) throws -> Result {
        do {
            return try body()
        } catch let error as PeerChannelError {
            guard error.message.hasPrefix("the other device refused the pairing") else { throw error }
            throw PeerChannelError(error.code, "the keeper refused the recovery: \(PairingWire.explanation(error.code))")
        }
    }
}
