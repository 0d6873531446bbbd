import CryptoVault
import Foundation
enum ZZProfile {
    static func run() throws {
        let unlocked = try Vault.open(at: "/tmp/vb/vault").unlock(with: .passphrase(try SecureBytes(copying: Array("bench passphrase 123".utf8))))
        let compartment = try unlocked.compartment(named: "Bench")
        let null = try FileDescriptor(rawValue: open("/dev/null", O_WRONLY), path: "/dev/null", ownsDescriptor: true)
        for threads in [2, 1] {
            var best = 1e9, bestOpen = 1e9
            for _ in 0..<4 {
                let t0 = DispatchTime.now().uptimeNanoseconds
                try EncryptedBundle.seal(from: try FileDescriptor.openForReading("/tmp/vb/data1g"), to: null, compartment: compartment, vault: unlocked,
                                         metadata: BundleMetadata(name: "x", modificationTime: 0), options: .init(threads: threads))
                let t1 = DispatchTime.now().uptimeNanoseconds
                let opened = try EncryptedBundle.open(try FileDescriptor.openForReading("/tmp/vb/data1g.vb"), vault: unlocked)
                try opened.decrypt(threads: threads) { try null.write($0) }
                let t2 = DispatchTime.now().uptimeNanoseconds
                best = min(best, Double(t1 - t0) / 1e9); bestOpen = min(bestOpen, Double(t2 - t1) / 1e9)
            }
            print("threads \(threads) cpt \(String(cString: getenv("ZZ_CPT") ?? strdup("16"))): seal \(String(format: "%.3f", best)) s \(String(format: "%.0f", 1073.741824 / best)) MB/s, open \(String(format: "%.3f", bestOpen)) s \(String(format: "%.0f", 1073.741824 / bestOpen)) MB/s")
        }
    }
}
