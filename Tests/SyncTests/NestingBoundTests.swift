import Testing
@testable import Sync
import Writing

/// Review 17 s8, F12's remainder: two honest concurrent binder edits can nest folders deeper than
/// the store keeps (`WritingLimits.maximumNesting`, 32). The receive threw nestingTooDeep (the exchange
/// made it writingRefused for the whole batch, so the two devices split for good); now a node that
/// would nest too deep is kept one level up and both devices come to keep the same binder.
@Suite struct NestingBoundTests {
    @Test func concurrentNestingPastTheBoundConvergesWithoutRefusal() throws {
        let fleet = try VersionFleet(devices: 3)
        let shared = try fleet.store(0) { try $0.addNode(.chapter, titled: "Shared", in: fleet.project).id }
        try fleet.sync(from: 0, to: 1)
        // Apart: the desk nests 20 folders under Shared (depth 21); the tablet moves Shared under 15
        // folders of its own (depth 16). Each is within the bound; together they reach 36.
        try fleet.store(0) { store in
            var parent = shared
            for index in 0..<20 { parent = try store.addNode(.chapter, titled: "d\(index)", in: fleet.project, under: parent).id }
        }
        try fleet.store(1) { store in
            var parent: NodeID? = nil
            for index in 0..<15 { parent = try store.addNode(.chapter, titled: "t\(index)", in: fleet.project, under: parent).id }
            try store.moveNode(shared, in: fleet.project, under: parent)
        }
        try fleet.sync(from: 0, to: 1)
        // A third device that held nothing takes the tablet's records as they are now, 36 deep, at once.
        let everything = try fleet.sync(1) { try $0.records(of: fleet.project, missingFrom: [:]) }
        #expect(try fleet.sync(2) { try $0.receive(everything, for: fleet.project) }.refused == [])
        #expect(try fleet.store(2) { try $0.nodes(in: fleet.project) }.count == 36)
        try fleet.sync(from: 1, to: 0)
        try fleet.sync(from: 0, to: 1)
        try fleet.sync(from: 1, to: 2)
        try fleet.sync(from: 2, to: 0)
        try fleet.sync(from: 0, to: 1)
        try fleet.sync(from: 1, to: 2)
        let binders = try (0..<3).map { device in
            try fleet.store(device) { Set(try $0.nodes(in: fleet.project).map { "\($0.id.hex) under \($0.parent?.hex ?? "top")" }) }
        }
        #expect(binders[0].count == 36, "every folder either made is kept")
        #expect(binders[0] == binders[1] && binders[1] == binders[2], "every device keeps the same binder")
        // Settled: neither device has anything more to write, and nothing nests past the bound.
        for device in 0..<3 {
            #expect(try fleet.sync(device) { try $0.commitLocalChanges(in: fleet.project) } == nil)
            let nodes = try fleet.store(device) { try $0.nodes(in: fleet.project) }
            let parents = Dictionary(uniqueKeysWithValues: nodes.map { ($0.id, $0.parent) })
            for node in nodes {
                var depth = 1, cursor = node.parent
                while let id = cursor { depth += 1; cursor = parents[id] ?? nil }
                #expect(depth <= WritingLimits.maximumNesting)
            }
        }
    }
}
