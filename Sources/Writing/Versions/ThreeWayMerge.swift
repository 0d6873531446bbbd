/// A three-way merge of two descendants ("ours", "theirs") of a common base, over any sequence of
/// elements: lines of a text (`lines(base:ours:theirs:)`) or blocks of a document
/// (`blocks(base:ours:theirs:)`). Adopting a branch whose base the document has moved on from is
/// this merge, with the document as ours and the branch as theirs.
///
/// The rule is git's (`git merge-file --diff3`, xdiff's `xdl_do_merge` at its "eager" level), so
/// that a person who knows git's merges knows these:
/// - each side is diffed against the base (`SequenceDiff`);
/// - a change made on one side only is taken;
/// - changes of the two sides that overlap or touch (in the base, or in the merged text) are one
///   conflict region, unless they are the very same change (same base lines replaced by the same
///   lines), which is taken once;
/// - a conflict region keeps the base and both sides whole. Nothing is silently dropped: every
///   region carries its base, ours and theirs, and the regions tile all three inputs, so each input
///   is the concatenation of its parts (`MergeResult.base`, `.ours`, `.theirs`).
public enum ThreeWayMerge {
    /// Merges three texts line by line. A line keeps its "\n"; a last line without one is a
    /// different line from the same text with one. Lines are compared as bytes.
    public static func lines(base: String, ours: String, theirs: String) throws(WritingError) -> MergeResult<Line> {
        try WritingLimits.checkDocument(base, "base")
        try WritingLimits.checkDocument(ours, "ours")
        try WritingLimits.checkDocument(theirs, "theirs")
        return merge(base: Line.split(base), ours: Line.split(ours), theirs: Line.split(theirs))
    }

    /// Merges three block lists; blocks are equal when their `Hashable` equality says so.
    public static func blocks<Block: Hashable & Sendable>(base: [Block], ours: [Block], theirs: [Block])
        throws(WritingError) -> MergeResult<Block>
    {
        try WritingLimits.checkBlocks(base.count, "base")
        try WritingLimits.checkBlocks(ours.count, "ours")
        try WritingLimits.checkBlocks(theirs.count, "theirs")
        return merge(base: base, ours: ours, theirs: theirs)
    }

    static func merge<Element: Hashable & Sendable>(base: [Element], ours: [Element], theirs: [Element]) -> MergeResult<Element> {
        var table = SymbolTable<Element>()
        let baseSymbols = base.map { table.symbol($0) }
        let ourSymbols = ours.map { table.symbol($0) }
        let theirSymbols = theirs.map { table.symbol($0) }
        let changes = MergeChanges.combine(
            ours: SequenceDiff.hunks(baseSymbols, ourSymbols),
            theirs: SequenceDiff.hunks(baseSymbols, theirSymbols),
            ourSymbols: ourSymbols, theirSymbols: theirSymbols,
            baseCount: base.count, ourCount: ours.count, theirCount: theirs.count)
        return MergeResult(regions: regions(changes, base, ours, theirs))
    }

    /// The changes with the agreed stretches between them, in order.
    private static func regions<Element>(_ changes: [MergeChange], _ base: [Element], _ ours: [Element],
                                         _ theirs: [Element]) -> [MergeRegion<Element>] {
        var regions: [MergeRegion<Element>] = []
        var b = 0, o = 0, t = 0
        for change in changes {
            if change.ourStart > o || change.baseStart > b || change.theirStart > t {
                regions.append(MergeRegion(.agreed, Array(base[b..<change.baseStart]),
                                           Array(ours[o..<change.ourStart]), Array(theirs[t..<change.theirStart])))
            }
            b = change.baseStart + change.baseCount
            o = change.ourStart + change.ourCount
            t = change.theirStart + change.theirCount
            regions.append(MergeRegion(change.resolution, Array(base[change.baseStart..<b]),
                                       Array(ours[change.ourStart..<o]), Array(theirs[change.theirStart..<t])))
        }
        if b < base.count || o < ours.count || t < theirs.count {
            regions.append(MergeRegion(.agreed, Array(base[b...]), Array(ours[o...]), Array(theirs[t...])))
        }
        return regions
    }
}

/// A line of a text, compared as bytes (with its "\n" when it has one).
public struct Line: Hashable, Sendable, CustomStringConvertible {
    public let bytes: [UInt8]

    public init(_ bytes: [UInt8]) { self.bytes = bytes }

    public var text: String { String(decoding: bytes, as: UTF8.self) }
    public var description: String { text }

    /// The lines of `text`, each ending in "\n" except perhaps the last.
    public static func split(_ text: String) -> [Line] {
        var lines: [Line] = []
        var current: [UInt8] = []
        for byte in text.utf8 {
            current.append(byte)
            if byte == UInt8(ascii: "\n") { lines.append(Line(current)); current = [] }
        }
        if !current.isEmpty { lines.append(Line(current)) }
        return lines
    }
}

/// How a region of the merge was settled.
public enum MergeResolution: String, Sendable, Equatable {
    /// Both sides hold the same elements here (unchanged, or changed the same way on both).
    case agreed
    /// Only ours changed this region; theirs equals the base. The merge takes ours.
    case ours
    /// Only theirs changed this region; ours equals the base. The merge takes theirs.
    case theirs
    /// Both changed it differently. The merge keeps all three and a person decides.
    case conflict
}

/// One region of a merge, with what each of the three inputs holds there.
public struct MergeRegion<Element: Hashable & Sendable>: Sendable, Equatable {
    public let resolution: MergeResolution
    public let base: [Element]
    public let ours: [Element]
    public let theirs: [Element]

    init(_ resolution: MergeResolution, _ base: [Element], _ ours: [Element], _ theirs: [Element]) {
        self.resolution = resolution
        self.base = base
        self.ours = ours
        self.theirs = theirs
    }

    /// The merged elements, or nil for a conflict (which has no single answer).
    public var merged: [Element]? {
        switch resolution {
        case .agreed, .ours: ours
        case .theirs: theirs
        case .conflict: nil
        }
    }
}

/// The outcome of a three-way merge: regions that tile base, ours and theirs.
public struct MergeResult<Element: Hashable & Sendable>: Sendable, Equatable {
    public let regions: [MergeRegion<Element>]

    public var conflictCount: Int { regions.filter { $0.resolution == .conflict }.count }
    public var isClean: Bool { conflictCount == 0 }

    /// The merged elements when there is no conflict.
    public var merged: [Element]? {
        var elements: [Element] = []
        for region in regions {
            guard let part = region.merged else { return nil }
            elements += part
        }
        return elements
    }

    /// Each input, rebuilt from the regions: proof that the merge lost nothing of it.
    public var base: [Element] { regions.flatMap(\.base) }
    public var ours: [Element] { regions.flatMap(\.ours) }
    public var theirs: [Element] { regions.flatMap(\.theirs) }
}

extension MergeResult where Element == Line {
    /// The merge as text in git's diff3 style: a conflict is written as
    /// `<<<<<<< ours`, our lines, `||||||| base`, the base lines, `=======`, their lines,
    /// `>>>>>>> theirs`, each marker on its own line (the labels follow the marker and a space).
    /// `includeBase: false` leaves out the base section, as git's default style does.
    public func text(oursLabel: String = "ours", baseLabel: String = "base", theirsLabel: String = "theirs",
                     includeBase: Bool = true) -> String {
        var out: [UInt8] = []
        func lines(_ lines: [Line]) {
            for line in lines { out += line.bytes }
            if let last = out.last, last != UInt8(ascii: "\n"), !lines.isEmpty { out.append(UInt8(ascii: "\n")) }
        }
        func marker(_ text: String) { out += Array(text.utf8); out.append(UInt8(ascii: "\n")) }
        for region in regions {
            if let merged = region.merged {
                for line in merged { out += line.bytes }
                continue
            }
            if let last = out.last, last != UInt8(ascii: "\n") { out.append(UInt8(ascii: "\n")) }
            marker("<<<<<<< \(oursLabel)")
            lines(region.ours)
            if includeBase {
                marker("||||||| \(baseLabel)")
                lines(region.base)
            }
            marker("=======")
            lines(region.theirs)
            marker(">>>>>>> \(theirsLabel)")
        }
        return String(decoding: out, as: UTF8.self)
    }
}
