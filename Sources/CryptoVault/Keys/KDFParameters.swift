import Foundation

/// The password-hashing algorithms a keyslot can name.
public enum KDFAlgorithm: String, Sendable, Codable {
    case argon2id
    case scrypt
}

/// The algorithm and costs that turn a passphrase into a keyslot's wrapping key.
///
/// Stored in clear beside the keyslot (it carries no secret), so when read back it is attacker-controlled:
/// `KDFScheme.deriveKey` calls `validate()` before any memory is allocated.
///
/// JSON form, with stable keys because it lives in a database column. `encoded` is the canonical
/// text (sorted keys, no spaces), and the text keyslots bind into their associated data:
///
///     {"algorithm":"argon2id","iterations":3,"memoryKiB":65536,"parallelism":4}
///     {"algorithm":"scrypt","log2N":15,"p":1,"r":8}
public enum KDFParameters: Sendable, Equatable {
    /// RFC 9106 Argon2id: `memoryKiB` is m, `iterations` is t (passes), `parallelism` is p (lanes).
    case argon2id(memoryKiB: Int, iterations: Int, parallelism: Int)
    /// RFC 7914 scrypt: N = 2^`log2N`, block size `r`, parallelisation `p`; it needs 128·r·N bytes.
    case scrypt(log2N: Int, r: Int, p: Int)

    public var algorithm: KDFAlgorithm {
        switch self {
        case .argon2id: .argon2id
        case .scrypt: .scrypt
        }
    }
}

// MARK: - Defaults, floors and ceilings

extension KDFParameters {
    /// RFC 9106 §4, second recommended option: t=3, m=64 MiB, p=4.
    public static let argon2idDefault = KDFParameters.argon2id(memoryKiB: 65_536, iterations: 3, parallelism: 4)

    /// OWASP Password Storage Cheat Sheet minimum: m=19 MiB, t=2, p=1. Nothing weaker is ever accepted.
    public static let argon2idFloor = KDFParameters.argon2id(
        memoryKiB: Floor.memoryKiB, iterations: Floor.iterations, parallelism: Floor.parallelism)

    /// scrypt is kept for compatibility only; its floor N=2^15, r=8, p=1 needs 32 MiB.
    public static let scryptFloor = KDFParameters.scrypt(log2N: Floor.scryptLog2N, r: Floor.scryptR, p: Floor.parallelism)

    enum Floor {
        static let memoryKiB = 19_456
        static let iterations = 2
        static let parallelism = 1
        static let scryptLog2N = 15
        static let scryptR = 8
    }

    /// Ceilings, so that a hostile vault header cannot make unlock exhaust this appliance's memory or
    /// spin for hours. 2 GiB is the most a single unlock may take.
    enum Ceiling {
        static let memoryKiB = 2_097_152
        static let iterations = 64
        static let parallelism = 16
        static let scryptMemoryBytes = 1 << 31
        /// Memory times passes, which bounds the time one unlock can take whatever the split between
        /// m and t (2 GiB × 64 passes would be minutes): 16 GiB·passes is about 16 s on a 2-core box.
        static let workKiBPasses = 16 * 1_048_576
        /// The same bound for scrypt, whose p lanes run one after another: 128·r·N·p bytes.
        static let scryptWorkBytes = 16 << 30
        /// Implied by the memory ceiling at the minimum r of 8 (128·8·2^21 = 2 GiB); checked on its own
        /// first so that computing 2^log2N can never overflow.
        static let scryptLog2N = 21
    }
}

// MARK: - Validation

extension KDFParameters {
    /// Throws `.kdfParametersOutOfRange`, naming the parameter and the bound, unless every cost lies
    /// between the floor and the ceiling. Pure arithmetic: allocates nothing.
    public func validate() throws {
        switch self {
        case let .argon2id(memoryKiB, iterations, parallelism):
            try Self.check("Argon2id memory", memoryKiB, Floor.memoryKiB...Ceiling.memoryKiB, format: Self.formatKiB)
            try Self.check("Argon2id iterations", iterations, Floor.iterations...Ceiling.iterations)
            try Self.check("Argon2id parallelism", parallelism, Floor.parallelism...Ceiling.parallelism)
            try Self.check("Argon2id work (memory × passes)", memoryKiB * iterations, 0...Ceiling.workKiBPasses,
                           format: { Self.formatKiB($0) + "·passes" })
        case let .scrypt(log2N, r, p):
            try Self.check("scrypt log2N", log2N, Floor.scryptLog2N...Ceiling.scryptLog2N)
            try Self.check("scrypt r", r, Floor.scryptR...Int.max)
            try Self.check("scrypt p", p, Floor.parallelism...Ceiling.parallelism)
            try Self.checkScryptMemory(log2N: log2N, r: r)
            // r ≤ 2^31 / (128·2^15) and p ≤ 16 after the checks above, so this product cannot overflow.
            try Self.check("scrypt work (128·r·N·p)", 128 * (r << log2N) * p, 0...Ceiling.scryptWorkBytes,
                           format: { Self.formatKiB($0 / 1024) })
        }
    }

    private static func check(
        _ name: String, _ value: Int, _ allowed: ClosedRange<Int>, format: (Int) -> String = { "\($0)" }
    ) throws {
        if value < allowed.lowerBound {
            throw CryptoVaultError(
                .kdfParametersOutOfRange,
                "\(name) \(format(value)) is below the floor of \(format(allowed.lowerBound))")
        }
        if value > allowed.upperBound {
            throw CryptoVaultError(
                .kdfParametersOutOfRange,
                "\(name) \(format(value)) exceeds the ceiling of \(format(allowed.upperBound))")
        }
    }

    /// Called after log2N ≤ 21 and r ≥ 8 are known, so only r can still overflow the product.
    private static func checkScryptMemory(log2N: Int, r: Int) throws {
        let (perBlock, overflow) = r.multipliedReportingOverflow(by: 128 << log2N)
        guard overflow || perBlock > Ceiling.scryptMemoryBytes else { return }
        let shown = overflow ? "128·r·N" : formatKiB(perBlock / 1024)
        throw CryptoVaultError(
            .kdfParametersOutOfRange,
            "scrypt memory \(shown) (r=\(r), N=2^\(log2N)) exceeds the ceiling of \(formatKiB(Ceiling.scryptMemoryBytes / 1024))")
    }

    /// "2 GiB", "19 MiB" or "32 KiB": the largest unit that divides the value exactly.
    static func formatKiB(_ kibibytes: Int) -> String {
        if kibibytes != 0, kibibytes % 1_048_576 == 0 { return "\(kibibytes / 1_048_576) GiB" }
        if kibibytes != 0, kibibytes % 1024 == 0 { return "\(kibibytes / 1024) MiB" }
        return "\(kibibytes) KiB"
    }
}

// MARK: - Upgrade decisions

extension KDFParameters {
    /// Whether a slot protected by `self` should be rewrapped with `other` on the next unlock.
    ///
    /// Argon2id is preferred over scrypt, so any scrypt slot is weaker than an Argon2id target and no
    /// Argon2id slot is weaker than a scrypt one. Within Argon2id, less memory or fewer passes is weaker
    /// (lanes change how the work is split, not how much there is). Within scrypt, less memory (r·N) or
    /// less total work (r·N·p) is weaker. Works on unvalidated values without overflowing.
    public func isWeaker(than other: KDFParameters) -> Bool {
        switch (self, other) {
        case let (.argon2id(memory, passes, _), .argon2id(otherMemory, otherPasses, _)):
            return memory < otherMemory || passes < otherPasses
        case (.scrypt, .argon2id):
            return true
        case (.argon2id, .scrypt):
            return false
        case let (.scrypt(log2N, r, p), .scrypt(otherLog2N, otherR, otherP)):
            let memory = Self.scryptBlocks(log2N: log2N, r: r)
            let otherMemory = Self.scryptBlocks(log2N: otherLog2N, r: otherR)
            return memory < otherMemory || memory * Double(p) < otherMemory * Double(otherP)
        }
    }

    /// What a slot protected by `self` is rewrapped with on the next unlock under `policy`, or nil
    /// when nothing would change.
    ///
    /// Never weaker in any parameter: within one algorithm each parameter is the larger of the slot's
    /// and the policy's (memory, passes and lanes for Argon2id; log2N, r and p for scrypt), compared
    /// separately, so a policy that lowers one cost cannot lower the slot's. A result outside the
    /// bounds of `validate()` (a work ceiling) gives nil: the slot stays as it is. A scrypt slot under
    /// an Argon2id policy moves to the policy (Argon2id is preferred); never the other way.
    public func upgraded(toward policy: KDFParameters) -> KDFParameters? {
        let target: KDFParameters
        switch (self, policy) {
        case let (.argon2id(memory, passes, lanes), .argon2id(policyMemory, policyPasses, policyLanes)):
            target = .argon2id(memoryKiB: max(memory, policyMemory), iterations: max(passes, policyPasses),
                               parallelism: max(lanes, policyLanes))
        case let (.scrypt(log2N, r, p), .scrypt(policyLog2N, policyR, policyP)):
            target = .scrypt(log2N: max(log2N, policyLog2N), r: max(r, policyR), p: max(p, policyP))
        case (.scrypt, .argon2id):
            target = policy
        case (.argon2id, .scrypt):
            return nil
        }
        guard target != self, (try? target.validate()) != nil else { return nil }
        return target
    }

    /// r·N as a Double, so stored values of any size compare without trapping.
    private static func scryptBlocks(log2N: Int, r: Int) -> Double {
        Double(r) * Double(sign: .plus, exponent: log2N, significand: 1)
    }
}

// MARK: - Codable

extension KDFParameters: Codable {
    private enum CodingKeys: String, CodingKey {
        case algorithm, memoryKiB, iterations, parallelism, log2N, r, p
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        switch try container.decode(KDFAlgorithm.self, forKey: .algorithm) {
        case .argon2id:
            self = .argon2id(
                memoryKiB: try container.decode(Int.self, forKey: .memoryKiB),
                iterations: try container.decode(Int.self, forKey: .iterations),
                parallelism: try container.decode(Int.self, forKey: .parallelism))
        case .scrypt:
            self = .scrypt(
                log2N: try container.decode(Int.self, forKey: .log2N),
                r: try container.decode(Int.self, forKey: .r),
                p: try container.decode(Int.self, forKey: .p))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(algorithm, forKey: .algorithm)
        switch self {
        case let .argon2id(memoryKiB, iterations, parallelism):
            try container.encode(memoryKiB, forKey: .memoryKiB)
            try container.encode(iterations, forKey: .iterations)
            try container.encode(parallelism, forKey: .parallelism)
        case let .scrypt(log2N, r, p):
            try container.encode(log2N, forKey: .log2N)
            try container.encode(r, forKey: .r)
            try container.encode(p, forKey: .p)
        }
    }
}

// MARK: - Canonical text

extension KDFParameters {
    /// The canonical JSON text: sorted keys, no whitespace. Deterministic, so it can be authenticated.
    public var encoded: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        // Encoding an enum of integers into JSON cannot fail; the fallback only avoids a trap.
        guard let data = try? encoder.encode(self) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }

    /// Parses the canonical text and nothing else: a different spelling of the same value (spaces, other
    /// key order, extra keys) is refused, so one value has one stored form. Does not `validate()`.
    public init(encoded text: String) throws {
        guard text.utf8.count <= 256,
              let parsed = try? JSONDecoder().decode(KDFParameters.self, from: Data(text.utf8)),
              parsed.encoded == text
        else {
            throw CryptoVaultError(.invalidInput, "the KDF parameters are not in their canonical JSON form")
        }
        self = parsed
    }
}
