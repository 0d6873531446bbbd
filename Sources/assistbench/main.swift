import Assistant
import AuditChain
import CryptoVault
import Foundation
import PrivilegedSession
import Writing

/// `make bench`'s assistant figures (issue 18), printed for people, each against its bar (PASS/FAIL;
/// the program does not fail on a FAIL: timing belongs to benchmarks, not to tests).
///
/// 1. Routing overhead: `AIService.run` on a 10,000-word prompt (the policy, the transcript, the
///    egress funnel's leak-guard scan and numbered redaction, its audit entry, the `ai.call` entry,
///    the placeholders put back) with a provider that answers at once, on a real vault with the
///    audit log as its journal. Bar: median under 20 ms.
/// 2. Time to first streamed token through the whole path (`AIService.run` with the real provider)
///    against a direct request (the same JSON body, the same HTTP client, no policy, funnel or
///    audit) to the same real model server, alternated in the same run (A B B A ...). Bar: the
///    median of the per-pair differences within 10 ms. Needs MODEL_SERVER_URL (scripts/model-server
///    run): without it the part says SKIPPED, loudly.
print("assistbench: \(ProcessInfo.processInfo.activeProcessorCount) cores")
do {
    let bench = try AssistantBench()
    try bench.routingOverhead()
    try bench.timeToFirstToken()
} catch {
    FileHandle.standardError.write(Data("assistbench: error: \(error)\n".utf8))
    exit(1)
}
