import Foundation
import Testing
import TestSupport
@testable import CryptoVault

/// The RFC's spaced hex, by TestSupport's one decoder (a digit that is not hex stops the test).
private func bytes(_ hex: String) -> [UInt8] { knownHex(hex.filter { !$0.isWhitespace }) }

private func secret(_ text: String) throws -> SecureBytes { try SecureBytes(copying: Array(text.utf8)) }

private func milliseconds(_ duration: Duration) -> Double {
    let (seconds, attoseconds) = duration.components
    return Double(seconds) * 1000 + Double(attoseconds) / 1e15
}

/// The floor with a 16-byte salt: the cheapest derivation the public API accepts.
private let floorSalt = [UInt8](repeating: 0x5a, count: 16)

/// Serialized: the calibration and timing tests measure wall-clock time, and the derivations here each
/// take tens of MiB and all cores, so running them side by side would only distort the measurements.
@Suite(.serialized) struct KDFSchemeTests {
    // MARK: Known answers

    /// RFC 9106 §5.3: Argon2id v1.3 with secret (K) and associated data (X). m=32 KiB is below our floor,
    /// so only the internal unchecked path can run it.
    @Test func argon2idMatchesRFC9106Vector() throws {
        let tag = try KDFScheme.deriveArgon2idUnchecked(
            password: SecureBytes(copying: [UInt8](repeating: 0x01, count: 32)),
            salt: [UInt8](repeating: 0x02, count: 16),
            secret: SecureBytes(copying: [UInt8](repeating: 0x03, count: 8)),
            associatedData: [UInt8](repeating: 0x04, count: 12),
            memoryKiB: 32, iterations: 3, parallelism: 4, outputCount: 32)
        #expect(tag.exposedCopy() == bytes("""
            0d 64 0d f5 8d 78 76 6c 08 c0 37 a3 4a 8b 53 c9 d0 1e f0 45 2d 75 b6 5e b5 25 20 e9 6b 01 e6 59
            """))
    }

    /// The same vector through the public API is refused: its memory is below the floor.
    @Test func publicAPIRefusesTheRFC9106CostsAsTooWeak() throws {
        let error = try #require(throws: CryptoVaultError.self) {
            try KDFScheme.deriveKey(
                from: SecureBytes(copying: [UInt8](repeating: 0x01, count: 32)),
                salt: [UInt8](repeating: 0x02, count: 16),
                parameters: .argon2id(memoryKiB: 32, iterations: 3, parallelism: 4))
        }
        #expect(error.code == .kdfParametersOutOfRange)
        #expect(error.message == "Argon2id memory 32 KiB is below the floor of 19 MiB")
    }

    struct ScryptVector: Sendable, CustomTestStringConvertible {
        let password: String, salt: String, log2N: Int, r: Int, p: Int, expected: String
        var testDescription: String { "\(password)/\(salt) N=2^\(log2N) r=\(r) p=\(p)" }
    }

    /// RFC 7914 §12. The first vector (empty password and salt, N=16) is not run: an empty salt is
    /// refused by our input checks before libsodium sees it. The N=2^20 vector is skipped for time (1 GiB).
    @Test(arguments: [
        ScryptVector(password: "password", salt: "NaCl", log2N: 10, r: 8, p: 16, expected: """
            fd ba be 1c 9d 34 72 00 78 56 e7 19 0d 01 e9 fe 7c 6a d7 cb c8 23 78 30 e7 73 76 63 4b 37 31 62
            2e af 30 d9 2e 22 a3 88 6f f1 09 27 9d 98 30 da c7 27 af b9 4a 83 ee 6d 83 60 cb df a2 cc 06 40
            """),
        ScryptVector(password: "pleaseletmein", salt: "SodiumChloride", log2N: 14, r: 8, p: 1, expected: """
            70 23 bd cb 3a fd 73 48 46 1c 06 cd 81 fd 38 eb fd a8 fb ba 90 4f 8e 3e a9 b5 43 f6 54 5d a1 f2
            d5 43 29 55 61 3f 0f cf 62 d4 97 05 24 2a 9a f9 e6 1e 85 dc 0d 65 1e 40 df cf 01 7b 45 57 58 87
            """),
    ])
    func scryptMatchesRFC7914Vector(_ vector: ScryptVector) throws {
        let output = try KDFScheme.deriveScryptUnchecked(
            password: secret(vector.password), salt: Array(vector.salt.utf8),
            log2N: vector.log2N, r: vector.r, p: vector.p, outputCount: 64)
        #expect(output.exposedCopy() == bytes(vector.expected))
    }

    @Test func publicScryptPathAgreesWithTheBackend() throws {
        let password = try secret("correct horse")
        let viaAPI = try KDFScheme.deriveKey(from: password, salt: floorSalt, parameters: .scryptFloor)
        let direct = try KDFScheme.deriveScryptUnchecked(
            password: password, salt: floorSalt, log2N: 15, r: 8, p: 1, outputCount: 32)
        #expect(viaAPI == direct)
        let otherSalt = try KDFScheme.deriveKey(
            from: password, salt: [UInt8](repeating: 0x5b, count: 16), parameters: .scryptFloor)
        #expect(viaAPI != otherSalt)
    }

    @Test func scryptRefusesInputsItCannotBind() throws {
        let password = try secret("pw")
        let withSecret = try #require(throws: CryptoVaultError.self) {
            try KDFScheme.deriveKey(from: password, salt: floorSalt, parameters: .scryptFloor,
                                    secret: SecureBytes(copying: [1, 2, 3]))
        }
        #expect(withSecret.code == .invalidInput)
        let withAD = try #require(throws: CryptoVaultError.self) {
            try KDFScheme.deriveKey(from: password, salt: floorSalt, parameters: .scryptFloor, associatedData: [1])
        }
        #expect(withAD.code == .invalidInput)
        #expect(withAD.message.contains("scrypt has no secret or associated-data input"))
    }

    // MARK: Every input matters

    @Test func everyArgon2idInputChangesTheOutput() throws {
        let floor = KDFParameters.argon2idFloor
        func derive(password: String = "pw", salt: [UInt8] = floorSalt, key: [UInt8]? = nil,
                    ad: [UInt8] = [], parameters: KDFParameters = floor) throws -> SecureBytes {
            try KDFScheme.deriveKey(from: secret(password), salt: salt, parameters: parameters,
                                    secret: key.map { try SecureBytes(copying: $0) }, associatedData: ad)
        }
        let base = try derive()
        #expect(try derive() == base, "deterministic")
        #expect(try derive(password: "pW") != base)
        #expect(try derive(salt: [UInt8](repeating: 0x5b, count: 16)) != base)
        #expect(try derive(key: [1]) != base)
        #expect(try derive(key: [1]) != derive(key: [2]))
        #expect(try derive(ad: [1]) != base)
        #expect(try derive(ad: [1]) != derive(ad: [2]))
        #expect(try derive(parameters: .argon2id(memoryKiB: 19_456, iterations: 3, parallelism: 1)) != base)
        #expect(try derive(parameters: .argon2id(memoryKiB: 20_480, iterations: 2, parallelism: 1)) != base)
        #expect(try derive(parameters: .argon2id(memoryKiB: 19_456, iterations: 2, parallelism: 2)) != base)
    }

    @Test func outputIsTheRequestedLength() throws {
        let output = try KDFScheme.deriveKey(
            from: secret("pw"), salt: floorSalt, parameters: .argon2idFloor, outputCount: 64)
        #expect(output.count == 64)
    }

    @Test(arguments: [0, 8, 15])
    func shortSaltsAreRefused(count: Int) throws {
        let error = try #require(throws: CryptoVaultError.self) {
            try KDFScheme.deriveKey(from: secret("pw"), salt: [UInt8](repeating: 1, count: count),
                                    parameters: .argon2idFloor)
        }
        #expect(error.code == .invalidInput)
        #expect(error.message == "a salt must be at least 16 bytes, got \(count)")
    }

    @Test(arguments: [0, 15, 1025])
    func outputLengthsOutsidePolicyAreRefused(count: Int) throws {
        let error = try #require(throws: CryptoVaultError.self) {
            try KDFScheme.deriveKey(from: secret("pw"), salt: floorSalt, parameters: .argon2idFloor,
                                    outputCount: count)
        }
        #expect(error.code == .invalidInput)
        #expect(error.message.contains("derived key"))
    }

    @Test func libargon2ErrorsCarryTheLibraryMessage() throws {
        let error = try #require(throws: CryptoVaultError.self) {
            try KDFScheme.deriveArgon2idUnchecked(
                password: secret("pw"), salt: floorSalt, secret: nil, associatedData: [],
                memoryKiB: 64, iterations: 1, parallelism: 0, outputCount: 32)
        }
        #expect(error.code == .kdfFailed)
        #expect(error.message == "Argon2id failed: Too few lanes")
    }

    // MARK: Floors and ceilings

    struct Rejection: Sendable, CustomTestStringConvertible {
        let parameters: KDFParameters
        let message: String
        var testDescription: String { message }
    }

    static let rejections: [Rejection] = [
        .init(parameters: .argon2id(memoryKiB: 19_455, iterations: 2, parallelism: 1),
              message: "Argon2id memory 19455 KiB is below the floor of 19 MiB"),
        .init(parameters: .argon2id(memoryKiB: 65_536, iterations: 1, parallelism: 4),
              message: "Argon2id iterations 1 is below the floor of 2"),
        .init(parameters: .argon2id(memoryKiB: 65_536, iterations: 3, parallelism: 0),
              message: "Argon2id parallelism 0 is below the floor of 1"),
        .init(parameters: .argon2id(memoryKiB: -1, iterations: 3, parallelism: 4),
              message: "Argon2id memory -1 KiB is below the floor of 19 MiB"),
        .init(parameters: .argon2id(memoryKiB: 8 << 20, iterations: 3, parallelism: 4),
              message: "Argon2id memory 8 GiB exceeds the ceiling of 2 GiB"),
        .init(parameters: .argon2id(memoryKiB: 64 << 20, iterations: 3, parallelism: 4),
              message: "Argon2id memory 64 GiB exceeds the ceiling of 2 GiB"),
        .init(parameters: .argon2id(memoryKiB: 65_536, iterations: 1_000_000, parallelism: 4),
              message: "Argon2id iterations 1000000 exceeds the ceiling of 64"),
        .init(parameters: .argon2id(memoryKiB: 65_536, iterations: 3, parallelism: 17),
              message: "Argon2id parallelism 17 exceeds the ceiling of 16"),
        .init(parameters: .argon2id(memoryKiB: 2 << 20, iterations: 64, parallelism: 16),
              message: "Argon2id work (memory × passes) 128 GiB·passes exceeds the ceiling of 16 GiB·passes"),
        .init(parameters: .argon2id(memoryKiB: 1 << 20, iterations: 17, parallelism: 4),
              message: "Argon2id work (memory × passes) 17 GiB·passes exceeds the ceiling of 16 GiB·passes"),
        .init(parameters: .scrypt(log2N: 21, r: 8, p: 16),
              message: "scrypt work (128·r·N·p) 32 GiB exceeds the ceiling of 16 GiB"),
        .init(parameters: .scrypt(log2N: 14, r: 8, p: 1), message: "scrypt log2N 14 is below the floor of 15"),
        .init(parameters: .scrypt(log2N: 15, r: 7, p: 1), message: "scrypt r 7 is below the floor of 8"),
        .init(parameters: .scrypt(log2N: 15, r: 8, p: 0), message: "scrypt p 0 is below the floor of 1"),
        .init(parameters: .scrypt(log2N: 22, r: 8, p: 1), message: "scrypt log2N 22 exceeds the ceiling of 21"),
        .init(parameters: .scrypt(log2N: 63, r: 8, p: 1), message: "scrypt log2N 63 exceeds the ceiling of 21"),
        .init(parameters: .scrypt(log2N: 15, r: 8, p: 17), message: "scrypt p 17 exceeds the ceiling of 16"),
        .init(parameters: .scrypt(log2N: 21, r: 9, p: 1),
              message: "scrypt memory 2304 MiB (r=9, N=2^21) exceeds the ceiling of 2 GiB"),
        .init(parameters: .scrypt(log2N: 15, r: Int.max / 2, p: 1),
              message: "scrypt memory 128·r·N (r=\(Int.max / 2), N=2^15) exceeds the ceiling of 2 GiB"),
    ]

    /// Each out-of-range set is refused by `deriveKey` for the right reason, and fast: the check runs
    /// before any memory is allocated, so a hostile header costs nothing.
    @Test(arguments: rejections)
    func outOfRangeParametersAreRefusedBeforeAnyWork(_ rejection: Rejection) throws {
        let password = try secret("pw")
        var caught: CryptoVaultError?
        let elapsed = ContinuousClock().measure {
            do {
                _ = try KDFScheme.deriveKey(from: password, salt: floorSalt, parameters: rejection.parameters)
            } catch let error as CryptoVaultError {
                caught = error
            } catch {}
        }
        let error = try #require(caught)
        #expect(error.code == .kdfParametersOutOfRange)
        #expect(error.message == rejection.message)
        #expect(milliseconds(elapsed) < 100, "took \(elapsed): the check must run before the work")
    }

    @Test func boundsThemselvesAreAccepted() throws {
        try KDFParameters.argon2idFloor.validate()
        try KDFParameters.argon2idDefault.validate()
        try KDFParameters.scryptFloor.validate()
        try KDFParameters.argon2id(memoryKiB: 2 << 20, iterations: 8, parallelism: 16).validate()
        try KDFParameters.argon2id(memoryKiB: 256 << 10, iterations: 64, parallelism: 16).validate()
        try KDFParameters.scrypt(log2N: 21, r: 8, p: 8).validate()
        try KDFParameters.scrypt(log2N: 15, r: 512, p: 1).validate()
        #expect(KDFParameters.argon2idDefault == .argon2id(memoryKiB: 65_536, iterations: 3, parallelism: 4))
        #expect(KDFParameters.argon2idFloor == .argon2id(memoryKiB: 19_456, iterations: 2, parallelism: 1))
    }

    // MARK: Upgrades

    @Test func weakerSlotsAreRecognised() {
        let policy = KDFParameters.argon2idDefault
        #expect(KDFParameters.argon2idFloor.isWeaker(than: policy))
        #expect(KDFParameters.argon2id(memoryKiB: 65_536, iterations: 2, parallelism: 4).isWeaker(than: policy))
        #expect(KDFParameters.argon2id(memoryKiB: 131_072, iterations: 2, parallelism: 4).isWeaker(than: policy))
        #expect(KDFParameters.scrypt(log2N: 21, r: 8, p: 16).isWeaker(than: policy), "scrypt upgrades to Argon2id")
        #expect(!policy.isWeaker(than: policy))
        #expect(!KDFParameters.argon2id(memoryKiB: 65_536, iterations: 3, parallelism: 1).isWeaker(than: policy),
                "lanes split the work; fewer lanes is not weaker")
        #expect(!KDFParameters.argon2id(memoryKiB: 262_144, iterations: 4, parallelism: 4).isWeaker(than: policy))
        #expect(!policy.isWeaker(than: .scryptFloor))
        #expect(KDFParameters.scryptFloor.isWeaker(than: .scrypt(log2N: 16, r: 8, p: 1)))
        #expect(KDFParameters.scryptFloor.isWeaker(than: .scrypt(log2N: 15, r: 8, p: 2)))
        #expect(!KDFParameters.scrypt(log2N: 63, r: Int.max, p: 1).isWeaker(than: .scryptFloor), "no overflow trap")
    }

    // MARK: Stored form

    @Test func canonicalTextIsStable() throws {
        #expect(KDFParameters.argon2idDefault.encoded
                == #"{"algorithm":"argon2id","iterations":3,"memoryKiB":65536,"parallelism":4}"#)
        #expect(KDFParameters.scryptFloor.encoded == #"{"algorithm":"scrypt","log2N":15,"p":1,"r":8}"#)
        for parameters in [KDFParameters.argon2idDefault, .argon2idFloor, .scryptFloor] {
            #expect(try KDFParameters(encoded: parameters.encoded) == parameters)
            let viaCodable = try JSONDecoder().decode(KDFParameters.self, from: JSONEncoder().encode(parameters))
            #expect(viaCodable == parameters)
        }
    }

    @Test(arguments: [
        #"{"algorithm":"argon2id", "iterations":3,"memoryKiB":65536,"parallelism":4}"#,
        #"{"memoryKiB":65536,"algorithm":"argon2id","iterations":3,"parallelism":4}"#,
        #"{"algorithm":"argon2id","iterations":3,"memoryKiB":65536,"parallelism":4,"r":8}"#,
        #"{"algorithm":"argon2id","iterations":3,"memoryKiB":65536}"#,
        #"{"algorithm":"argon2d","iterations":3,"memoryKiB":65536,"parallelism":4}"#,
        #"{"algorithm":"argon2id","iterations":3.5,"memoryKiB":65536,"parallelism":4}"#,
        "",
    ])
    func nonCanonicalTextIsRefused(_ text: String) throws {
        let error = try #require(throws: CryptoVaultError.self) { try KDFParameters(encoded: text) }
        #expect(error.code == .invalidInput)
        #expect(error.message.contains("canonical"))
    }

    // MARK: Calibration and timing

    /// The fastest of `runs` derivations with `parameters`, in milliseconds.
    private func fastest(_ parameters: KDFParameters, runs: Int) throws -> Double {
        try (0..<runs).map { _ in
            try milliseconds(ContinuousClock().measure { _ = try KDFScheme.deriveKey(from: secret("pw"), salt: floorSalt, parameters: parameters) })
        }.min() ?? .infinity
    }

    /// Timed against the calibration's own yardstick, the floor (Argon2id 19 MiB, 2 passes, 4 lanes),
    /// measured around it: load that rises or falls while other suites start changes the floor's
    /// time as much as the chosen parameters', so it cannot fail the check (flaky risk F-2a); a
    /// calibration that chose parameters costing much more than the target still does.
    @Test func calibrationStaysWithinPolicyAndTime() throws {
        let target = 250
        let floor = KDFParameters.argon2id(memoryKiB: 19_456, iterations: 2, parallelism: 4)
        var floorTimes = [try fastest(floor, runs: 3)]
        var parameters: KDFParameters?
        let elapsed = try ContinuousClock().measure {
            parameters = try KDFScheme.calibrateArgon2id(targetMilliseconds: target)
        }
        let chosen = try #require(parameters)
        try chosen.validate()
        #expect(!chosen.isWeaker(than: .argon2idFloor))
        guard case let .argon2id(memoryKiB, _, parallelism) = chosen else {
            Issue.record("calibration must choose Argon2id, chose \(chosen)")
            return
        }
        #expect(parallelism == 4)
        #expect(memoryKiB <= 1_048_576)
        // How many floors the chosen parameters cost: each pair measured back to back, the least kept.
        var ratios: [Double] = []
        for _ in 0..<3 {
            let check = try fastest(chosen, runs: 1), floorNow = try fastest(floor, runs: 1)
            floorTimes.append(floorNow)
            ratios.append(check / floorNow)
        }
        let (ratio, quickest, slowest) = (ratios.min()!, floorTimes.min()!, floorTimes.max()!)
        print("calibrated for \(target) ms: \(chosen.encoded), took \(elapsed) to calibrate, costs \(ratio) floors of \(quickest)-\(slowest) ms")
        // The method aims for a result that takes ≤ 1.2× the target, and spends ≤ 3× the target in
        // probes after three floor runs: bounds with room for the measurements' noise.
        #expect(ratio * quickest < Double(target) * 3, "chosen parameters cost \(ratio) floors of \(quickest) ms")
        #expect(milliseconds(elapsed) < Double(target) * 6 + 1000 + 3 * slowest, "calibration took \(elapsed)")
    }

    @Test func calibrationNeverGoesBelowTheFloor() throws {
        let chosen = try KDFScheme.calibrateArgon2id(targetMilliseconds: 1)
        #expect(chosen == .argon2id(memoryKiB: 19_456, iterations: 2, parallelism: 4))
    }

    @Test(arguments: [0, -5, 60_001])
    func calibrationRefusesSillyTargets(_ target: Int) throws {
        let error = try #require(throws: CryptoVaultError.self) {
            try KDFScheme.calibrateArgon2id(targetMilliseconds: target)
        }
        #expect(error.code == .invalidInput)
    }

    /// Also reports what an unlock costs on this machine at the defaults (RFC 9106 second option).
    @Test func defaultParametersDeriveDeterministically() throws {
        let password = try secret("correct horse battery staple")
        var first: SecureBytes?
        let elapsed = try ContinuousClock().measure {
            first = try KDFScheme.deriveKey(from: password, salt: floorSalt, parameters: .argon2idDefault)
        }
        print("Argon2id t=3 m=64 MiB p=4 took \(elapsed)")
        let second = try KDFScheme.deriveKey(from: password, salt: floorSalt, parameters: .argon2idDefault)
        #expect(try #require(first) == second)
    }
}
