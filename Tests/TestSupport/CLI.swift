import Foundation

/// Runs the built vaultctl binary as a user would, with files for its output.
public enum CLI {
    public struct Result: Sendable {
        public let status: Int32
        public let stdout: String
        public let stderr: String

        public init(status: Int32, stdout: String, stderr: String) {
            self.status = status
            self.stdout = stdout
            self.stderr = stderr
        }
    }

    /// `VAULTCTL_BIN` (as `make test` sets it), else the debug build in the package.
    public static let binary: String = {
        if let path = ProcessInfo.processInfo.environment["VAULTCTL_BIN"], !path.isEmpty { return path }
        return PackageFiles.url(".build/debug/vaultctl").path
    }()

    /// Arguments for a vault made with the KDF floor, so tests stay fast.
    public static let fastKDF = ["--kdf-memory-mib", "19", "--kdf-iterations", "2", "--kdf-parallelism", "1"]

    public static func run(_ arguments: [String], stdin: String? = nil, environment: [String: String]? = nil) throws -> Result {
        let process = try start(arguments, stdin: stdin, environment: environment)
        process.process.waitUntilExit()
        return process.result()
    }

    public final class Running {
        public let process: Process
        public let outputPath: String
        public let errorPath: String

        public init(process: Process, outputPath: String, errorPath: String) {
            self.process = process
            self.outputPath = outputPath
            self.errorPath = errorPath
        }

        /// A run whose result is never read (a daemon stopped by its test, a client killed mid-way)
        /// leaves no output files either.
        deinit { removeOutputFiles() }

        private func removeOutputFiles() {
            try? FileManager.default.removeItem(atPath: outputPath)
            try? FileManager.default.removeItem(atPath: errorPath)
        }

        public func result() -> Result {
            defer { removeOutputFiles() }
            let read = { (path: String) in String(decoding: FileManager.default.contents(atPath: path) ?? Data(), as: UTF8.self) }
            return Result(status: process.terminationStatus, stdout: read(outputPath), stderr: read(errorPath))
        }
    }

    public static func start(_ arguments: [String], stdin: String? = nil, environment: [String: String]? = nil,
                      executable: String = binary) throws -> Running {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment { process.environment = environment }
        let base = NSTemporaryDirectory() + "vaultctl-out-\(UUID().uuidString)"
        FileManager.default.createFile(atPath: base + ".out", contents: nil)
        FileManager.default.createFile(atPath: base + ".err", contents: nil)
        process.standardOutput = FileHandle(forWritingAtPath: base + ".out")
        process.standardError = FileHandle(forWritingAtPath: base + ".err")
        let input = Pipe()
        process.standardInput = input
        try process.run()
        if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
        try? input.fileHandleForWriting.close()
        return Running(process: process, outputPath: base + ".out", errorPath: base + ".err")
    }
}

/// A temporary folder with a vault made through the CLI, removed afterwards.
public final class CLIVault {
    public let root: String
    public let directory: String
    public let passphraseFile: String
    public static let passphrase = "correct horse battery staple"

    public init(create: Bool = true) throws {
        root = NSTemporaryDirectory() + "vaultctl-test-\(UUID().uuidString)"
        directory = root + "/vault"
        passphraseFile = root + "/passphrase"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        try write(Self.passphrase + "\n", to: passphraseFile)
        if create {
            let result = try CLI.run(["init", "--vault", directory, "--passphrase-file", passphraseFile] + CLI.fastKDF)
            guard result.status == 0 else { throw CLIError(message: "init failed: \(result.stderr)") }
        }
    }

    deinit {
        try? FileManager.default.removeItem(atPath: root)
    }

    public func write(_ text: String, to path: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    }

    /// Runs a command on this vault, unlocking with the passphrase file.
    public func run(_ arguments: [String], unlock: Bool = true, stdin: String? = nil) throws -> CLI.Result {
        try CLI.run(arguments + ["--vault", directory] + (unlock ? ["--passphrase-file", passphraseFile] : []), stdin: stdin)
    }

    /// A backup of this vault as it is now (`backup -o`), restored into a new vault folder
    /// (`restore-backup --into`), as an owner brings a vault back; thrown with both outputs when
    /// either command fails.
    public func restoredFromBackup() throws -> CLIVault {
        let backup = root + "/backup-\(UUID().uuidString)"
        let made = try run(["backup", "-o", backup])
        guard made.status == 0 else { throw CLIError(message: "backup exited \(made.status): \(made.stdout) \(made.stderr)") }
        let restored = try CLIVault(create: false)
        let restore = try CLI.run(["restore-backup", backup, "--into", restored.directory, "--passphrase-file", restored.passphraseFile])
        guard restore.status == 0 else { throw CLIError(message: "restore-backup exited \(restore.status): \(restore.stdout) \(restore.stderr)") }
        return restored
    }
}

public struct CLIError: Error {
    public let message: String

    public init(message: String) { self.message = message }
}

/// Runs vaultctl on a pseudo-terminal through util-linux `script`, typing `lines` at its prompts
/// (a pause before each, so the prompt has turned echo off first). Returns everything the terminal
/// showed. Bounded: the terminal is killed after `seconds` (exit 124, as `timeout` reports it).
public enum Terminal {
    public static func run(_ arguments: [String], typing lines: [String], seconds: Int = 120) throws -> CLI.Result {
        let quoted = ([CLI.binary] + arguments).map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        let typed = lines.map { "sleep 0.7; printf '%s\\n' '\($0)'" }.joined(separator: "; ")
        // With nothing to type, the terminal's input is simply empty ("()" would be a syntax error).
        let pipeline = "(\(lines.isEmpty ? "true" : typed)) | timeout -k 5 \(seconds) script -qec \"\(quoted.joined(separator: " "))\" /dev/null"
        let running = try CLI.start(["-c", pipeline], executable: "/bin/sh")
        running.process.waitUntilExit()
        return running.result()
    }
}
