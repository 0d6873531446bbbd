import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// DOCX made by pandoc from the Markdown the egress funnel released. The plaintext reaches
/// pandoc only through a pipe to its standard input and comes back on its standard output (never
/// in its arguments, which other users can read in /proc, nor in a file we write); the output then
/// goes to the target like any other export. pandoc gets a bounded time and is killed past it, so a
/// stuck conversion cannot hang the command.
enum PandocConversion {
    static let secondsAllowed = 120.0

    static func convert(_ markdown: [UInt8], to format: String) throws -> Data {
        let (pandoc, arguments) = try invocation(for: format)
        return try run(pandoc, arguments, input: markdown)
    }

    /// pandoc and its arguments for `format`; throws, naming what to install, when pandoc is missing.
    /// Called before the export is decided, so a missing tool records nothing.
    ///
    /// PDF is refused outright, engine or not: every PDF engine pandoc drives (LaTeX, wkhtmltopdf,
    /// WeasyPrint) reads the document from a file pandoc writes in clear in its temporary folder,
    /// which would leave the plaintext on disk. An HTML export printed from the browser makes the PDF.
    static func invocation(for format: String) throws -> (program: String, arguments: [String]) {
        guard format != "pdf" else {
            throw CommandError(message: "export to pdf is refused: pandoc's PDF engines read the document from a temporary file in clear, which would leave the plaintext on disk",
                               exitCode: .failure, hint: "export html and print it to PDF from your browser, or export docx")
        }
        guard let pandoc = executable("pandoc") else {
            throw CommandError(message: "export to \(format) needs pandoc, which is not installed", exitCode: .failure,
                               hint: "install it ('apt-get install pandoc'), or export md or html")
        }
        return (pandoc, ["--from", "commonmark+pipe_tables", "--output", "-", "--to", format])
    }

    /// Runs `program`, feeding `input` on a thread of its own (pandoc may write before it has read
    /// everything, and two full pipes would deadlock), and returns its standard output.
    private static func run(_ program: String, _ arguments: [String], input: [UInt8]) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        let stdin = Pipe(), stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = FileHandle.nullDevice   // its messages could quote the text
        try process.run()
        let feeding = Thread {
            // A pandoc that exits before reading everything must fail this write (EPIPE), not kill
            // vaultctl: SIGPIPE goes to the writing thread, so blocking it here is enough.
            var pipeSignal = sigset_t()
            sigemptyset(&pipeSignal)
            sigaddset(&pipeSignal, SIGPIPE)
            pthread_sigmask(SIG_BLOCK, &pipeSignal, nil)
            try? stdin.fileHandleForWriting.write(contentsOf: input)
            try? stdin.fileHandleForWriting.close()
        }
        feeding.start()
        let deadline = DispatchWorkItem { if process.isRunning { process.terminate() } }
        DispatchQueue.global().asyncAfter(deadline: .now() + secondsAllowed, execute: deadline)
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        deadline.cancel()
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            let how = process.terminationReason == .exit ? "exited with status \(process.terminationStatus)" : "was stopped after \(Int(secondsAllowed)) seconds"
            throw CommandError(message: "pandoc \(how); nothing written", exitCode: .failure)
        }
        return output
    }

    /// `name` found on PATH, as an executable file.
    private static func executable(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}
