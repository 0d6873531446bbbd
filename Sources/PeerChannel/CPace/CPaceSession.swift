import CryptoVault

/// What a completed CPace exchange gives each side.
public struct CPaceSessionKeys: Sendable {
    /// ISK: 64 bytes, equal on both sides exactly when both used the same password, channel
    /// identifier and sid and saw the same two messages.
    public let intermediateSessionKey: SecureBytes
    /// The associated data the peer sent (authenticated only through ISK: check it, then rely on it
    /// only once a protocol keyed by ISK has succeeded).
    public let peerAssociatedData: [UInt8]
    /// sid_output_ir: a public identifier of this exchange, equal on both sides.
    public let sessionIdentifierOutput: [UInt8]
}

/// A CPace message: `lv_cat(Y, AD)`, this side's 32-byte share and its associated data.
struct CPaceMessage {
    let share: [UInt8]
    let associatedData: [UInt8]

    var encoded: [UInt8] { CPaceEncoding.lengthValueConcatenation(share, associatedData) }

    /// Parses strictly: two fields, minimal length prefixes, a 32-byte share, no trailing bytes.
    init(parsing bytes: [UInt8]) throws(PeerChannelError) {
        var reader = CPaceFieldReader(bytes)
        share = try reader.readField()
        associatedData = try reader.readField()
        try reader.finish()
        guard share.count == CPace.shareSize else {
            throw PeerChannelError(.malformedPairingMessage, "a CPace share is \(CPace.shareSize) bytes, not \(share.count)")
        }
    }

    init(share: [UInt8], associatedData: [UInt8]) {
        self.share = share
        self.associatedData = associatedData
    }
}

/// The initiator of CPace in initiator-responder mode: it sends MSGa first, then derives ISK from
/// the responder's MSGb.
///
/// Noncopyable, and `receive` consumes it: the scalar ya serves exactly one exchange, so a peer
/// cannot try several answers against the same share (each would be one more password guess).
public struct CPaceInitiator: ~Copyable, Sendable {
    /// MSGa = lv_cat(Ya, ADa), to send to the responder.
    public let message: [UInt8]
    private let scalar: SecureBytes
    private let own: CPaceMessage
    private let sessionIdentifier: [UInt8]

    /// Samples ya and computes Ya = ya·g, with g derived from the password, CI and sid.
    public init(password: SecureBytes, channelIdentifier: [UInt8], sessionIdentifier: [UInt8],
                associatedData: [UInt8]) throws(PeerChannelError) {
        try self.init(password: password, channelIdentifier: channelIdentifier, sessionIdentifier: sessionIdentifier,
                      associatedData: associatedData, scalar: CPace.sampleScalar())
    }

    /// With a given scalar, for the draft's known-answer vectors only.
    init(password: SecureBytes, channelIdentifier: [UInt8], sessionIdentifier: [UInt8],
         associatedData: [UInt8], scalar: SecureBytes) throws(PeerChannelError) {
        let generator = try CPace.generator(password: password, channelIdentifier: channelIdentifier,
                                            sessionIdentifier: sessionIdentifier)
        // Everything that can throw comes first: a noncopyable value must be initialised all at once.
        let own = CPaceMessage(share: try CPace.share(scalar: scalar, generator: generator), associatedData: associatedData)
        self.scalar = scalar
        self.own = own
        self.sessionIdentifier = sessionIdentifier
        self.message = own.encoded
    }

    /// Parses MSGb, computes K = scalar_mult_vfy(ya, Yb) and ISK over the transcript (Ya, ADa, Yb, ADb).
    public consuming func receive(responderMessage: [UInt8]) throws(PeerChannelError) -> CPaceSessionKeys {
        let peer = try CPaceMessage(parsing: responderMessage)
        let sharedPoint = try CPace.sharedPoint(scalar: scalar, peerShare: peer.share)
        return try CPaceSessionKeys(sessionIdentifier: sessionIdentifier, sharedPoint: sharedPoint,
                                    initiator: own, responder: peer, peerAssociatedData: peer.associatedData)
    }
}

/// The responder of CPace in initiator-responder mode: it answers MSGa with MSGb and derives ISK
/// at once.
public enum CPaceResponder {
    /// Parses MSGa, samples yb, and returns MSGb = lv_cat(Yb, ADb) with the session keys.
    public static func respond(to initiatorMessage: [UInt8], password: SecureBytes, channelIdentifier: [UInt8],
                               sessionIdentifier: [UInt8], associatedData: [UInt8]) throws(PeerChannelError)
        -> (message: [UInt8], keys: CPaceSessionKeys) {
        try respond(to: initiatorMessage, password: password, channelIdentifier: channelIdentifier,
                    sessionIdentifier: sessionIdentifier, associatedData: associatedData, scalar: CPace.sampleScalar())
    }

    /// With a given scalar, for the draft's known-answer vectors only.
    static func respond(to initiatorMessage: [UInt8], password: SecureBytes, channelIdentifier: [UInt8],
                        sessionIdentifier: [UInt8], associatedData: [UInt8], scalar: SecureBytes) throws(PeerChannelError)
        -> (message: [UInt8], keys: CPaceSessionKeys) {
        // Parse before any work with the password, so malformed input costs nothing.
        let peer = try CPaceMessage(parsing: initiatorMessage)
        let generator = try CPace.generator(password: password, channelIdentifier: channelIdentifier,
                                            sessionIdentifier: sessionIdentifier)
        let own = CPaceMessage(share: try CPace.share(scalar: scalar, generator: generator), associatedData: associatedData)
        let sharedPoint = try CPace.sharedPoint(scalar: scalar, peerShare: peer.share)
        let keys = try CPaceSessionKeys(sessionIdentifier: sessionIdentifier, sharedPoint: sharedPoint,
                                        initiator: peer, responder: own, peerAssociatedData: peer.associatedData)
        return (own.encoded, keys)
    }
}

extension CPaceSessionKeys {
    /// ISK and sid_output over the initiator-responder transcript.
    init(sessionIdentifier: [UInt8], sharedPoint: SecureBytes, initiator: CPaceMessage, responder: CPaceMessage,
         peerAssociatedData: [UInt8]) throws(PeerChannelError) {
        let transcript = CPace.initiatorResponderTranscript(
            initiatorShare: initiator.share, initiatorData: initiator.associatedData,
            responderShare: responder.share, responderData: responder.associatedData)
        self.intermediateSessionKey = try CPace.intermediateSessionKey(
            sessionIdentifier: sessionIdentifier, sharedPoint: sharedPoint, transcript: transcript)
        self.peerAssociatedData = peerAssociatedData
        self.sessionIdentifierOutput = CPace.sessionIdentifierOutput(transcript: transcript)
    }
}
