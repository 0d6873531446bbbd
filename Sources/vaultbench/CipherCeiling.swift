import CSodium
import Foundation

/// What libsodium's ChaCha20-Poly1305 (the cipher of every bundle chunk) does in memory, with no file,
/// no process and no key derivation: the most any bundle pipeline built on it can reach.
enum CipherCeiling {
    /// Bytes per second sealing `total` bytes as 64 KiB chunks on `threads` threads (each with its own
    /// buffers), best of `runs`.
    static func sealRate(threads: Int, total: Int = 512 << 20, runs: Int = 3) -> Double {
        _ = sodium_init()
        let chunk = 64 << 10
        let perThread = total / threads / chunk
        var best = Double.infinity
        for _ in 0..<runs {
            let start = DispatchTime.now().uptimeNanoseconds
            // Plain threads, like vaultctl's workers (libdispatch would reset their priority).
            let done = DispatchSemaphore(value: 0)
            for _ in 0..<threads {
                Thread.detachNewThread {
                    let plaintext = [UInt8](repeating: 7, count: chunk)
                    var sealed = [UInt8](repeating: 0, count: chunk + 16)
                    let key = [UInt8](repeating: 1, count: 32)
                    var nonce = [UInt8](repeating: 0, count: 12)
                    for index in 0..<perThread {
                        nonce[0] = UInt8(truncatingIfNeeded: index)
                        _ = crypto_aead_chacha20poly1305_ietf_encrypt(&sealed, nil, plaintext, UInt64(chunk), nil, 0, nil, nonce, key)
                    }
                    done.signal()
                }
            }
            for _ in 0..<threads { done.wait() }
            best = min(best, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
        }
        return Double(perThread * threads * chunk) / best
    }
}

extension CipherCeiling {
    static var version: String { String(cString: sodium_version_string()) }
}
