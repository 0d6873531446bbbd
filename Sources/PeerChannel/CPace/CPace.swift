import CryptoVault

/// The CPace functions of draft-irtf-cfrg-cpace-21 for the suite CPACE-RISTR255-SHA512: group
/// ristretto255, hash SHA-512. `CPaceInitiator` and `CPaceResponder` run the protocol with them.
///
/// The password-derived values (the generator string, its hash, the generator g) are as secret as
/// the password itself, since anyone holding g can test password guesses offline; they stay in
/// `SecureBytes` like the scalars, the shared point K and the session key ISK.
enum CPace {
    /// G.DSI of the ristretto255 group.
    static let domainSeparationIdentifier = Array("CPaceRistretto255".utf8)
    /// The DSI of the intermediate session key: G.DSI || "_ISK".
    static let sessionKeyDomain = domainSeparationIdentifier + Array("_ISK".utf8)
    /// H.s_in_bytes: the input block of SHA-512, which the zero padding of the generator string fills.
    static let hashBlockSize = 128
    /// The size of a share Ya or Yb (a ristretto255 encoding).
    static let shareSize = Ristretto255.elementSize

    /// generator_string(G.DSI, PRS, CI, sid, H.s_in_bytes):
    /// lv_cat(DSI, PRS, zero_bytes(len_zpad), CI, sid), with
    /// len_zpad = max(0, s_in_bytes - 1 - len(prepend_len(PRS)) - len(prepend_len(DSI))),
    /// so that DSI, PRS and the padding fill the first SHA-512 block.
    static func generatorString(password: SecureBytes, channelIdentifier: [UInt8],
                                sessionIdentifier: [UInt8]) throws(PeerChannelError) -> SecureBytes {
        let encodedPasswordLength = CPaceEncoding.lengthPrefix(password.count).count + password.count
        let encodedDomainLength = CPaceEncoding.prependLength(domainSeparationIdentifier).count
        let paddingLength = max(0, hashBlockSize - 1 - encodedPasswordLength - encodedDomainLength)
        let head = CPaceEncoding.prependLength(domainSeparationIdentifier) + CPaceEncoding.lengthPrefix(password.count)
        let tail = CPaceEncoding.lengthValueConcatenation([UInt8](repeating: 0, count: paddingLength),
                                                          channelIdentifier, sessionIdentifier)
        return try PeerChannelError.wrappingPrimitives {
            try SecureBytes(copying: head).appending(password).appending(SecureBytes(copying: tail))
        }
    }

    /// The generator g = element_derivation(SHA-512(generator_string)): the 64-byte digest through
    /// ristretto255's one-way map (RFC 9496 §4.3.4).
    static func generator(password: SecureBytes, channelIdentifier: [UInt8],
                          sessionIdentifier: [UInt8]) throws(PeerChannelError) -> SecureBytes {
        let string = try generatorString(password: password, channelIdentifier: channelIdentifier,
                                         sessionIdentifier: sessionIdentifier)
        return try PeerChannelError.wrappingPrimitives {
            try Ristretto255.elementFromUniformBytes(hash(string))
        }
    }

    /// G.sample_scalar(): uniform in 1...order-1.
    static func sampleScalar() throws(PeerChannelError) -> SecureBytes {
        try PeerChannelError.wrappingPrimitives { try Ristretto255.randomScalar() }
    }

    /// G.scalar_mult(y, g): this side's share Y, which is public once computed.
    static func share(scalar: SecureBytes, generator: SecureBytes) throws(PeerChannelError) -> [UInt8] {
        try PeerChannelError.wrappingPrimitives { try Ristretto255.multiply(scalar, generator).exposedCopy() }
    }

    /// G.scalar_mult_vfy(y, X): K = y·X, aborting when X does not decode (`.invalidGroupElement`)
    /// or K is the identity (`.identityGroupElement`), so that a peer cannot fix K in advance.
    static func sharedPoint(scalar: SecureBytes, peerShare: [UInt8]) throws(PeerChannelError) -> SecureBytes {
        let element = try PeerChannelError.wrappingPrimitives { try SecureBytes(copying: peerShare) }
        guard peerShare.count == shareSize, Ristretto255.isCanonicalEncoding(element) else {
            throw PeerChannelError(.invalidGroupElement, "the peer's share is not a canonical ristretto255 element")
        }
        return try PeerChannelError.wrappingPrimitives {
            do {
                return try Ristretto255.multiply(scalar, element)
            } catch let error as CryptoVaultError where error.code == .invalidInput {
                throw PeerChannelError(.identityGroupElement, "the peer's share is the identity element")
            }
        }
    }

    /// transcript_ir(Ya, ADa, Yb, ADb) = lv_cat(Ya, ADa) || lv_cat(Yb, ADb): the initiator-responder
    /// transcript, in which the initiator's message always comes first.
    static func initiatorResponderTranscript(initiatorShare: [UInt8], initiatorData: [UInt8],
                                             responderShare: [UInt8], responderData: [UInt8]) -> [UInt8] {
        CPaceEncoding.lengthValueConcatenation(initiatorShare, initiatorData)
            + CPaceEncoding.lengthValueConcatenation(responderShare, responderData)
    }

    /// transcript_oc: the symmetric-mode transcript, o_cat(lv_cat(Ya, ADa), lv_cat(Yb, ADb)), for
    /// parties without initiator and responder roles. PeerChannel uses the initiator-responder mode;
    /// this is here to check the draft's ISK_SY vector and so the shared pieces.
    static func symmetricTranscript(firstShare: [UInt8], firstData: [UInt8],
                                    secondShare: [UInt8], secondData: [UInt8]) -> [UInt8] {
        CPaceEncoding.orderedConcatenation(CPaceEncoding.lengthValueConcatenation(firstShare, firstData),
                                           CPaceEncoding.lengthValueConcatenation(secondShare, secondData))
    }

    /// ISK = SHA-512(lv_cat(G.DSI || "_ISK", sid, K) || transcript).
    static func intermediateSessionKey(sessionIdentifier: [UInt8], sharedPoint: SecureBytes,
                                       transcript: [UInt8]) throws(PeerChannelError) -> SecureBytes {
        let head = CPaceEncoding.lengthValueConcatenation(sessionKeyDomain, sessionIdentifier)
            + CPaceEncoding.lengthPrefix(sharedPoint.count)
        return try PeerChannelError.wrappingPrimitives {
            var hasher = SHA512.Hasher()
            hasher.update(head)
            hasher.update(sharedPoint)
            hasher.update(transcript)
            return try hasher.finalizeSecret()
        }
    }

    /// sid_output = SHA-512("CPaceSidOutput" || transcript): a public value both sides agree on,
    /// usable as a session identifier when the sid was not fresh.
    static func sessionIdentifierOutput(transcript: [UInt8]) -> [UInt8] {
        SHA512.hash(Array("CPaceSidOutput".utf8) + transcript)
    }

    private static func hash(_ secret: SecureBytes) throws -> SecureBytes {
        var hasher = SHA512.Hasher()
        hasher.update(secret)
        return try hasher.finalizeSecret()
    }
}
