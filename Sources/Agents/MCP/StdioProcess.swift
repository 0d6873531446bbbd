import CryptoVault
import Glibc
internal import CSubprocess

/// A child process reached over its standard streams, one line per message: the MCP stdio transport.
/// Every syscall on the child's pipes is in this file, EINTR retried here.
///
/// The child starts with a clean environment (only what `environment` names), no descriptor of ours
/// beyond its two pipes, its standard error discarded (it may write anything), and a process group of
/// its own that `stop()` ends as a whole. Every read has a deadline and a bound on the line; a line
/// past the bound or a missed deadline is an error, never a wait without end or a buffer without end.
/// Not thread-safe: one owner (the bridge, behind its lock) drives it.
final class StdioProcess {
    let pid: pid_t
    private var toChild: Int32
    private var fromChild: Int32
    private var buffered: [UInt8] = []
    private var scanned = 0
    private var exited = false
    let maximumLineBytes: Int
    /// The clock of the deadlines and of `stop()`'s grace periods.
    let clock: VaultClock

    init(command: [String], environment: [String: String], maximumLineBytes: Int, clock: VaultClock = .system) throws(AgentsError) {
        guard let program = command.first, !program.isEmpty else {
            throw AgentsError(.invalidServerConfiguration, "an MCP server needs a command to run")
        }
        var pid: pid_t = 0, toChild: Int32 = -1, fromChild: Int32 = -1
        let environmentLines = environment.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        let result = Self.withCStrings(command) { argv in
            Self.withCStrings(environmentLines) { envp in subprocess_spawn(argv, envp, &pid, &toChild, &fromChild) }
        }
        guard result == 0 else {
            throw AgentsError(.mcpServerUnavailable, "cannot start the MCP server '\(program)': \(String(cString: strerror(errno)))")
        }
        self.pid = pid
        self.toChild = toChild
        self.fromChild = fromChild
        self.maximumLineBytes = maximumLineBytes
        self.clock = clock
    }

    deinit { stop() }

    /// Null-terminated C string arrays for argv and envp, alive for the duration of `body`.
    private static func withCStrings<T>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> T) -> T {
        let copies = strings.map { strdup($0) }
        defer { copies.forEach { free($0) } }
        let pointers = copies.map { UnsafePointer($0) } + [nil]
        return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
    }

    /// Writes `line` and a newline, waiting at most until `deadline` for the pipe to take it.
    func send(_ line: [UInt8], before deadline: MonotonicDeadline) throws(AgentsError) {
        let bytes = line + [0x0A]
        var offset = 0
        while offset < bytes.count {
            guard toChild >= 0 else { throw AgentsError(.mcpServerUnavailable, "the MCP server's input is closed") }
            let written = bytes[offset...].withUnsafeBytes { subprocess_write(toChild, $0.baseAddress, $0.count) }
            if written > 0 { offset += written; continue }
            switch errno {
            case EINTR: continue
            case EAGAIN: try wait(toChild, for: Int16(POLLOUT), until: deadline, doing: "take a request")
            case EPIPE: throw AgentsError(.mcpServerUnavailable, "the MCP server closed its input")
            default: throw AgentsError(.mcpServerUnavailable, "cannot write to the MCP server: \(String(cString: strerror(errno)))")
            }
        }
    }

    /// The next line (without its newline), waiting at most until `deadline`. A line longer than
    /// `maximumLineBytes` is refused as soon as the bound passes, without reading the rest of it.
    func receiveLine(before deadline: MonotonicDeadline) throws(AgentsError) -> [UInt8] {
        while true {
            if let newline = buffered[scanned...].firstIndex(of: 0x0A) {
                let line = Array(buffered[..<newline])
                buffered.removeFirst(newline + 1)
                scanned = 0
                return line
            }
            scanned = buffered.count
            guard buffered.count <= maximumLineBytes else {
                throw AgentsError(.mcpTooLarge, "the MCP server sent a message longer than \(maximumLineBytes) bytes")
            }
            try readSome(before: deadline)
        }
    }

    private func readSome(before deadline: MonotonicDeadline) throws(AgentsError) {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fromChild, $0.baseAddress, $0.count) }
            if count > 0 { buffered += chunk[..<count]; return }
            if count == 0 { throw AgentsError(.mcpServerUnavailable, "the MCP server closed its output (it exited or crashed)") }
            switch errno {
            case EINTR: continue
            case EAGAIN: try wait(fromChild, for: Int16(POLLIN), until: deadline, doing: "answer")
            default: throw AgentsError(.mcpServerUnavailable, "cannot read from the MCP server: \(String(cString: strerror(errno)))")
            }
        }
    }

    private func wait(_ descriptor: Int32, for events: Int16, until deadline: MonotonicDeadline,
                      doing what: String) throws(AgentsError) {
        while true {
            let milliseconds = deadline.remainingMilliseconds(cappedAt: .max)
            guard milliseconds > 0 else { throw AgentsError(.mcpTimeout, "the MCP server did not \(what) in time") }
            var entry = pollfd(fd: descriptor, events: events, revents: 0)
            let ready = poll(&entry, 1, milliseconds)
            if ready > 0 { return }
            if ready < 0, errno != EINTR { throw AgentsError(.mcpServerUnavailable, "poll failed: \(String(cString: strerror(errno)))") }
        }
    }

    /// Ends the server the way the MCP lifecycle says: close its input, give it a moment to exit,
    /// then SIGTERM to its group, then SIGKILL. Bounded: at most about 2 seconds.
    func stop() {
        guard !exited else { return }
        if toChild >= 0 { close(toChild); toChild = -1 }
        if fromChild >= 0 { close(fromChild); fromChild = -1 }
        if reaped(within: .milliseconds(500)) { return }
        kill(-pid, SIGTERM)
        if reaped(within: .milliseconds(1000)) { return }
        kill(-pid, SIGKILL)
        _ = reaped(within: .seconds(5))
    }

    /// True once the child is gone (its status collected), polling until `limit` passes.
    private func reaped(within limit: Duration) -> Bool {
        let end = MonotonicDeadline.after(limit, on: clock)
        var status: Int32 = 0
        while true {
            let result = waitpid(pid, &status, WNOHANG)
            if result == pid || (result < 0 && errno == ECHILD) { exited = true; return true }
            if end.hasPassed { return false }
            usleep(10_000)
        }
    }
}
