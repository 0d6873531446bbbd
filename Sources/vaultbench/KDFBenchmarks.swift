import AuditChain
import CryptoVault
import Foundation

/// Argon2id cost as a function of memory: a least-squares line through several sizes at t=3, p=4.
func argon2idCostPerMiB() throws {
    let passphrase = try SecureBytes(copying: Array("benchmark passphrase".utf8))
    let salt = Array(repeating: UInt8(7), count: 16)
    var points: [(mebibytes: Double, milliseconds: Double)] = []
    for mebibytes in [32, 64, 128, 256] {
        let parameters = KDFParameters.argon2id(memoryKiB: mebibytes * 1024, iterations: 3, parallelism: 4)
        let milliseconds = try Benchmark.median(3) { _ = try KDFScheme.deriveKey(from: passphrase, salt: salt, parameters: parameters) }
        Benchmark.report("Argon2id t=3 p=4 m=\(mebibytes) MiB", milliseconds, "ms")
        Benchmark.report("  per MiB", milliseconds / Double(mebibytes), "ms/MiB")
        points.append((Double(mebibytes), milliseconds))
    }
    let meanX = points.map(\.mebibytes).reduce(0, +) / Double(points.count)
    let meanY = points.map(\.milliseconds).reduce(0, +) / Double(points.count)
    let slope = points.map { ($0.mebibytes - meanX) * ($0.milliseconds - meanY) }.reduce(0, +)
        / points.map { ($0.mebibytes - meanX) * ($0.mebibytes - meanX) }.reduce(0, +)
    Benchmark.report("Argon2id cost per MiB (t=3, p=4, fitted slope)", slope, "ms/MiB")
    Benchmark.report("Argon2id cost per MiB per pass", slope / 3, "ms/MiB")
}

/// A vault at default parameters: how long `unlock` takes from opening the directory to the key.
func unlockAtDefaults() throws {
    let directory = NSTemporaryDirectory() + "vaultbench-\(UUID().uuidString)"
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let passphrase = try SecureBytes(copying: Array("benchmark passphrase".utf8))
    _ = try Vault.create(at: directory, passphrase: passphrase, kdf: .argon2idDefault, journal: AuditLog())
    let milliseconds = try Benchmark.median(5) {
        _ = try Vault.open(at: directory, journal: AuditLog()).unlock(with: .passphrase(passphrase))
    }
    Benchmark.report("unlock at default parameters (m=64 MiB, t=3, p=4)", milliseconds, "ms")
    let wrong = try SecureBytes(copying: Array("not the passphrase".utf8))
    let refused = Benchmark.median(5) { _ = try? Vault.open(at: directory, journal: AuditLog()).unlock(with: .passphrase(wrong)) }
    Benchmark.report("refusing a wrong passphrase at default parameters", refused, "ms")
}

func scryptAtFloor() throws {
    let passphrase = try SecureBytes(copying: Array("benchmark passphrase".utf8))
    let milliseconds = try Benchmark.median(3) {
        _ = try KDFScheme.deriveKey(from: passphrase, salt: Array(repeating: 1, count: 16), parameters: .scryptFloor)
    }
    Benchmark.report("scrypt at its floor (N=2^15, r=8, p=1)", milliseconds, "ms")
}
