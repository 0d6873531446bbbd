// fuzz-sources: Sources/AuditChain
// libFuzzer target: an audit export (SECURITY.md §8.8) is a file an auditor receives from anyone. The
// parser and the verifier must refuse or accept any input without crashing, and:
// - what the parser accepts is canonical: written out again it is exactly the input;
// - what the verifier accepts holds only what the log's keys signed. The fuzzer has none of the
//   template log's private keys, so every checkpoint and key transition of an export that verifies
//   must be one the template signed, and every entry a checkpoint covers must be the template's.
//
// An input whose first byte is even is parsed as it is (after that byte). One whose first byte is
// odd is a list of edits to the template export instead, applied to its decoded fields and written
// back with a matching end line (as anyone editing a file can), so the fuzzer reaches the verifier:
// each 5 bytes (operation, item, offset high, offset low, value) set, cut or renumber a field of one
// key, checkpoint or entry, or remove, duplicate or move that item.

import Foundation

/// One line of an export between the origin and the end line, with its fields decoded. (A struct,
/// not an enum with payloads: Swift may keep an enum's case in a pointer's spare bits, which hides the
/// template's arrays from LeakSanitizer and makes it report them as leaked.)
private struct Item {
    enum Kind { case key, checkpoint, entry }

    var kind: Kind
    var epoch = 0
    /// A key's public key; empty for the other kinds.
    var publicKey: [UInt8] = []
    /// A key's introduction (nil for the genesis key), a checkpoint's note, an entry's encoding.
    var field: [UInt8]?

    var line: String {
        switch kind {
        case .key: "key \(epoch) \(base64(publicKey))" + (field.map { " " + base64($0) } ?? "")
        case .checkpoint: "checkpoint \(epoch) \(base64(field ?? []))"
        case .entry: "entry \(base64(field ?? []))"
        }
    }

    /// The field an edit changes: a key's introduction (its public key when it has none), a
    /// checkpoint's note, an entry's encoding.
    func changingField(_ change: (inout [UInt8]) -> Void) -> Item {
        var copy = self
        if kind == .key, field == nil { change(&copy.publicKey) } else { change(&copy.field!) }
        return copy
    }

    func renumbered(_ epoch: Int) -> Item {
        var copy = self
        copy.epoch = epoch
        return copy
    }
}

private func base64(_ bytes: [UInt8]) -> String { Data(bytes).base64EncodedString() }

/// The export file of `items`, with the end line that matches them.
private func exportFile(origin: String, items: [Item]) -> [UInt8] {
    let lines = ["vaultctl audit export v1", "origin \(origin)"] + items.map(\.line)
    let body = Array(lines.map { $0 + "\n" }.joined().utf8)
    let entryCount = items.filter { $0.kind == .entry }.count
    return body + Array("end \(entryCount) \(base64(SHA256.hash(body)))\n".utf8)
}

/// A log of 6 entries with checkpoints at 2, 4 and 6 signed by epochs 0, 1 and 2, whose keys each
/// introduce the next (epoch 3 is current). The keys come from fixed seeds and are dropped here.
private struct Template {
    static let origin = "vaultctl/" + String(repeating: "5a", count: 16)

    let genesis: NoteVerifierKey
    let items: [Item]
    let entries: [[UInt8]]
    let signedTexts: Set<String>

    init() {
        let keys = (0..<4).map { try! Ed25519PrivateKey(seed: try! SecureBytes(copying: [UInt8](repeating: UInt8(0x41 + $0), count: 32))) }
        var entries: [[UInt8]] = []
        var previous = [UInt8](repeating: 0, count: 32)
        for seq in 0..<6 {
            let withDetails = seq % 2 == 1
            let entry = AuditEntry(seq: UInt64(seq), time: 1_764_000_000 + Int64(seq), deviceID: try! AuditDeviceID(bytes: [UInt8](repeating: 0xD1, count: 16)),
                                   actor: "ana (uid 1000)", action: seq == 0 ? "vault.init" : "bundle.put",
                                   compartmentID: seq == 0 ? nil : try! CompartmentID(bytes: [UInt8](repeating: 0xC0, count: 16)),
                                   subjectID: seq == 0 ? [] : [UInt8](repeating: UInt8(seq), count: 16),
                                   detailHashes: withDetails ? [.init(name: "file", hash: [UInt8](repeating: UInt8(seq), count: 32))] : [],
                                   sealedDetails: withDetails ? [UInt8](repeating: UInt8(seq), count: 48) : [], previousHash: previous).encoded()
            entries.append(entry)
            previous = MerkleHash.leaf(entry)
        }
        let tree = try! MerkleTree(leafHashes: entries.map(MerkleHash.leaf))
        var keyItems = [Item(kind: .key, epoch: 0, publicKey: keys[0].publicKey)]
        var checkpointItems: [Item] = []
        var signedTexts: Set<String> = []
        for (epoch, size) in [2, 4, 6].enumerated() {
            let body = try! Checkpoint(origin: Self.origin, treeSize: UInt64(size), rootHash: try! tree.rootHash(size: size))
            let transition = KeyTransition(origin: Self.origin, epoch: epoch + 1, publicKey: keys[epoch + 1].publicKey, after: body)
            let signingKey = AuditKeyChainStore.SigningKey(epoch: epoch, privateKey: keys[epoch])
            checkpointItems.append(Item(kind: .checkpoint, epoch: epoch,
                                        field: Array(try! signingKey.signedNote(body.body, origin: Self.origin).utf8)))
            keyItems.append(Item(kind: .key, epoch: epoch + 1, publicKey: keys[epoch + 1].publicKey,
                                 field: Array(try! signingKey.signedNote(transition.text, origin: Self.origin).utf8)))
            signedTexts.formUnion([body.body, transition.text])
        }
        genesis = try! NoteVerifierKey(name: Self.origin, publicKey: keys[0].publicKey)
        items = keyItems + checkpointItems + entries.map { Item(kind: .entry, field: $0) }
        self.entries = entries
        self.signedTexts = signedTexts
        let report = try! AuditVerifier(snapshot: try! AuditExport.parse(exportFile(origin: Self.origin, items: items)), genesis: genesis).verify()
        precondition(report.entryCount == 6 && report.checkpointCount == 3 && report.epochCount == 4, "the template export does not verify")
    }
}

private let template = Template()

@_cdecl("LLVMFuzzerTestOneInput")
public func auditChainExportFuzz(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let input = Array(UnsafeBufferPointer(start: data, count: count))
    guard let mode = input.first else {
        check([])
        return 0
    }
    check(mode & 1 == 0 ? Array(input.dropFirst()) : exportFile(origin: Template.origin, items: edited(template.items, by: Array(input.dropFirst()))))
    return 0
}

private func edited(_ original: [Item], by edits: [UInt8]) -> [Item] {
    var items = original
    var next = 0
    while edits.count - next >= 5, !items.isEmpty {
        let index = Int(edits[next + 1]) % items.count
        let offset = Int(edits[next + 2]) << 8 | Int(edits[next + 3])
        let value = edits[next + 4]
        switch edits[next] % 6 {
        case 0:
            items[index] = items[index].changingField { field in
                let at = offset % (field.count + 1)
                if at == field.count { field.append(value) } else { field[at] = value }
            }
        case 1: items.remove(at: index)
        case 2: items.insert(items[index], at: index + 1)
        case 3: if index + 1 < items.count { items.swapAt(index, index + 1) }
        case 4: items[index] = items[index].changingField { $0 = Array($0.prefix(offset % ($0.count + 1))) }
        default: items[index] = items[index].renumbered(Int(value))
        }
        next += 5
    }
    return items
}

private func check(_ bytes: [UInt8]) {
    guard let snapshot = try? AuditExport.parse(bytes) else { return }
    guard case .encoded(let entries) = snapshot.entries else { fatalError("an export parsed to database entries") }
    let items = snapshot.keys.map { Item(kind: .key, epoch: $0.epoch, publicKey: $0.publicKey, field: $0.introduction.map { Array($0.utf8) }) }
        + snapshot.checkpoints.map { Item(kind: .checkpoint, epoch: $0.epoch, field: Array($0.note.utf8)) }
        + entries.map { Item(kind: .entry, field: $0) }
    guard exportFile(origin: snapshot.origin, items: items) == bytes else { fatalError("an accepted export does not write back to its bytes") }

    guard let report = try? AuditVerifier(snapshot: snapshot, genesis: template.genesis).verify() else { return }
    guard report.entryCount == entries.count, report.checkpointCount == snapshot.checkpoints.count, report.epochCount == snapshot.keys.count else {
        fatalError("a report that does not count what the export holds")
    }
    for note in snapshot.checkpoints.map(\.note) + snapshot.keys.dropFirst().compactMap(\.introduction) {
        guard let text = try? SignedNote(parsing: note).body, template.signedTexts.contains(text) else {
            fatalError("a checkpoint or key transition that no key of the log signed verified")
        }
    }
    let covered = report.entryCount - report.uncheckpointedEntries
    guard covered <= template.entries.count, entries.prefix(covered).elementsEqual(template.entries.prefix(covered)) else {
        fatalError("an entry covered by a checkpoint was changed, and the export still verified")
    }
    var previous = [UInt8](repeating: 0, count: 32)
    for (seq, encoded) in entries.enumerated() {
        guard let entry = try? AuditEntry(decoding: encoded), entry.seq == UInt64(seq), entry.previousHash == previous else {
            fatalError("an export whose entries do not decode or chain verified")
        }
        previous = entry.leafHash
    }
}
