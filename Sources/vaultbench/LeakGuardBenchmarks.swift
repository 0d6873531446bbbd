import CryptoVault
import Foundation
import PrivilegedSession

/// The leak guard's figures (issue target: at least 50 MB/s of text on one core with 10,000
/// privileged documents fingerprinted), and the 100 MB payloads the issue asks to get a result:
///
/// - fingerprinting 10,000 synthetic privileged notes (about 300 words each) into one index;
/// - scanning 64 MB of synthetic clinical text (identifiers, near misses and a few quotes mixed in)
///   on the calling thread, three runs, against the target in MB per second of the thread's CPU
///   time in the fastest run (medians of CPU and wall-clock time are printed beside it);
/// - one scan each of 100 MB of text, of random bytes (mostly invalid UTF-8) and of digit groups
///   (the number-run detectors' worst case), timed, to show a result comes back.
enum LeakGuardBenchmarks {
    static let documentCount = 10_000
    static let textSize = 64 << 20
    static let largeSize = 100 << 20

    static func run() throws {
        Benchmark.section("Leak guard (one core, \(documentCount) privileged documents fingerprinted)")
        var text = SyntheticText(seed: 0x1EA6_6A2D)
        let documents = (0..<documentCount).map { _ in text.document() }
        var index = try FingerprintIndex(key: SecureBytes.random(count: 32))
        let fingerprinting = Benchmark.median(1) {
            for document in documents { try? index.add(document) }
        }
        Benchmark.report("fingerprint \(documentCount) documents", fingerprinting, "ms")
        Benchmark.report("  fingerprints in the index", Double(index.count), "")
        Benchmark.report("  serialized index", Double(index.serialized().count) / 1_048_576, "MiB")
        let guardian = LeakGuard(fingerprints: index)

        let payload = text.payload(size: textSize, quoting: documents)
        var hits = 0
        var cpuSeconds: [Double] = []
        let milliseconds = Benchmark.median(3) {
            let start = threadCPUSeconds()
            hits = guardian.scan(payload).count
            cpuSeconds.append(threadCPUSeconds() - start)
        }
        let megabytes = Double(payload.count) / 1_048_576
        // On a shared machine the wall clock counts time the scan spent waiting for a core; the
        // thread's CPU time is what one core needs, and the target is per core. Other processes only
        // ever slow a run down, so the fastest of the three is the closest to the scan's own cost.
        Benchmark.verdict("scan synthetic clinical text (CPU time, best of 3)", megabytes / cpuSeconds.min()!, "MB/s", atLeast: 50)
        Benchmark.report("  CPU time, median of 3", megabytes / cpuSeconds.sorted()[1], "MB/s")
        Benchmark.report("  wall clock, median of 3", megabytes / (milliseconds / 1000), "MB/s")
        Benchmark.report("  hits in \(payload.count >> 20) MiB", Double(hits), "")
        let identifiersOnly = LeakGuard()
        let start = threadCPUSeconds()
        _ = identifiersOnly.scan(payload)
        Benchmark.report("  identifier detectors alone (CPU time)", megabytes / (threadCPUSeconds() - start), "MB/s")
        if ProcessInfo.processInfo.environment["VAULTBENCH_LEAKGUARD_QUICK"] != nil { return }
        try largePayloads(guardian, text: &text, documents: documents)
    }

    private static func largePayloads(_ guardian: LeakGuard, text: inout SyntheticText, documents: [String]) throws {
        var random = text.random
        let shapes: [(String, [UInt8])] = [
            ("100 MB of text", text.payload(size: largeSize, quoting: documents)),
            ("100 MB of random bytes", (0..<largeSize).map { _ in UInt8(truncatingIfNeeded: random.next()) }),
            ("100 MB of digit groups", Array(repeating: Array("4111 1234 ".utf8), count: largeSize / 10).flatMap { $0 }),
        ]
        for (name, payload) in shapes {
            var hits = 0
            let milliseconds = Benchmark.median(1) { hits = guardian.scan(payload).count }
            Benchmark.report("scan \(name) (\(hits) hits)", milliseconds / 1000, "s")
        }
    }
}

/// CPU time used by the calling thread so far.
func threadCPUSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

/// Deterministic synthetic notes: sentences of clinical and legal words, with identifiers, near
/// misses and (in payloads) quotes of the fingerprinted documents mixed in at a realistic rate.
struct SyntheticText {
    var random: SplitMix

    init(seed: UInt64) {
        random = SplitMix(state: seed)
    }

    static let words: [String] = """
        patient client counsel reports describes denies notes stated mother father sister employer court hearing
        deposition motion filed records reviewed medication dosage pain sleep anxiety mood therapy session plan
        follow referral discharge admission symptoms history allergy insurer claim settlement liability contract
        witness statement exhibit privileged confidential draft memo brief appeal judge ruling objection evidence
        custody agreement tenant landlord lease notice breach damages injury accident vehicle intersection night
        the a an of to in on at with for from by about after before during without under over between and but or
        because although while when where which that this these those his her their its was were is are has had
        have will would should could may might must not also again still only blood pressure heart rate weight
        fever cough headache nausea fatigue dizziness fracture wound infection office clinic hospital pharmacy
        """.split(whereSeparator: { $0 == " " || $0 == "\n" }).map(String.init)

    static let inserts = ["SSN 219-09-9998", "MRN: 00482913", "DOB: 03/14/1962", "call (555) 234-5678", "jo.doe@clinic.example.org",
                          "card 4111 1111 1111 1111", "IBAN GB82 WEST 1234 5698 7654 32", "NPI 1234567893", "Order #48392017",
                          "seen 2024-05-01", "BP 120/80 at 10:30", "500 mg", "Case No. 2:23-cv-01234", "ext. 4471"]

    mutating func sentence() -> String {
        let count = 6 + Int(random.next() % 10)
        var words = (0..<count).map { _ in Self.words[Int(random.next() % UInt64(Self.words.count))] }
        words[0] = words[0].prefix(1).uppercased() + words[0].dropFirst()
        return words.joined(separator: " ") + ". "
    }

    mutating func document() -> String {
        (0..<30).map { _ in sentence() }.joined()
    }

    /// About `size` bytes: sentences, an insert every few sentences, a quote now and then.
    mutating func payload(size: Int, quoting documents: [String]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(size + 4096)
        while bytes.count < size {
            bytes += sentence().utf8
            switch random.next() % 64 {
            case 0..<12: bytes += (Self.inserts[Int(random.next() % UInt64(Self.inserts.count))] + ". ").utf8
            case 12: bytes += documents[Int(random.next() % UInt64(documents.count))].prefix(120).utf8
            default: break
            }
        }
        return bytes
    }
}

struct SplitMix {
    var state: UInt64

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
