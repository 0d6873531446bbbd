import Appliance
import AuditChain
@testable import CryptoVault
import Foundation
import Testing
import TestSupport

/// kill -9 at random moments of seal, put and compartment rewrap: nothing partial is ever visible,
/// the vault opens, and nothing stored before is lost. Each storm first measures how long the command
/// takes (the median of three runs: fsync times vary), then kills it at a uniformly random moment up
/// to 1.5 times that, so some kills land before the work starts, some in the middle, and some after
/// it finished; each test asserts that the outcomes it depends on actually occurred. On a loaded
/// machine the measured time says little about when the work itself runs, so every third round
/// instead kills the moment the work is seen on disk: the middle is then reached by observation,
/// not by luck.
@Suite("vaultctl: kill -9 during seal, put and rewrap", .serialized)
struct BundleCrashTests {
    @Test("kill -9 during seal -o OUT: OUT is absent or a complete bundle that opens to the exact input")
    func killDuringSeal() throws {
        let fixture = try CrashFixture()
        let input = try fixture.randomFile("scan.raw", megabytes: 4)
        let out = fixture.root + "/out"
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let seal = { (name: String) in ["seal", "--compartment", "files", fixture.root + "/scan.raw", "-o", out + "/" + name] }
        let typicalDuration = try fixture.measure(seal("measured.vbundle")) {
            try? FileManager.default.removeItem(atPath: out + "/measured.vbundle")
        }
        try FileManager.default.removeItem(atPath: out + "/measured.vbundle")

        var (absent, complete, interruptedMidWrite) = (0, 0, 0)
        for round in 0..<50 {
            let name = "round-\(round).vbundle"
            if round % 3 == 2 {
                try fixture.killOnceSeen(seal(name), { try FileManager.default.contentsOfDirectory(atPath: out).contains { $0.hasSuffix(".tmp") } })
            } else {
                try fixture.killAtRandom(seal(name), within: typicalDuration)
            }
            let path = out + "/" + name
            if FileManager.default.fileExists(atPath: path) {
                #expect(try fixture.openFile(path) == input, "round \(round): OUT exists but does not open to the input")
                complete += 1
            } else {
                absent += 1
            }
            // A killed seal cannot remove its temporary file (it holds only ciphertext); its presence
            // shows the kill landed mid-write. Nothing but OUT and that file may appear.
            let names = try FileManager.default.contentsOfDirectory(atPath: out)
            let temporaries = names.filter { $0.hasPrefix(".\(name).vaultctl-") && $0.hasSuffix(".tmp") }
            #expect(Set(names).subtracting(temporaries).isSubset(of: [name]), "round \(round): \(names)")
            if !temporaries.isEmpty { interruptedMidWrite += 1 }
            for leftover in names { try FileManager.default.removeItem(atPath: out + "/" + leftover) }
        }
        #expect(absent > 0 && complete > 0, "killed before completion \(absent) times, after \(complete) times")
        #expect(interruptedMidWrite > 0, "no kill landed while the bundle was being written")
    }

    @Test("kill -9 during open -o OUT leaves plaintext in a temporary file; the next get or open writing to that folder removes it")
    func killedOpenLeavesNoPlaintextBehind() throws {
        let fixture = try CrashFixture()
        let input = try fixture.randomFile("scan.raw", megabytes: 16)
        let bundle = fixture.root + "/scan.vbundle"
        try #require(try fixture.vault.run(["seal", "--compartment", "files", fixture.root + "/scan.raw", "-o", bundle]).status == 0)
        let out = fixture.root + "/out"
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)

        // Kill each open as soon as its temporary file holds plaintext, until one is left behind.
        func temporaries() throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: out).filter { $0.hasSuffix(".tmp") } }
        func plaintextIsBeingWritten() throws -> Bool {
            try temporaries().contains { name in
                ((try? FileManager.default.attributesOfItem(atPath: out + "/" + name))?[.size] as? NSNumber)?.intValue ?? 0 > 0
            }
        }
        func killedOpen() throws -> String? {
            for attempt in 0..<20 {
                let running = try CLI.start(["open", bundle, "-o", out + "/scan-\(attempt).raw", "--threads", "1",
                                             "--vault", fixture.directory, "--passphrase-file", fixture.vault.passphraseFile])
                let deadline = Date().addingTimeInterval(60)
                while running.process.isRunning, Date() < deadline, try !plaintextIsBeingWritten() { usleep(500) }
                if running.process.isRunning { kill(running.process.processIdentifier, SIGKILL) }
                running.process.waitUntilExit()
                _ = running.result()
                try? FileManager.default.removeItem(atPath: out + "/scan-\(attempt).raw")
                if let left = try temporaries().first { return left }
            }
            return nil
        }

        for (round, sweeper) in [["get"], ["open", bundle]].enumerated() {
            let left = try #require(try killedOpen(), "round \(round): no kill landed while the plaintext was being written")
            let leaked = try fixture.bytes(out + "/" + left)
            #expect(!leaked.isEmpty && leaked == Array(input.prefix(leaked.count)), "round \(round): the temporary file holds the plaintext")

            let id = try fixture.putInProcess("scan.raw")
            let arguments = sweeper == ["get"] ? ["get", id] : sweeper
            let later = try fixture.vault.run(arguments + ["-o", out + "/later-\(round).raw"])
            #expect(later.status == 0, "\(later.stderr)")
            #expect(later.stderr.contains("removed \(left)"), "round \(round): \(later.stderr)")
            #expect(try temporaries() == [], "round \(round): \(arguments[0]) to the same folder removed the leftover")
            #expect(try fixture.bytes(out + "/later-\(round).raw") == input)
        }
    }

    @Test("kill -9 during put: the vault opens, lists only complete bundles, loses none, and sweeps every orphan")
    func killDuringPut() throws {
        let fixture = try CrashFixture()
        let big = try fixture.randomFile("x-ray.dcm", megabytes: 3)
        var expected: [String: [UInt8]] = [:]
        for index in 0..<2 {
            let small = try fixture.randomFile("note-\(index).txt", count: 5000 + index)
            expected[try fixture.put("note-\(index).txt")] = small
        }
        let put = ["put", "--compartment", "files", fixture.root + "/x-ray.dcm"]
        let typicalDuration = try fixture.measure(put)
        for id in try fixture.storedIDs() where expected[id] == nil { expected[id] = big }
        let beforeStorm = expected

        var (notStored, stored, interruptedMidWrite, orphans) = (0, 0, 0, 0)
        for round in 0..<50 {
            let before = try fixture.storedIDs()
            if round % 3 == 2 {
                try fixture.killOnceSeen(put, { try fixture.assetNames().contains { $0.hasPrefix(".incoming-") } })
            } else {
                try fixture.killAtRandom(put, within: typicalDuration)
            }
            _ = try Vault.open(at: fixture.directory, journal: RecordingJournal(), modules: VaultModules.all)
            let after = try fixture.storedIDs()
            #expect(before.isSubset(of: after), "round \(round): bundles disappeared: \(before.subtracting(after))")
            let added = after.subtracting(before)
            #expect(added.count <= 1, "round \(round): \(added.count) rows for one put")
            if let id = added.first {
                // A row exists only once its file is complete: it must open to the whole input.
                #expect(try fixture.openStored(id) == big, "round \(round): stored bundle \(id) is not the input")
                expected[id] = big
                stored += 1
            } else {
                notStored += 1
            }
            let assets = try fixture.assetNames()
            if assets.contains(where: { $0.hasPrefix(".incoming-") }) { interruptedMidWrite += 1 }
            orphans += assets.filter { $0.hasSuffix(".vbundle") && !after.contains(String($0.dropLast(".vbundle".count))) }.count
        }
        #expect(notStored > 0 && stored > 0, "killed before the commit \(notStored) times, after it \(stored) times")
        #expect(interruptedMidWrite > 0, "no kill landed while a bundle was being written")

        // Afterwards, through the CLI: every listed bundle is complete, and none stored before is lost.
        _ = try fixture.unlocked.sweepAssets()
        let listed = try #require(try JSONSerialization.jsonObject(with: Data(try fixture.vault.run(["ls", "--json"]).stdout.utf8)) as? [[String: Any]])
        let listedIDs = Set(listed.compactMap { $0["id"] as? String })
        #expect(listedIDs == Set(expected.keys))
        #expect(Set(beforeStorm.keys).isSubset(of: listedIDs))
        for id in listedIDs.sorted() {
            let got = try fixture.get(id)
            #expect(got == expected[id], "get \(id) does not give back what was stored")
        }
        // After a sweep no bundle file lacks its row, no row lacks its file, and no temporary file is left.
        let assets = try fixture.assetNames()
        #expect(Set(assets) == Set(listedIDs.map { $0 + ".vbundle" }), "assets/ after the sweep: \(assets.sorted()), orphans seen during the storm: \(orphans)")
    }

    @Test("kill -9 during compartment rewrap: every bundle opens, and the journal finishes an interrupted rewrap")
    func killDuringRewrap() throws {
        let fixture = try CrashFixture()
        var contents: [String: [UInt8]] = [:]
        for index in 0..<8 {
            let bytes = try fixture.randomFile("file-\(index)", count: 5000 + index)
            contents[try fixture.putInProcess("file-\(index)")] = bytes
        }
        let rewrap = ["compartment", "rewrap", "files"]
        var rotations = 0
        let typicalDuration = try fixture.measure(rewrap) {
            _ = try fixture.unlocked.rotateCompartment(named: "files")
            rotations += 1
        }

        var (untouched, partial, complete, journalsLeft, finishedByRewrap) = (0, 0, 0, 0, 0)
        for round in 0..<24 {
            var current = try fixture.currentVersion()
            let states = try fixture.bundleStates()
            if states.allSatisfy({ $0.databaseVersion == current && !$0.hasJournal }) {
                current = try fixture.unlocked.rotateCompartment(named: "files")
                rotations += 1
            }
            if round % 3 == 2 {
                try fixture.killOnceSeen(rewrap, { try fixture.assetNames().contains { $0.hasSuffix(".rewrap") } })
            } else {
                try fixture.killAtRandom(rewrap, within: typicalDuration)
            }

            let after = try fixture.bundleStates()
            let rewrapped = after.filter { $0.databaseVersion == current }.count
            let journals = after.filter(\.hasJournal).count
            journalsLeft += journals
            if journals > 0 || (rewrapped > 0 && rewrapped < after.count) { partial += 1 } else if rewrapped == 0 { untouched += 1 } else { complete += 1 }
            for state in after {
                // Before any repair: the header on disk is the old one (matching the row) or, with a
                // journal, possibly already the journal's; the journal is for the current version.
                if state.hasJournal {
                    let journal = try #require(state.journal, "round \(round): the journal of \(state.id) is damaged")
                    #expect(journal.keyVersion == current, "round \(round): a journal for version \(journal.keyVersion)")
                    #expect(state.header == journal || state.header.keyVersion == state.databaseVersion, "round \(round)")
                } else {
                    #expect(state.header.keyVersion == state.databaseVersion, "round \(round): header v\(state.header.keyVersion), row v\(state.databaseVersion)")
                }
                // It opens as it lies on disk, under whichever version its header names.
                #expect(try fixture.openFile(fixture.unlocked.vault.assetsPath + "/\(state.id).vbundle") == contents[state.id], "round \(round)")
            }
            // Half the time the next `get` repairs the journal; otherwise the next rewrap must.
            if round % 2 == 0 {
                for id in contents.keys { #expect(try fixture.openStored(id) == contents[id]) }
                #expect(try fixture.bundleStates().allSatisfy { !$0.hasJournal && $0.header.keyVersion == $0.databaseVersion })
            } else if journals > 0 {
                finishedByRewrap += 1
            }
        }
        let outcomes = "interrupted midway \(partial) times, before any change \(untouched), after completion \(complete)"
        #expect(complete > 0 && untouched + partial > 0, "\(outcomes)")
        #expect(partial > 0, "no kill landed in the middle of a rewrap: \(outcomes)")

        // A rewrap run to its end moves everything to the current version; the old ones can go.
        let finished = try fixture.vault.run(rewrap)
        #expect(finished.status == 0, "\(finished.stderr)")
        let current = try fixture.currentVersion()
        for version in 1..<current {
            let retired = try fixture.vault.run(["compartment", "retire", "files", "--version", "\(version)", "--yes"])
            #expect(retired.status == 0, "\(retired.stderr)")
        }
        let final = try fixture.bundleStates()
        #expect(final.allSatisfy { $0.databaseVersion == current && $0.header.keyVersion == current && !$0.hasJournal })
        for id in contents.keys.sorted() {
            #expect(try fixture.get(id) == contents[id], "get \(id) after retiring the old versions")
        }
        // Each bundle went through every version exactly once, and each step was recorded exactly once.
        let rewraps = try BundleAuditEvent.all(in: fixture.unlocked).filter { $0.action == "rewrap" }
        for id in contents.keys {
            let count = rewraps.filter { $0.bundleID == id }.count
            #expect(count == rotations, "bundle \(id): \(count) rewrap records for \(rotations) rotations (journals left \(journalsLeft), finished by a rewrap \(finishedByRewrap))")
        }
        // A kill while a journal was being written leaves its temporary file; the sweep removes it.
        _ = try fixture.unlocked.sweepAssets()
        let stray = try fixture.assetNames().filter { !$0.hasSuffix(".vbundle") }
        #expect(stray == [], "left in assets/ after a sweep: \(stray)")
    }

    /// The two ways a rewrap can be cut short with its journal written, repaired by the next command
    /// that touches the bundle: the header and the row then agree and the rewrap is recorded once.
    @Test("an interrupted rewrap is finished from its journal by the next get or rewrap, and recorded once",
          arguments: [false, true])
    func journalFinishesInterruptedRewrap(_ headerAlreadyOverwritten: Bool) throws {
        let fixture = try CrashFixture()
        let bytes = try fixture.randomFile("deposition.pdf", count: 70_000)
        let id = try fixture.put("deposition.pdf")
        let path = fixture.unlocked.vault.assetsPath + "/\(id).vbundle"
        for (round, finisher) in [["get", id, "-o", fixture.root + "/out-get"], ["compartment", "rewrap", "files"]].enumerated() {
            let version = try fixture.unlocked.rotateCompartment(named: "files")
            let recordsBefore = try BundleAuditEvent.all(in: fixture.unlocked).filter { $0.action == "rewrap" }.count
            // What `compartment rewrap` does, stopped where kill -9 would stop it.
            let opened = try EncryptedBundle.open(try FileDescriptor.openForReading(path), vault: fixture.unlocked)
            let header = try opened.rewrappedHeader(for: version, vault: fixture.unlocked).serialized()
            try DurableFile.write(header, to: fixture.unlocked.vault.assetsPath + "/\(id).rewrap")
            if headerAlreadyOverwritten {
                var file = try fixture.bytes(path)
                file.replaceSubrange(0..<header.count, with: header)
                try Data(file).write(to: URL(fileURLWithPath: path))
            }

            let result = try fixture.vault.run(finisher)
            #expect(result.status == 0, "\(finisher[0]): \(result.stderr)")
            let state = try #require(try fixture.bundleStates().first)
            #expect(!state.hasJournal, "\(finisher[0]) left the journal")
            #expect(state.databaseVersion == version && state.header.keyVersion == version, "\(finisher[0]): row v\(state.databaseVersion), header v\(state.header.keyVersion)")
            let records = try BundleAuditEvent.all(in: fixture.unlocked).filter { $0.action == "rewrap" }
            #expect(records.count == recordsBefore + 1, "\(finisher[0]): one rewrap, \(records.count - recordsBefore) records")
            #expect(records.last?.bundleID == id && records.last?.bytes == nil)
            if round == 0 { #expect(try fixture.bytes("out-get") == bytes) }
        }
        // Both old versions can go: the bundle is on the newest.
        for version in 1...2 {
            #expect(try fixture.vault.run(["compartment", "retire", "files", "--version", "\(version)", "--yes"]).status == 0)
        }
        #expect(try fixture.get(id) == bytes)
    }

    @Test("a sweep removes the temporary file of a journal whose writer was killed, never a live writer's")
    func sweepRemovesDeadJournalTemporaries() throws {
        let fixture = try CrashFixture()
        _ = try fixture.randomFile("brief.txt", count: 3000)
        let id = try fixture.put("brief.txt")
        let gone = Process()
        gone.executableURL = URL(fileURLWithPath: "/bin/true")
        try gone.run()
        gone.waitUntilExit()
        let assets = fixture.unlocked.vault.assetsPath
        let dead = ".\(id).rewrap.vaultctl-\(gone.processIdentifier)-0badc0de.tmp"
        let live = ".\(id).rewrap.vaultctl-\(getpid())-0badc0de.tmp"
        for name in [dead, live] { FileManager.default.createFile(atPath: assets + "/" + name, contents: Data([1, 2, 3])) }
        let removed = try fixture.unlocked.sweepAssets()
        #expect(removed == 1)
        #expect(Set(try fixture.assetNames()) == [live, "\(id).vbundle"])
        // `vaultctl rm` sweeps too: once the bundle is gone, so is every file of dead processes.
        try FileManager.default.removeItem(atPath: assets + "/" + live)
        FileManager.default.createFile(atPath: assets + "/" + dead, contents: Data([1, 2, 3]))
        #expect(try fixture.vault.run(["rm", id, "--yes"]).status == 0)
        #expect(try fixture.assetNames() == [])
    }
}

/// A CLI vault with compartment "files", unlocked in this process too (for checks), and helpers to
/// run vaultctl, kill it, and look at assets/.
private final class CrashFixture {
    struct BundleState {
        let id: String
        let databaseVersion: UInt32
        let header: BundleHeader
        /// The journal's bytes if one is left, and the header they hold.
        let journalBytes: [UInt8]?
        var journal: BundleHeader? { journalBytes.flatMap { try? BundleHeader(parsing: $0) } }
        var hasJournal: Bool { journalBytes != nil }
    }

    let vault: CLIVault
    let unlocked: UnlockedVault
    var root: String { vault.root }
    var directory: String { vault.directory }

    init() throws {
        vault = try CLIVault()
        let created = try vault.run(["compartment", "create", "files", "--register", "general"])
        guard created.status == 0 else { throw CLIError(message: "compartment create failed: \(created.stderr)") }
        // Journaled by the audit log as vaultctl is: a rewrap this process finishes is recorded there too.
        unlocked = try Vault.open(at: vault.directory, journal: AuditLog(), modules: VaultModules.all)
            .unlock(with: .passphrase(try SecureBytes(copying: Array(CLIVault.passphrase.utf8))))
    }

    func randomFile(_ name: String, megabytes: Int) throws -> [UInt8] { try randomFile(name, count: megabytes << 20) }

    func randomFile(_ name: String, count: Int) throws -> [UInt8] {
        let bytes = try SecureRandom.bytes(count)
        try Data(bytes).write(to: URL(fileURLWithPath: root + "/" + name))
        return bytes
    }

    func bytes(_ name: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: name.hasPrefix("/") ? name : root + "/" + name))) }

    /// How long `arguments` takes when left alone (it must succeed): the median of three runs, as
    /// fsync times vary from run to run. `prepare` runs before each.
    func measure(_ arguments: [String], prepare: () throws -> Void = {}) throws -> Double {
        try (0..<3).map { _ in
            try prepare()
            let start = Date()
            let result = try vault.run(arguments)
            guard result.status == 0 else { throw CLIError(message: "\(arguments[0]) failed: \(result.stderr)") }
            return Date().timeIntervalSince(start)
        }.sorted()[1]
    }

    /// Starts `arguments` on this vault and sends SIGKILL after a random delay up to 1.5 × `typical`.
    func killAtRandom(_ arguments: [String], within typical: Double) throws {
        let running = try CLI.start(arguments + ["--vault", directory, "--passphrase-file", vault.passphraseFile])
        usleep(UInt32.random(in: 0...UInt32(typical * 1.5 * 1_000_000)))
        if running.process.isRunning { kill(running.process.processIdentifier, SIGKILL) }
        running.process.waitUntilExit()
        _ = running.result()
    }

    /// Starts `arguments` on this vault and sends SIGKILL as soon as `seen` holds (polled every 100 µs),
    /// or when it ends by itself; a minute at most.
    func killOnceSeen(_ arguments: [String], _ seen: () throws -> Bool) throws {
        let running = try CLI.start(arguments + ["--vault", directory, "--passphrase-file", vault.passphraseFile])
        let deadline = Date().addingTimeInterval(60)
        while running.process.isRunning, Date() < deadline, try !seen() { usleep(100) }
        if running.process.isRunning { kill(running.process.processIdentifier, SIGKILL) }
        running.process.waitUntilExit()
        _ = running.result()
    }

    func put(_ name: String) throws -> String {
        let result = try vault.run(["put", "--compartment", "files", root + "/" + name])
        guard result.status == 0 else { throw CLIError(message: "put failed: \(result.stderr)") }
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// `put` through the library (faster than a process for setting up many bundles).
    func putInProcess(_ name: String) throws -> String {
        try unlocked.put(from: try FileDescriptor.openForReading(root + "/" + name), compartment: try unlocked.compartment(named: "files"),
                         metadata: BundleMetadata(name: name, modificationTime: 0)).idString
    }

    /// `vaultctl get ID -o FILE`, returning the file's bytes.
    func get(_ id: String) throws -> [UInt8]? {
        let out = root + "/get-\(id)"
        let result = try vault.run(["get", id, "-o", out])
        guard result.status == 0 else { return nil }
        defer { try? FileManager.default.removeItem(atPath: out) }
        return try bytes(out)
    }

    func openFile(_ path: String) throws -> [UInt8] {
        try plaintext(of: EncryptedBundle.open(try FileDescriptor.openForReading(path), vault: unlocked))
    }

    /// Through the library's store path (which finishes an interrupted rewrap first, as `get` does).
    func openStored(_ id: String) throws -> [UInt8] {
        guard let stored = try unlocked.storedBundles().first(where: { $0.idString == id }) else { return [] }
        return try plaintext(of: unlocked.openStored(stored.bundleID))
    }

    private func plaintext(of opened: OpenedBundle) throws -> [UInt8] {
        var plaintext: [UInt8] = []
        plaintext.reserveCapacity(Int(opened.plaintextLength))
        try opened.decrypt { plaintext += $0 }
        return plaintext
    }

    func storedIDs() throws -> Set<String> { Set(try unlocked.storedBundles().map(\.idString)) }

    func assetNames() throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: unlocked.vault.assetsPath) }

    func currentVersion() throws -> UInt32 { try unlocked.compartment(named: "files").currentVersion ?? 0 }

    /// Each stored bundle's row version, the header on disk, and its rewrap journal if one is left.
    func bundleStates() throws -> [BundleState] {
        try unlocked.storedBundles().map { stored in
            let assets = unlocked.vault.assetsPath
            let header = try BundleHeader(parsing: try bytes("\(assets)/\(stored.idString).vbundle"))
            let journal = FileManager.default.contents(atPath: "\(assets)/\(stored.idString).rewrap").map { [UInt8]($0) }
            return BundleState(id: stored.idString, databaseVersion: stored.keyVersion, header: header, journalBytes: journal)
        }
    }
}
