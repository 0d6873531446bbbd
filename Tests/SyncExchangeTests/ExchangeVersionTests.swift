import Appliance
import CryptoVault
import PeerChannel
@testable import Sync
import Synchronization
import Testing
import TestSupport
import Writing

/// Version 2 of the exchange (attack review s7, A8; SECURITY.md §19.9): offers gained an origin and
/// a role's time, so a device of version 1 reads them at the wrong places. Each side refuses the
/// other's messages whole with the version named, and says so in its audit log.
@Suite(.serialized) struct ExchangeVersionTests {
    typealias F = SyncExchangeFixture

    /// An answerer of version 1: its projects answer offers one project in version 1's form (no
    /// origin, no role's time), and it answers anything else with its empty projects answer.
    final class VersionOneAnswerer: ChannelService {
        let project: ProjectID

        init(project: ProjectID) { self.project = project }

        var requestKinds: [String] { SyncWire.kinds }

        func respond(to kind: String, body: [UInt8], from peer: DeviceProfile) throws -> [UInt8] {
            guard kind == SyncWire.projectsKind else { return [1, 0, 0] }
            let register = Array("general".utf8), name = Array("Old".utf8)
            return [1, 0, 1] + project.bytes + [1, 0, 1, UInt8(register.count)] + register + [0, UInt8(name.count)] + name + [0, 0]
        }
    }

    /// A device of the build before pulls carried tips (they came within version 2, never released
    /// before; closing note s11, Left open): it reads a pull to its vector and refuses the bytes
    /// after it with that build's words; every other request it answers as this build does.
    /// Without `knowsDemotions`, as the build before both (main 4559851): it does not answer
    /// `sync.demotions` either.
    final class BuildBeforeTipsAnswerer: ChannelService {
        let current = Mutex<SyncChannelService?>(nil)
        let knowsDemotions: Bool

        init(knowsDemotions: Bool = true) { self.knowsDemotions = knowsDemotions }

        var requestKinds: [String] { SyncWire.kinds.filter { knowsDemotions || $0 != SyncWire.demotionsKind } }

        func respond(to kind: String, body: [UInt8], from peer: DeviceProfile) throws -> [UInt8] {
            if kind == SyncWire.pullKind, body.count >= 19 {
                // The version, the project, then the vector: a 2-byte count of 24-byte entries.
                let follow = body.count - (19 + 24 * (Int(body[17]) << 8 | Int(body[18])))
                if follow > 0 { throw PeerChannelError(.peerRefused, "[malformedMessage] a sync message is malformed: \(follow) bytes follow the last field") }
            }
            return try current.withLock { $0! }.respond(to: kind, body: body, from: peer)
        }
    }

    /// A pull that ends at its vector is of a build before tips: refused naming that, with what to
    /// do (update the asking device), and recorded as any malformed request.
    @Test func aPullWithoutTipsIsRefusedSayingTheAskerRunsAnOlderBuild() throws {
        let f = try F()
        let project = try F.project(f.desk, "Brief")
        do {
            _ = try f.transport().requestAsAnyPeer(SyncWire.pullKind, body: [SyncWire.version] + project.id.bytes + [0, 0])
            Issue.record("a pull without tips was answered")
        } catch let error as SyncExchangeError {
            #expect(error.code == .malformedMessage, "\(error)")
            #expect(error.message.contains("a pull without tips, from a build of vaultctl older than this device's")
                    && error.message.contains("update vaultctl on the device that asked"), "\(error)")
        }
        let refused = f.desk.recording.events.withLock { events in
            events.filter { $0.action == .syncExchangeRefused }.flatMap { $0.details.filter { $0.name == "reason" }.map(\.value) }
        }
        #expect(refused == ["malformedMessage"], "\(refused)")
        // A pull with tips, none of them, is answered as ever.
        _ = try SyncPullAnswer(parsing: try f.transport().requestAsAnyPeer(SyncWire.pullKind, body: [SyncWire.version] + project.id.bytes + [0, 0, 0, 0]))
    }

    /// This build's pull reaches a device of the build before tips, which refuses it as "N bytes
    /// follow the last field": the project is left for the run saying that device runs an older
    /// build and must be updated, instead of that device's words alone.
    @Test func aPullRefusedByABuildBeforeTipsSaysToUpdateThatDevice() throws {
        let answerer = BuildBeforeTipsAnswerer()
        let f = try F(deskAnswers: answerer)
        answerer.current.withLock { $0 = SyncChannelService(vault: f.desk.unlocked, coordinator: nil) }
        let project = try F.project(f.desk, "Brief")
        _ = try F.document(f.desk, in: project, "Plan", ["Kick-off."])
        let report = try f.syncLaptop()
        let skipped = report.projects.first { $0.project == project.id }?.skipped ?? ""
        #expect(skipped.hasPrefix("malformedMessage: "), "\(report)")
        #expect(skipped.contains("desk runs an older build of vaultctl") && skipped.contains("update vaultctl on desk"), "\(skipped)")
        #expect(skipped.contains("bytes follow the last field"), "the device's own words stay: \(skipped)")
    }

    /// A device of the build before demotions passed between own devices (and before tips) does not
    /// answer `sync.demotions`, the first request to an own device: the run ends saying that device
    /// runs an older build and must be updated, instead of "no service here answers" alone.
    @Test func anOwnDeviceOfABuildBeforeDemotionsIsNamedAsAnOlderBuildToUpdate() throws {
        let answerer = BuildBeforeTipsAnswerer(knowsDemotions: false)
        let f = try F(deskAnswers: answerer)
        answerer.current.withLock { $0 = SyncChannelService(vault: f.desk.unlocked, coordinator: nil) }
        do {
            try f.syncLaptop()
            Issue.record("the run went on with a device that does not answer sync.demotions")
        } catch let error as PeerChannelError {
            #expect(error.code == .unknownRequestKind, "\(error)")
            #expect(error.message.contains("desk runs an older build of vaultctl, which does not answer 'sync.demotions'")
                    && error.message.contains("update vaultctl on desk"), "\(error)")
        }
    }

    @Test func aVersionOneRequestIsRefusedWholeNamingItsVersionAndRecordedSo() throws {
        let f = try F()
        let transport = try f.transport()
        let project = try F.project(f.desk, "Brief")
        let versionOne: [(String, [UInt8])] = [(SyncWire.projectsKind, [1]), (SyncWire.pullKind, [1] + project.id.bytes + [0, 0])]
        for (kind, body) in versionOne {
            do {
                _ = try transport.requestAsAnyPeer(kind, body: body)
                Issue.record("\(kind) of version 1 was answered")
            } catch let error as SyncExchangeError {
                #expect(error.code == .malformedMessage, "\(error)")
                #expect(error.message.contains("version 1 (the exchange before offers named an origin"), "\(error)")
                #expect(error.message.contains("this side speaks version \(SyncWire.version) only"), "\(error)")
            }
        }
        let refused = f.desk.recording.events.withLock { events in
            events.filter { $0.action == .syncExchangeRefused }.map { Dictionary($0.details.map { ($0.name, $0.value) }, uniquingKeysWith: { a, _ in a }) }
        }
        #expect(refused.map { $0["request"] } == [SyncWire.projectsKind, SyncWire.pullKind], "\(refused)")
        #expect(refused.allSatisfy { $0["reason"] == "malformedMessage" && $0["version"] == "1" && $0["peer"] == f.laptopKeys.profile.deviceID.hex },
                "\(refused)")
        // A request of this version is answered as ever.
        #expect(try SyncProjectsPage(parsing: try transport.requestAsAnyPeer(SyncWire.projectsKind, body: [SyncWire.version])).offers.map(\.project) == [project.id])
    }

    @Test func aVersionOneAnswerEndsTheRunNamingItsVersionAndMakesNothing() throws {
        let project = try ProjectID.random()
        let f = try F(deskAnswers: VersionOneAnswerer(project: project))
        do {
            try f.syncLaptop()
            Issue.record("the laptop took an answer of version 1")
        } catch let error as SyncExchangeError {
            #expect(error.code == .malformedMessage && error.message.contains("version 1 (the exchange before offers named an origin"), "\(error)")
        }
        #expect(try !F.hasProject(f.laptop, project))
        #expect(F.details(f.laptop, .syncExchange, "error") == ["malformedMessage"])
    }

    /// A device of version 2, the build before the merge rule of block conflicts (SECURITY.md §19.3,
    /// §19.9): it answers a message of its own version as that build does (this build's service,
    /// which on a build still of version 2 answers it) and refuses any other whole in that build's
    /// words, which cannot change.
    final class VersionTwoAnswerer: ChannelService {
        let current = Mutex<SyncChannelService?>(nil)

        var requestKinds: [String] { SyncWire.kinds }

        func respond(to kind: String, body: [UInt8], from peer: DeviceProfile) throws -> [UInt8] {
            guard body.first == 2 else {
                throw PeerChannelError(.peerRefused, "[malformedMessage] a sync message is malformed: version \(body.first ?? 0); "
                                       + "this side speaks version 2 only")
            }
            return try current.withLock { $0! }.respond(to: kind, body: body, from: peer)
        }
    }

    /// Version 3 came with the merge rule of block conflicts: a device of version 2 would show other
    /// documents from the same records. Its request is refused whole, naming the rule and that the
    /// device must be updated, and recorded with its version (failed on e19321c: answered).
    @Test func aVersionTwoRequestIsRefusedNamingTheMergeRuleAndTheDeviceToUpdate() throws {
        let f = try F()
        let transport = try f.transport()
        let project = try F.project(f.desk, "Brief")
        for (kind, body) in [(SyncWire.projectsKind, [UInt8]([2])), (SyncWire.pullKind, [2] + project.id.bytes + [0, 0, 0, 0])] {
            do {
                _ = try transport.requestAsAnyPeer(kind, body: body)
                Issue.record("\(kind) of version 2 was answered")
            } catch let error as SyncExchangeError {
                #expect(error.code == .malformedMessage, "\(error)")
                #expect(error.message.contains("version 2 (the exchange before the merge rule of block conflicts, which shows other "
                                               + "documents from the same records: update vaultctl on that device); this side speaks version 3 only"),
                        "\(error)")
            }
        }
        let refused = f.desk.recording.events.withLock { events in
            events.filter { $0.action == .syncExchangeRefused }.map { Dictionary($0.details.map { ($0.name, $0.value) }, uniquingKeysWith: { a, _ in a }) }
        }
        #expect(refused.map { $0["request"] } == [SyncWire.projectsKind, SyncWire.pullKind], "\(refused)")
        #expect(refused.allSatisfy { $0["reason"] == "malformedMessage" && $0["version"] == "2" }, "\(refused)")
    }

    /// This build's run with a device of version 2 ends at its first request, refused in that build's
    /// words: said as "DEVICE runs an older build … update vaultctl on DEVICE", the device's own words
    /// kept, kept as the run's error, and nothing of the device's projects taken (failed on e19321c:
    /// the two synced, each to show its own document from the same records).
    @Test func aDeviceOfVersionTwoEndsTheRunNamingItAsAnOlderBuildToUpdate() throws {
        let answerer = VersionTwoAnswerer()
        let f = try F(deskAnswers: answerer)
        answerer.current.withLock { $0 = SyncChannelService(vault: f.desk.unlocked, coordinator: nil) }
        let project = try F.project(f.desk, "Brief")
        _ = try F.document(f.desk, in: project, "Plan", ["Kick-off."])
        do {
            try f.syncLaptop()
            Issue.record("the laptop synced with a device of version 2")
        } catch let error as SyncExchangeError {
            #expect(error.code == .malformedMessage, "\(error)")
            #expect(error.message.hasPrefix("desk runs an older build of vaultctl (exchange version 2, before the merge rule of block "
                                            + "conflicts): update vaultctl on desk, then sync again"), "\(error)")
            #expect(error.message.contains("this side speaks version 2 only"), "the device's own words stay: \(error)")
        }
        #expect(try !F.hasProject(f.laptop, project.id))
        #expect(F.details(f.laptop, .syncExchange, "error") == ["malformedMessage"])
    }

    /// A device of the build before `sync.projects` requests named the projects the asker holds
    /// (within version 2; review 17 s10, N-s10-6): it reads the list's first bytes as the project to
    /// follow and refuses the rest with that build's words; every other request it answers as this
    /// build does.
    final class BuildBeforeHeldProjectsAnswerer: ChannelService {
        let current = Mutex<SyncChannelService?>(nil)
        /// How many requests it refused for naming held projects.
        let refused = Mutex(0)

        var requestKinds: [String] { SyncWire.kinds }

        func respond(to kind: String, body: [UInt8], from peer: DeviceProfile) throws -> [UInt8] {
            if kind == SyncWire.projectsKind, body.count > 17 {
                refused.withLock { $0 += 1 }
                throw PeerChannelError(.peerRefused, "[malformedMessage] a sync message is malformed: \(body.count - 17) bytes follow the last field")
            }
            return try current.withLock { $0! }.respond(to: kind, body: body, from: peer)
        }
    }

    /// An own device of that build: while the asker holds no chart the request is the old one;
    /// once it holds one, the device refuses the request naming it (recorded there), and the asker
    /// asks again as that build asks: the exchange goes on, every project of it synced.
    @Test func anOwnDeviceOfABuildBeforeHeldProjectsIsAskedAsThatBuildAsks() throws {
        let answerer = BuildBeforeHeldProjectsAnswerer()
        let f = try F(deskAnswers: answerer)
        answerer.current.withLock { $0 = SyncChannelService(vault: f.desk.unlocked, coordinator: nil) }
        let chart = try F.project(f.desk, "Chart", register: .healthcare)
        let brief = try F.project(f.desk, "Brief")
        let first = try f.syncLaptop()
        #expect(try F.hasProject(f.laptop, chart.id) && F.hasProject(f.laptop, brief.id))
        #expect(first.notes.isEmpty, "no list was sent, nothing refused: \(first.notes)")
        let memo = try F.document(f.desk, in: brief, "Memo", ["after the update was missed"])
        let report = try f.syncLaptop()
        #expect(report.projects.allSatisfy { $0.skipped == nil && $0.localOnly == nil && $0.refused.isEmpty }, "\(report)")
        #expect(try F.texts(f.laptop, brief.id, memo) == ["after the update was missed"])
        #expect(F.details(f.laptop, .syncExchange, "error") == [])
        #expect(answerer.refused.withLock { $0 } == 1, "the older device refused the request naming the chart once")
        // The owner is told once which device to update (daemon13's open note: 4c3a795 said nothing).
        #expect(report.notes.count == 1 && report.notes[0].hasPrefix("desk runs an older build of vaultctl")
                && report.notes[0].hasSuffix("update vaultctl on desk"), "\(report.notes)")
    }

    /// Said once in a run however many pages it asks: with more projects than a page holds, the
    /// pages after the refused one are asked as the older build asks, and no second note comes.
    @Test func anOlderBuildIsNamedOnceInARunOfManyPages() throws {
        let answerer = BuildBeforeHeldProjectsAnswerer()
        let f = try F(deskAnswers: answerer)
        answerer.current.withLock { $0 = SyncChannelService(vault: f.desk.unlocked, coordinator: nil) }
        var charts: [WritingProject] = []
        for index in 0..<(SyncWire.maximumOffers + 2) {
            charts.append(try F.project(f.desk, "Chart \(index)", register: .healthcare))
        }
        try f.syncLaptop()
        #expect(try charts.allSatisfy { try F.hasProject(f.laptop, $0.id) })
        let report = try f.syncLaptop()
        #expect(report.notes.count == 1 && report.notes[0].hasSuffix("update vaultctl on desk"), "\(report.notes)")
        #expect(answerer.refused.withLock { $0 } == 1, "the pages after the first were asked as the older build asks")
        #expect(report.projects.count == charts.count && report.projects.allSatisfy { $0.skipped == nil && $0.refused.isEmpty }, "\(report)")
    }

    /// Someone else's device is never told which projects this vault holds: its requests are the
    /// old ones, which a device of that build answers.
    @Test func someoneElsesDeviceIsNotToldWhichProjectsThisVaultHolds() throws {
        let answerer = BuildBeforeHeldProjectsAnswerer()
        let f = try F(deskTrusts: .other, laptopTrusts: .other, deskAnswers: answerer)
        answerer.current.withLock { $0 = SyncChannelService(vault: f.desk.unlocked, coordinator: nil) }
        let memo = try F.project(f.desk, "Shared memo")
        _ = try F.project(f.laptop, "Laptop only")
        try F.share(memo, of: f.desk, with: f.laptop, role: .editor)
        try f.syncLaptop()
        let report = try f.syncLaptop()
        #expect(try F.hasProject(f.laptop, memo.id) && report.projects.contains { $0.project == memo.id && $0.skipped == nil }, "\(report)")
    }
}
