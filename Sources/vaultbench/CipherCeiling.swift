import CryptoVault
import Foundation

/// What the bundle chunk cipher (ChaCha20-Poly1305, `BulkChaChaPoly`) does in memory, with no file,
/// no process and no key derivation: the most any bundle pipeline built on it can reach. Measured for
/// each engine, so the figures show why bundles are sealed with libcrypto.
enum CipherCeiling {
    /// Bytes per second sealing `total` bytes as 64 KiB chunks on `threads` threads (each with its own
    /// buffers), best of `runs`.
    static func sealRate(threads: Int, engine: BulkChaChaPoly.Engine, total: Int = 512 << 20, runs: Int = 3) -> Double {
        let chunk = 64 << 10
        let perThread = total / threads / chunk
        var best = Double.infinity
        for _ in 0..<runs {
            let start = VaultClock.system.monotonic()
            // Plain threads, like vaultctl's workers (libdispatch would reset their priority).
            let done = DispatchSemaphore(value: 0)
            for _ in 0..<threads {
                Thread.detachNewThread {
                    sealChunks(perThread, of: chunk, engine: engine)
                    done.signal()
                }
            }
            for _ in 0..<threads { done.wait() }
            best = min(best, VaultClock.system.monotonic() - start)
        }
        return Double(perThread * threads * chunk) / best
    }

    private static func sealChunks(_ count: Int, of chunk: Int, engine: BulkChaChaPoly.Engine) {
        let plaintext = [UInt8](repeating: 7, count: chunk)
        var sealed = [UInt8](repeating: 0, count: chunk + BulkChaChaPoly.tagSize)
        let key = [UInt8](repeating: 1, count: BulkChaChaPoly.keySize)
        var nonce = [UInt8](repeating: 0, count: BulkChaChaPoly.nonceSize)
        for index in 0..<count {
            nonce[0] = UInt8(truncatingIfNeeded: index)
            plaintext.withUnsafeBytes { input in
                sealed.withUnsafeMutableBytes { output in
                    key.withUnsafeBytes { BulkChaChaPoly.seal(input, into: output, key: $0, nonce: nonce, engine: engine) }
                }
            }
        }
    }
}
