internal import CArgon2
internal import CSodium
import Glibc

/// Passphrase → key derivation for keyslots: Argon2id (RFC 9106) through libargon2, and scrypt
/// (RFC 7914) through libsodium for compatibility.
public enum KDFScheme {
    /// RFC 9106 recommends 16-byte salts; the public API accepts nothing shorter.
    static let minimumSaltCount = 16

    /// Limits on the byte inputs. A salt, associated data and secret can come from a vault header, so
    /// they are capped like the costs are; the caps also keep every length inside libargon2's 32-bit fields.
    enum InputLimit {
        static let saltCount = 1...1024
        static let outputCount = 16...1024
        static let associatedDataCount = 65_536
        static let secretCount = 1024
    }

    /// Derives `outputCount` bytes from `password`, straight into locked memory.
    ///
    /// `parameters` are validated first, before any memory is allocated, so a hostile header fails fast.
    /// Argon2id also takes RFC 9106's optional `secret` (K, e.g. a device key) and `associatedData` (X,
    /// e.g. the vault and slot identifiers); scrypt has neither input, so passing them with scrypt throws
    /// rather than silently dropping a key the caller believes is bound in.
    public static func deriveKey(
        from password: SecureBytes,
        salt: [UInt8],
        parameters: KDFParameters,
        secret: SecureBytes? = nil,
        associatedData: [UInt8] = [],
        outputCount: Int = 32
    ) throws -> SecureBytes {
        try parameters.validate()
        // Policy floor for salts (RFC 9106 recommends 16 bytes); the unchecked paths below enforce only
        // the caps, because the RFC 7914 vectors use shorter salts.
        guard salt.count >= minimumSaltCount else {
            throw CryptoVaultError(.invalidInput, "a salt must be at least 16 bytes, got \(salt.count)")
        }
        switch parameters {
        case let .argon2id(memoryKiB, iterations, parallelism):
            return try deriveArgon2idUnchecked(
                password: password, salt: salt, secret: secret, associatedData: associatedData,
                memoryKiB: memoryKiB, iterations: iterations, parallelism: parallelism, outputCount: outputCount)
        case let .scrypt(log2N, r, p):
            guard secret == nil, associatedData.isEmpty else {
                throw CryptoVaultError(.invalidInput, "scrypt has no secret or associated-data input")
            }
            return try deriveScryptUnchecked(
                password: password, salt: salt, log2N: log2N, r: r, p: p, outputCount: outputCount)
        }
    }

    static func checkInputs(salt: [UInt8], secret: SecureBytes?, associatedData: [UInt8], outputCount: Int) throws {
        guard InputLimit.saltCount.contains(salt.count) else {
            throw CryptoVaultError(.invalidInput, "a salt must be 1 to 1024 bytes, got \(salt.count)")
        }
        guard InputLimit.outputCount.contains(outputCount) else {
            throw CryptoVaultError(.invalidInput, "a derived key must be 16 to 1024 bytes, asked for \(outputCount)")
        }
        guard associatedData.count <= InputLimit.associatedDataCount else {
            throw CryptoVaultError(.invalidInput, "associated data is limited to 64 KiB, got \(associatedData.count) bytes")
        }
        guard (secret?.count ?? 0) <= InputLimit.secretCount else {
            throw CryptoVaultError(.invalidInput, "an Argon2id secret input is limited to 1024 bytes")
        }
    }
}

// MARK: - Argon2id backend (libargon2)

extension KDFScheme {
    /// Argon2id v1.3 WITHOUT the floor and ceiling checks (costs, salt minimum): only for known-answer
    /// tests (RFC 9106 uses m=32 KiB) and internal callers that validated already. Input length caps are
    /// still checked, and libargon2 still rejects costs outside its own limits.
    static func deriveArgon2idUnchecked(
        password: SecureBytes, salt: [UInt8], secret: SecureBytes?, associatedData: [UInt8],
        memoryKiB: Int, iterations: Int, parallelism: Int, outputCount: Int
    ) throws -> SecureBytes {
        try checkInputs(salt: salt, secret: secret, associatedData: associatedData, outputCount: outputCount)
        let costs = try Argon2Costs(memoryKiB: memoryKiB, iterations: iterations, lanes: parallelism)
        let output = try SecureBytes(count: outputCount)
        let status = output.withUnsafeMutableBytes { out in
            password.withUnsafeBytes { passwordBytes in
                withBytes(of: secret) { secretBytes in
                    salt.withUnsafeBytes { saltBytes in
                        associatedData.withUnsafeBytes { adBytes in
                            runArgon2id(
                                output: out, password: passwordBytes, salt: saltBytes,
                                secret: secretBytes, associatedData: adBytes, costs: costs)
                        }
                    }
                }
            }
        }
        try throwIfArgon2Failed(status)
        return output
    }

    private struct Argon2Costs {
        let memoryKiB: UInt32
        let iterations: UInt32
        let lanes: UInt32

        init(memoryKiB: Int, iterations: Int, lanes: Int) throws {
            guard let memory = UInt32(exactly: memoryKiB), let passes = UInt32(exactly: iterations),
                  let lanes = UInt32(exactly: lanes)
            else {
                throw CryptoVaultError(.kdfParametersOutOfRange, "Argon2id costs must be between 0 and 2^32-1")
            }
            self.memoryKiB = memory
            self.iterations = passes
            self.lanes = lanes
        }
    }

    /// Lengths fit in UInt32: `checkInputs` capped them, and SecureBytes is capped at 64 MiB.
    private static func runArgon2id(
        output: UnsafeMutableRawBufferPointer, password: UnsafeRawBufferPointer, salt: UnsafeRawBufferPointer,
        secret: UnsafeRawBufferPointer, associatedData: UnsafeRawBufferPointer, costs: Argon2Costs
    ) -> Int32 {
        var context = argon2_context(
            out: output.baseAddress?.assumingMemoryBound(to: UInt8.self), outlen: UInt32(output.count),
            pwd: mutableBytes(password), pwdlen: UInt32(password.count),
            salt: mutableBytes(salt), saltlen: UInt32(salt.count),
            secret: mutableBytes(secret), secretlen: UInt32(secret.count),
            ad: mutableBytes(associatedData), adlen: UInt32(associatedData.count),
            t_cost: costs.iterations, m_cost: costs.memoryKiB, lanes: costs.lanes, threads: costs.lanes,
            version: ARGON2_VERSION_13.rawValue,
            allocate_cbk: nil, free_cbk: nil,
            // No ARGON2_FLAG_CLEAR_PASSWORD/SECRET: the inputs are SecureBytes that their owners wipe.
            // libargon2 always wipes its own working memory before freeing it.
            flags: 0)
        return argon2_ctx(&context, Argon2_id)
    }

    private static func throwIfArgon2Failed(_ status: Int32) throws {
        guard status != ARGON2_OK.rawValue else { return }
        let reason = argon2_error_message(status).map { String(cString: $0) } ?? "error \(status)"
        let code: CryptoVaultErrorCode = status == ARGON2_MEMORY_ALLOCATION_ERROR.rawValue ? .outOfMemory : .kdfFailed
        throw CryptoVaultError(code, "Argon2id failed: \(reason)")
    }

    /// libargon2's context has non-const pointers; it writes through them only when the CLEAR flags
    /// are set, and we never set them.
    private static func mutableBytes(_ buffer: UnsafeRawBufferPointer) -> UnsafeMutablePointer<UInt8>? {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return nil }
        return UnsafeMutablePointer(mutating: base.assumingMemoryBound(to: UInt8.self))
    }

    private static func withBytes<Result>(
        of secret: SecureBytes?, _ body: (UnsafeRawBufferPointer) -> Result
    ) -> Result {
        guard let secret else { return body(UnsafeRawBufferPointer(start: nil, count: 0)) }
        return secret.withUnsafeBytes(body)
    }
}

// MARK: - scrypt backend (libsodium)

extension KDFScheme {
    /// scrypt WITHOUT the floor and ceiling checks (costs, salt minimum), for the RFC 7914 vectors
    /// (N=2^14 and 14-byte salts are below our floors). libsodium still refuses r·p ≥ 2^30.
    static func deriveScryptUnchecked(
        password: SecureBytes, salt: [UInt8], log2N: Int, r: Int, p: Int, outputCount: Int
    ) throws -> SecureBytes {
        try checkInputs(salt: salt, secret: nil, associatedData: [], outputCount: outputCount)
        guard (1...40).contains(log2N), let blockSize = UInt32(exactly: r), let lanes = UInt32(exactly: p) else {
            throw CryptoVaultError(.kdfParametersOutOfRange, "scrypt log2N must be 1 to 40 and r, p must fit 32 bits")
        }
        let output = try SecureBytes(count: outputCount)
        let status = output.withUnsafeMutableBytes { out in
            password.withUnsafeBytes { passwordBytes in
                salt.withUnsafeBytes { saltBytes in
                    runScrypt(output: out, password: passwordBytes, salt: saltBytes,
                              n: UInt64(1) << UInt64(log2N), r: blockSize, p: lanes)
                }
            }
        }
        guard status == 0 else {
            // libsodium reports the reason only through errno; after our checks it is almost always memory.
            let code: CryptoVaultErrorCode = status == ENOMEM ? .outOfMemory : .kdfFailed
            throw CryptoVaultError(code, "scrypt failed: \(String(cString: strerror(status)))")
        }
        return output
    }

    /// Returns 0 or the errno libsodium left behind.
    private static func runScrypt(
        output: UnsafeMutableRawBufferPointer, password: UnsafeRawBufferPointer, salt: UnsafeRawBufferPointer,
        n: UInt64, r: UInt32, p: UInt32
    ) -> Int32 {
        // SecureBytes and a checked salt always have a base address; the guard keeps that an assumption
        // we check rather than a force-unwrap.
        guard let out = output.baseAddress?.assumingMemoryBound(to: UInt8.self),
              let passwordBase = password.baseAddress?.assumingMemoryBound(to: UInt8.self),
              let saltBase = salt.baseAddress?.assumingMemoryBound(to: UInt8.self)
        else { return EINVAL }
        errno = 0
        let result = crypto_pwhash_scryptsalsa208sha256_ll(
            passwordBase, password.count, saltBase, salt.count, n, r, p, out, output.count)
        return result == 0 ? 0 : (errno != 0 ? errno : EINVAL)
    }
}

// MARK: - Calibration

extension KDFScheme {
    /// Argon2id parameters whose derivation takes about `targetMilliseconds` on this machine.
    ///
    /// Policy: p stays 4 and nothing goes below the floor (19 MiB, t=2). Memory grows first, up to
    /// 1 GiB, because memory is what makes guessing expensive on GPUs; only then do passes grow (to 64).
    /// If even the floor takes longer than the target, the floor is returned.
    ///
    /// Method: time the floor (three quick runs, fastest kept: the first pays for thread start-up and
    /// page faults, and a preempted run would make everything after it too weak). Then probe, each time
    /// extrapolating linearly in m·t from the latest measurement toward 90% of the target, but never more
    /// than 4× the work in one step: cost per KiB rises with memory (page faults, cache misses), so long
    /// jumps overshoot. Stop once a probe lands within 0.8–1.2× the target. The result is the largest
    /// probe measured at ≤ 1.2× the target. Probes grow geometrically, so their sum stays near 1.5× the
    /// target; a probe predicted to push the total past 3× the target is not run.
    public static func calibrateArgon2id(targetMilliseconds: Int) throws -> KDFParameters {
        guard (1...60_000).contains(targetMilliseconds) else {
            throw CryptoVaultError(.invalidInput, "a calibration target must be 1 to 60000 ms, got \(targetMilliseconds)")
        }
        let target = Double(targetMilliseconds)
        var current = CalibrationCandidate.floor
        var elapsed = try current.measureMilliseconds(runs: 3)
        var spent = 3 * elapsed
        var best = current
        for _ in 0..<10 where elapsed < 0.8 * target || elapsed > 1.2 * target {
            let next = current.scaled(by: min(4, 0.9 * target / elapsed))
            let predicted = elapsed * Double(next.work) / Double(current.work)
            guard next != current, spent + predicted <= 3 * target else { break }
            elapsed = try next.measureMilliseconds(runs: 1)
            spent += elapsed
            if elapsed <= 1.2 * target, next.work > best.work { best = next }
            current = next
        }
        return best.parameters
    }

    private struct CalibrationCandidate: Equatable {
        static let lanes = 4
        static let maximumMemoryKiB = 1_048_576
        static let floor = CalibrationCandidate(
            memoryKiB: KDFParameters.Floor.memoryKiB, iterations: KDFParameters.Floor.iterations)

        let memoryKiB: Int
        let iterations: Int

        var work: Int { memoryKiB * iterations }
        var parameters: KDFParameters {
            .argon2id(memoryKiB: memoryKiB, iterations: iterations, parallelism: Self.lanes)
        }

        /// The candidate with `factor` times the work: memory first (whole MiB), then passes.
        func scaled(by factor: Double) -> CalibrationCandidate {
            let wantedWork = Double(work) * factor
            let floorPasses = KDFParameters.Floor.iterations
            let memory = Int(wantedWork / Double(floorPasses)) / 1024 * 1024
            let clampedMemory = min(max(memory, KDFParameters.Floor.memoryKiB), Self.maximumMemoryKiB)
            guard clampedMemory == Self.maximumMemoryKiB else {
                return CalibrationCandidate(memoryKiB: clampedMemory, iterations: floorPasses)
            }
            let passes = Int(wantedWork / Double(clampedMemory))
            let mostPasses = min(KDFParameters.Ceiling.iterations, KDFParameters.Ceiling.workKiBPasses / clampedMemory)
            let clampedPasses = min(max(passes, floorPasses), mostPasses)
            return CalibrationCandidate(memoryKiB: clampedMemory, iterations: clampedPasses)
        }

        /// The fastest of `runs` derivations from a throwaway password, validated like any others.
        func measureMilliseconds(runs: Int) throws -> Double {
            let password = try SecureBytes.random(count: 32)
            let salt = try SecureBytes.random(count: 16).exposedCopy()
            var fastest = Double.infinity
            for _ in 0..<runs {
                let started = VaultClock.system.monotonic()
                _ = try KDFScheme.deriveKey(from: password, salt: salt, parameters: parameters)
                fastest = min(fastest, (VaultClock.system.monotonic() - started) * 1000)
            }
            return fastest
        }
    }
}
