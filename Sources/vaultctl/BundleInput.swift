import CryptoVault
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The bundle file `open` and `inspect` read: a path, or `-` for standard input. A bundle is read at
/// offsets (header, then chunks), which a pipe cannot do, so piped input is first copied into an
/// unlinked temporary file; that holds only ciphertext, and it vanishes when vaultctl exits.
enum BundleInput {
    static func open(_ path: String) throws -> FileDescriptor {
        guard path == "-" else { return try FileDescriptor.openForReading(path) }
        let input = StandardStreams.current.input
        if input.regularFileSize() != nil { return input }
        return try spoolStandardInput()
    }

    private static func spoolStandardInput() throws -> FileDescriptor {
        var template = Array((NSTemporaryDirectory() + "/vaultctl-stdin-XXXXXX").utf8CString)
        let raw = mkstemp(&template)
        guard raw >= 0 else {
            throw CommandError(message: "cannot make a temporary file for standard input: \(String(cString: strerror(errno)))", exitCode: .ioError)
        }
        unlink(template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) })
        let spool = FileDescriptor(rawValue: raw, path: "standard input", ownsDescriptor: true)
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let count = try buffer.withUnsafeMutableBytes { try StandardStreams.current.input.readFully(into: $0) }
            try buffer.withUnsafeBytes { try spool.write(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
            if count < buffer.count { return spool }
        }
    }
}
