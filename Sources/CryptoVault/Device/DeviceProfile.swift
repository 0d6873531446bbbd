import Foundation

/// The public face of a vault's device identity (SECURITY.md §4.7): what a paired device pins and
/// what `vaultctl device` shows. Every field is public; the private halves live in `DeviceKeys`.
public struct DeviceProfile: Sendable, Equatable {
    public static let identifierSize = 16
    public static let publicKeySize = 32
    /// Names are what a person reads on the other device: 1 to 64 bytes of UTF-8, no control characters.
    public static let nameSizes = 1...64

    static let identifierLabel = Array("SealedVault device id v1".utf8)

    /// The first 16 bytes of SHA-256("SealedVault device id v1" || signing key || Noise key).
    public let deviceID: DeviceID
    /// The Ed25519 public key.
    public let signingPublicKey: [UInt8]
    /// The X25519 public key the device uses as its Noise static key.
    public let noisePublicKey: [UInt8]
    public let name: String
    /// Seconds since the Unix epoch, UTC.
    public let createdAt: Int64

    /// Checks that the id is the one derived from the keys and that the name is valid; a device
    /// identity that fails either is refused (`.invalidInput`).
    public init(signingPublicKey: [UInt8], noisePublicKey: [UInt8], name: String, createdAt: Int64,
                deviceID: DeviceID? = nil) throws {
        guard signingPublicKey.count == Self.publicKeySize, noisePublicKey.count == Self.publicKeySize else {
            throw CryptoVaultError(.invalidInput, "a device's public keys are \(Self.publicKeySize) bytes each")
        }
        let derived = Self.deriveIdentifier(signingPublicKey: signingPublicKey, noisePublicKey: noisePublicKey)
        if let deviceID, deviceID != derived {
            throw CryptoVaultError(.invalidInput, "the device id is not the one derived from the device's public keys")
        }
        try Self.validate(name: name)
        guard createdAt >= 0 else { throw CryptoVaultError(.invalidInput, "a device's creation time is before 1970") }
        self.deviceID = derived
        self.signingPublicKey = signingPublicKey
        self.noisePublicKey = noisePublicKey
        self.name = name
        self.createdAt = createdAt
    }

    /// The device id: it names the two keys, so a device cannot keep its id and change a key.
    public static func deriveIdentifier(signingPublicKey: [UInt8], noisePublicKey: [UInt8]) -> DeviceID {
        // A SHA-256 prefix is always `identifierSize` bytes, so the id is never refused.
        try! DeviceID(bytes: Array(SHA256.hash(identifierLabel + signingPublicKey + noisePublicKey).prefix(identifierSize)))
    }

    /// What a person compares between two devices: the device id in lowercase hex, in four groups
    /// of eight digits ("3f2a09c1-...").
    public var fingerprint: String { deviceID.fingerprint }


    public static func validate(name: String) throws {
        guard nameSizes.contains(name.utf8.count),
              !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw CryptoVaultError(.invalidName, "a device name must be 1 to 64 bytes of UTF-8 without control characters")
        }
    }

    /// A name a person gives a device here (`pair host|join --name`, `device rename`). Stricter than
    /// `validate(name:)`, which every stored and received profile passes, because a chosen name is read
    /// on other devices and in the audit log, next to the fingerprint a person compares: 1 to 64 bytes
    /// of UTF-8 made of letters, marks, digits, punctuation, symbols and the plain space (U+0020),
    /// never at either end. Refused (`.invalidName`, with the reason): control and format characters
    /// (bidirectional overrides, zero-width joiners), other spaces and separators (no-break, line,
    /// paragraph), private-use, unassigned and surrogate code points.
    public static func validate(chosenName name: String) throws {
        guard nameSizes.contains(name.utf8.count) else {
            throw CryptoVaultError(.invalidName, "a device name is 1 to 64 bytes of UTF-8; this one is \(name.utf8.count)")
        }
        if let refused = name.unicodeScalars.first(where: { !isAllowedInChosenName($0) }) {
            let code = "U+" + String(refused.value, radix: 16, uppercase: true).leftPadded(to: 4)
            throw CryptoVaultError(.invalidName, "a device name cannot contain \(code): only letters, digits, punctuation, symbols and spaces")
        }
        guard name.first != " ", name.last != " " else {
            throw CryptoVaultError(.invalidName, "a device name cannot begin or end with a space")
        }
    }

    private static func isAllowedInChosenName(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
             .nonspacingMark, .spacingMark, .enclosingMark, .decimalNumber, .letterNumber, .otherNumber,
             .connectorPunctuation, .dashPunctuation, .openPunctuation, .closePunctuation, .initialPunctuation,
             .finalPunctuation, .otherPunctuation, .mathSymbol, .currencySymbol, .modifierSymbol, .otherSymbol:
            return true
        case .spaceSeparator:
            return scalar == " "
        default:
            return false
        }
    }

    /// The name a new device gets: the host name, cut to a whole character within 64 bytes, or
    /// "vault-device" if the system has none that is valid.
    public static func defaultName(hostName: String = ProcessInfo.processInfo.hostName) -> String {
        var name = ""
        for character in hostName {
            guard name.utf8.count + String(character).utf8.count <= nameSizes.upperBound else { break }
            name.append(character)
        }
        return (try? validate(name: name)) == nil ? "vault-device" : name
    }
}

/// A device identity with its private keys, available only from an unlocked vault.
public struct DeviceKeys: Sendable {
    public let profile: DeviceProfile
    /// Signs what the device vouches for (its pairing confirmation).
    public let signingKey: Ed25519PrivateKey
    /// The Noise static key of every pairing and channel handshake.
    public let noiseKey: X25519PrivateKey

    init(profile: DeviceProfile, signingKey: Ed25519PrivateKey, noiseKey: X25519PrivateKey) {
        self.profile = profile
        self.signingKey = signingKey
        self.noiseKey = noiseKey
    }

    /// A profile made for these two keys (for tests and tools that hold keys outside a vault).
    public init(signingKey: Ed25519PrivateKey, noiseKey: X25519PrivateKey, name: String, createdAt: Int64) throws {
        self.init(profile: try DeviceProfile(signingPublicKey: signingKey.publicKey, noisePublicKey: noiseKey.publicKey,
                                             name: name, createdAt: createdAt),
                  signingKey: signingKey, noiseKey: noiseKey)
    }
}

private extension String {
    func leftPadded(to width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
