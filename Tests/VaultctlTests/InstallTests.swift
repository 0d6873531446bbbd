import Foundation
import Testing

/// The man page and completions are generated from the command declarations; `make install` puts
/// them, the binary and the systemd user unit where a system looks for them.
@Suite("vaultctl: man page, completions and make install")
struct InstallTests {
    static func commandPaths() throws -> [String] {
        // The overview lists each command as "  PATH  synopsis"; help --man has one .SS per command.
        let man = try CLI.run(["help", "--man"]).stdout
        return man.split(separator: "\n").filter { $0.hasPrefix(".SS ") }
            .map { String($0.dropFirst(4)).replacingOccurrences(of: "\\-", with: "-") }
    }

    @Test("help --man is roff with its sections and one entry per command")
    func manPage() throws {
        let man = try CLI.run(["help", "--man"])
        #expect(man.status == 0)
        for section in [".TH VAULTCTL 1", ".SH NAME", ".SH SYNOPSIS", ".SH DESCRIPTION", ".SH COMMANDS", ".SH EXIT STATUS"] {
            #expect(man.stdout.contains(section), "missing \(section)")
        }
        let paths = try Self.commandPaths()
        #expect(paths.contains("init") && paths.contains("compartment create") && paths.contains("restore") && paths.count > 40, "\(paths)")
        let overview = try CLI.run(["help"]).stdout
        for path in paths { #expect(overview.contains(path), "\(path) is in the man page but not the overview") }
    }

    @Test("bash and zsh completion name every command; bash completes subcommands and options")
    func completions() throws {
        let bash = try CLI.run(["completion", "bash"])
        let zsh = try CLI.run(["completion", "zsh"])
        #expect(bash.status == 0 && zsh.status == 0)
        #expect(zsh.stdout.hasPrefix("#compdef vaultctl"))
        for path in try Self.commandPaths() {
            #expect(bash.stdout.contains("\"\(path)\")"), "bash lacks \(path)")
            #expect(zsh.stdout.contains("\"\(path)\")"), "zsh lacks \(path)")
        }
        let script = NSTemporaryDirectory() + "vaultctl-completion-\(UUID().uuidString).bash"
        try Data(bash.stdout.utf8).write(to: URL(fileURLWithPath: script))
        defer { try? FileManager.default.removeItem(atPath: script) }
        let probe = try CLI.start(["-c", """
            source '\(script)'
            COMP_WORDS=(vaultctl compartment ""); COMP_CWORD=2; _vaultctl; echo "subs: ${COMPREPLY[*]}"
            COMP_WORDS=(vaultctl compartment create --reg); COMP_CWORD=3; _vaultctl; echo "opts: ${COMPREPLY[*]}"
            """], executable: "/bin/bash")
        probe.process.waitUntilExit()
        let shown = probe.result().stdout
        #expect(shown.contains("subs: ") && shown.contains("create") && shown.contains("retire"), "\(shown)")
        #expect(shown.contains("opts: --register"), "\(shown)")
    }

    @Test("make install with DESTDIR installs the binary, man page, completions and the systemd user unit")
    func makeInstall() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
        let destination = NSTemporaryDirectory() + "vaultctl-install-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: destination) }
        let made = try CLI.start(["-C", root, "install", "DESTDIR=\(destination)", "PREFIX=/usr", "VAULTCTL_INSTALL_BIN=\(CLI.binary)"],
                                 executable: "/usr/bin/make")
        made.process.waitUntilExit()
        let result = made.result()
        #expect(result.status == 0, "\(result.stderr)")
        for file in ["bin/vaultctl", "share/man/man1/vaultctl.1", "share/bash-completion/completions/vaultctl",
                     "share/zsh/site-functions/_vaultctl", "lib/systemd/user/vaultctl.service"] {
            let path = destination + "/usr/" + file
            #expect((try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0) ?? 0 > 0, "\(file) missing or empty")
        }
        #expect(FileManager.default.isExecutableFile(atPath: destination + "/usr/bin/vaultctl"))
        let installedMan = try String(contentsOfFile: destination + "/usr/share/man/man1/vaultctl.1", encoding: .utf8)
        #expect(installedMan.hasPrefix(".TH VAULTCTL 1"))
    }

    /// The commands an ExecStart= line runs: every absolute path to a `vaultctl` in it.
    static func binaries(inUnit text: String) -> [String] {
        text.split(separator: "\n").filter { $0.hasPrefix("ExecStart=") || $0.hasPrefix("#ExecStart=/") }.flatMap { line in
            line.split(whereSeparator: { " '\"|".contains($0) }).filter { $0.hasPrefix("/") && $0.hasSuffix("/vaultctl") }.map(String.init)
        }
    }

    @Test("the installed systemd unit runs the binary make install wrote (for the PREFIX given) and serves the default vault")
    func installedUnitNamesTheInstalledBinary() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
        for prefix in ["/usr/local", "/opt/vaultctl"] {
            let destination = NSTemporaryDirectory() + "vaultctl-unit-\(UUID().uuidString)"
            defer { try? FileManager.default.removeItem(atPath: destination) }
            let made = try CLI.start(["-C", root, "install", "DESTDIR=\(destination)", "PREFIX=\(prefix)", "VAULTCTL_INSTALL_BIN=\(CLI.binary)"],
                                     executable: "/usr/bin/make")
            made.process.waitUntilExit()
            #expect(made.result().status == 0, "\(made.result().stderr)")
            let unit = try String(contentsOfFile: destination + prefix + "/lib/systemd/user/vaultctl.service", encoding: .utf8)
            let binaries = Self.binaries(inUnit: unit)
            #expect(binaries.count == 2 && binaries.allSatisfy { $0 == prefix + "/bin/vaultctl" }, "\(prefix): \(binaries)")
            #expect(FileManager.default.isExecutableFile(atPath: destination + prefix + "/bin/vaultctl"))
            // No --vault: the daemon serves the vault every other command finds by default.
            #expect(!unit.split(separator: "\n").contains { $0.hasPrefix("ExecStart=/") && $0.contains("--vault") }, "\(unit)")
        }
    }
}
