import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// DOCX and PDF made from the Markdown the egress funnel released, by programs that take the text
/// on standard input and give the document back on standard output: the plaintext is never in
/// their arguments (other users can read those in /proc) nor in a file anyone writes; the output
/// then goes to the target like any other export. Each program gets a bounded time and is killed
/// past it, so a stuck conversion cannot hang the command.
///
/// DOCX is pandoc alone. PDF is pandoc to ms (groff's macro package), then groff with its PDF
/// output device (gropdf) — not pandoc's `--pdf-engine`: every engine that drives (LaTeX,
/// wkhtmltopdf, WeasyPrint, pdfroff) reads the document from a file pandoc writes in clear in its
/// temporary folder, whereas groff's stages (preconv, tbl, troff, gropdf) are joined by pipes.
/// groff's standard fonts cover Latin scripts; characters outside them are left out of the PDF
/// (html or docx keep every script).
enum PandocConversion {
    static let secondsAllowed = 120.0

    /// One program and its arguments.
    struct Step {
        let program: String
        let arguments: [String]
    }

    static func convert(_ markdown: [UInt8], to format: String) throws -> Data {
        var data = Data(markdown)
        for step in try steps(for: format) { data = try run(step, input: data) }
        return data
    }

    /// The programs that make `format`, in order; throws, naming what to install, when one is
    /// missing. Called before the export is decided, so a missing tool records nothing.
    static func steps(for format: String) throws -> [Step] {
        let pandoc = try required("pandoc", for: format, package: "pandoc")
        let from = ["--from", "commonmark+pipe_tables", "--output", "-"]
        guard format == "pdf" else { return [Step(program: pandoc, arguments: from + ["--to", format])] }
        let groff = try required("groff", for: format, package: "groff")
        _ = try required("gropdf", for: format, package: "groff")
        // -t: tables through tbl; -k -Kutf8: UTF-8 input through preconv; -ms: the macros pandoc's ms writer uses.
        return [Step(program: pandoc, arguments: from + ["--to", "ms", "--standalone"]),
                Step(program: groff, arguments: ["-t", "-k", "-Kutf8", "-ms", "-Tpdf"])]
    }

    private static func required(_ name: String, for format: String, package: String) throws -> String {
        guard let found = executable(name) else {
            throw WritingError(.exportToolMissing, "export to \(format) needs \(name), which is not installed: "
                               + "install it ('apt-get install \(package)'), or export md or html")
        }
        return found
    }

    /// Runs `step`, feeding `input` on a thread of its own (a program may write before it has read
    /// everything, and two full pipes would deadlock), and returns its standard output.
    private static func run(_ step: Step, input: Data) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: step.program)
        process.arguments = step.arguments
        let stdin = Pipe(), stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = FileHandle.nullDevice   // its messages could quote the text
        try process.run()
        let feeding = Thread {
            // A program that exits before reading everything must fail this write (EPIPE), not kill
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
        let name = URL(fileURLWithPath: step.program).lastPathComponent
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            let how = process.terminationReason == .exit ? "exited with status \(process.terminationStatus)" : "was stopped after \(Int(secondsAllowed)) seconds"
            throw WritingError(.exportFailed, "\(name) \(how); nothing written")
        }
        return output
    }

    /// `name` found on PATH, as an executable file.
    private static func executable(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}
