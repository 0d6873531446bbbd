internal import CSodium

/// Secret bytes in memory that the swapper never sees and that is wiped when released.
///
/// The storage comes from `sodium_malloc` (guard pages, `mlock`ed, canary), and `sodium_free` zeroes it
/// before returning it. Contents are reachable only through `withUnsafeBytes`; the type prints as
/// `SecureBytes(N bytes)`, is not `Codable`, and compares in constant time.
public final class SecureBytes: @unchecked Sendable {
    // Sendable by construction: the pointer never changes after init, and the only mutation path
    // (`withUnsafeMutableBytes`) is used by the owner while building a value, before it is shared.
    private let pointer: UnsafeMutableRawPointer
    public let count: Int

    /// Zero-filled secret storage of `count` bytes.
    public init(count: Int) throws {
        try Sodium.ensureInitialized()
        guard count >= 0, count <= 1 << 26 else {
            throw CryptoVaultError(.invalidInput, "secret buffer size \(count) is out of range")
        }
        // sodium_malloc(0) is allowed but returns a pointer we must not touch; allocate one byte instead.
        guard let raw = sodium_malloc(max(count, 1)) else {
            throw CryptoVaultError(.outOfMemory, "could not allocate locked memory for a secret")
        }
        sodium_memzero(raw, max(count, 1))
        self.pointer = raw
        self.count = count
    }

    /// A copy of `bytes`. The caller remains responsible for the source (use for public test data or
    /// for secrets that already live in other wiped storage).
    public convenience init(copying bytes: some Collection<UInt8>) throws {
        try self.init(count: bytes.count)
        withUnsafeMutableBytes { destination in
            _ = destination.initializeMemory(as: UInt8.self, from: bytes)
        }
    }

    /// `count` bytes from the operating system's CSPRNG.
    public static func random(count: Int) throws -> SecureBytes {
        let secret = try SecureBytes(count: count)
        secret.withUnsafeMutableBytes { buffer in
            if let base = buffer.baseAddress { randombytes_buf(base, buffer.count) }
        }
        return secret
    }

    deinit {
        sodium_free(pointer)
    }

    public func withUnsafeBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try body(UnsafeRawBufferPointer(start: pointer, count: count))
    }

    public func withUnsafeMutableBytes<Result>(_ body: (UnsafeMutableRawBufferPointer) throws -> Result) rethrows -> Result {
        try body(UnsafeMutableRawBufferPointer(start: pointer, count: count))
    }

    /// Zeroes the first `count` bytes (a scratch buffer reused for one secret after another).
    func wipe(prefix count: Int) {
        precondition(count >= 0 && count <= self.count, "wipe out of bounds")
        if count > 0 { sodium_memzero(pointer, count) }
    }

    /// A new secret holding bytes `range` of this one.
    public func slice(_ range: Range<Int>) throws -> SecureBytes {
        precondition(range.lowerBound >= 0 && range.upperBound <= count, "slice out of bounds")
        let part = try SecureBytes(count: range.count)
        part.withUnsafeMutableBytes { destination in
            withUnsafeBytes { source in
                destination.copyMemory(from: UnsafeRawBufferPointer(rebasing: source[range]))
            }
        }
        return part
    }

    /// A new secret holding this one followed by `other`.
    public func appending(_ other: SecureBytes) throws -> SecureBytes {
        let joined = try SecureBytes(count: count + other.count)
        joined.withUnsafeMutableBytes { destination in
            withUnsafeBytes { destination.copyMemory(from: $0) }
            other.withUnsafeBytes { source in
                UnsafeMutableRawBufferPointer(rebasing: destination[count...]).copyMemory(from: source)
            }
        }
        return joined
    }

    /// Copies the secret out into an ordinary array. Only for values that stop being secret once
    /// produced (a public key, a ciphertext) or for tests; the copy is not wiped.
    public func exposedCopy() -> [UInt8] {
        withUnsafeBytes { Array($0) }
    }
}

extension SecureBytes: Equatable {
    /// Constant-time for equal lengths; lengths are not secret.
    public static func == (lhs: SecureBytes, rhs: SecureBytes) -> Bool {
        guard lhs.count == rhs.count else { return false }
        if lhs.count == 0 { return true }
        return lhs.withUnsafeBytes { left in
            rhs.withUnsafeBytes { right in
                sodium_memcmp(left.baseAddress!, right.baseAddress!, lhs.count) == 0
            }
        }
    }
}

extension SecureBytes: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String { "SecureBytes(\(count) bytes)" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}

/// Constant-time equality for public-length byte strings such as MACs and tags.
public func constantTimeEquals(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
    guard lhs.count == rhs.count else { return false }
    if lhs.isEmpty { return true }
    return lhs.withUnsafeBytes { left in
        rhs.withUnsafeBytes { right in sodium_memcmp(left.baseAddress!, right.baseAddress!, lhs.count) == 0 }
    }
}
