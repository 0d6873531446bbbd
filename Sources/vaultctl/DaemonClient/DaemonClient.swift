import Appliance
import Foundation

/// The client side of the daemon's socket: one request per connection, its reply turned into a
/// result or into the error (message, hint, exit code) the daemon reported.
enum DaemonClient {
    /// Sends `request` and returns the daemon's successful reply.
    static func ask(_ arguments: ParsedArguments, _ request: ControlMessage) throws -> ControlMessage {
        let connection = try ControlConnection.connect(to: DaemonSocket.path(arguments))
        return try checked(try connection.exchange(request))
    }

    /// Reads a bundle through the daemon into the `-o` target, if a daemon serves the vault; false if
    /// none answers (the caller then reads it in this process).
    static func read(_ target: ReadTarget, arguments: ParsedArguments) throws -> Bool {
        guard let connection = try connectIfServing(arguments) else { return false }
        let request = try PlaintextRequest(arguments)
        try connection.sendRequest(target.request(arguments))
        let progress = ProgressBar("opening", total: nil)
        try request.output.produce { output in
            _ = try checked(try PlaintextStream.receive(from: connection, into: output, progress: progress))
            progress.finish()
        }
        return true
    }

    /// A privileged stored bundle's name as the daemon reads it in a live session of its compartment:
    /// nil if the daemon holds no such session (or refuses); throws `.noDaemon` if none serves the vault.
    static func sessionName(of bundleID: String, arguments: ParsedArguments) throws -> String? {
        let connection = try ControlConnection.connect(to: DaemonSocket.path(arguments))
        let reply = try connection.exchange(ControlMessage(["op": "name", "bundle": bundleID]))
        return reply.isSuccess ? reply.text("name") : nil
    }

    /// A connection to the daemon, or nil if none serves the vault (or its socket path cannot be one).
    private static func connectIfServing(_ arguments: ParsedArguments) throws -> ControlConnection? {
        do {
            return try ControlConnection.connect(to: DaemonSocket.path(arguments), timeoutSeconds: 120)
        } catch {
            if error.code == .noDaemon || error.code == .socketPathTooLong { return nil }
            throw error
        }
    }

    /// What to read: a stored bundle by id (or prefix), or a bundle file.
    enum ReadTarget {
        case stored(String)
        case file(String)

        func request(_ arguments: ParsedArguments) -> ControlMessage {
            var message = ControlMessage(["op": "read"])
            switch self {
            case .stored(let id): message.set("bundle", id)
            case .file(let path):
                message.set("path", path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path)
            }
            for (option, field) in [("--session", "session"), ("--range", "range"), ("--threads", "threads")] {
                if let value = arguments.value(option) { message.set(field, value) }
            }
            return message
        }
    }

    /// The reply if it says success; otherwise the daemon's error, as this process would report it.
    static func checked(_ reply: ControlMessage) throws -> ControlMessage {
        if reply.isSuccess { return reply }
        let exit = reply.text("exit").flatMap(Int32.init).flatMap(ExitCode.init(rawValue:)) ?? .failure
        throw CommandError(message: reply.text("message") ?? "the daemon refused without saying why", exitCode: exit, hint: reply.text("hint"))
    }
}
