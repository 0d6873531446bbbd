// The audit log for the owner or an auditor: verify it, read the newest entries (clear fields only:
// the sealed details stay sealed) filtered by action, check one entry's inclusion proof here in the
// browser, and download the export with the genesis key an auditor verifies it against.
import * as api from "./api.js";
import { el, replace, errorText } from "./dom.js";
import { verifyInclusion } from "./merkle.js";

export async function auditView(main, filter = "") {
  const [log, egress, key] = await Promise.all([api.get(`/api/audit?action=${encodeURIComponent(filter)}`), api.get("/api/egress"),
    api.get("/api/audit/key")]);
  const result = el("div", { "aria-live": "polite" });
  const filterInput = el("input", { id: "audit-filter", value: filter, size: 30 });
  const filterForm = el("form", {}, el("label", { for: "audit-filter", text: "Action starts with" }), filterInput, " ",
    el("button", { type: "submit", class: "secondary", text: "Filter" }));
  filterForm.addEventListener("submit", (event) => { event.preventDefault(); auditView(main, filterInput.value); });
  const verify = el("button", { text: "Verify the whole log" });
  verify.addEventListener("click", async () => {
    try {
      const report = await api.post("/api/audit/verify", {});
      replace(result, el("p", { role: "status", text: report.verified
        ? `Verified: ${report.entries} entries, ${report.checkpoints} checkpoints, every signature and link holds.`
        : `Verification FAILED: ${report.reason}` }));
    } catch (error) { replace(result, errorText(error)); }
  });
  replace(main, el("h1", { text: "Audit log" }), el("p", {}, verify), result, exportSection(key.vkey), filterForm,
    el("p", { text: `${log.size} entries in all; the newest ${log.entries.length} shown.` }),
    el("table", {}, el("thead", {}, el("tr", {}, ["#", "Time", "Actor", "Action", "Details (sealed)", "Proof"]
      .map((h) => el("th", { scope: "col", text: h })))),
      el("tbody", {}, log.entries.map(entryRow))),
    el("h2", { text: "Egress decisions" }), egressTable(egress));
}

function exportSection(vkey) {
  return el("section", { "aria-labelledby": "export-heading" },
    el("h2", { id: "export-heading", text: "For an auditor" }),
    el("p", {}, el("a", { id: "audit-export", href: "/api/audit/export", download: "", text: "Download the audit export" }),
      " (entries with their details sealed, checkpoints and the key chain; the download is itself recorded)."),
    el("p", { text: "Give the auditor this genesis key beside it; they check the export with 'vaultctl audit verify-export FILE --key KEY', with no vault and no passphrase:" }),
    el("pre", { id: "audit-key", tabindex: 0, "aria-label": "Genesis key", text: vkey }));
}

function entryRow(entry) {
  const cell = el("td", {});
  const check = el("button", { class: "secondary", "aria-label": `Check the inclusion proof of entry ${entry.seq}`, text: "Check" });
  check.addEventListener("click", async () => {
    try {
      const proof = await api.get(`/api/audit/entries/${entry.seq}/proof`);
      const holds = proof.index === entry.seq && await verifyInclusion(proof);
      // The root is the daemon's word; the check shows this entry is in the tree with that root. An
      // auditor ties the root to a signed checkpoint with 'vaultctl audit verify-export'.
      replace(cell, el("span", { role: "status", class: holds ? "proof-ok" : "proof-bad",
        text: holds ? `Leads to the root of ${proof.size} entries (hashed here)` : "The proof does NOT hold" }),
        el("details", {}, el("summary", { text: "Proof" }), el("pre", { text: checkCommand(proof) })));
    } catch (error) { replace(cell, errorText(error)); }
  });
  replace(cell, check);
  return el("tr", {}, el("td", { text: entry.seq }), el("td", { text: new Date(entry.time * 1000).toISOString() }),
    el("td", { text: entry.actor }), el("td", { text: entry.action }), el("td", { text: entry.details.join(", ") }), cell);
}

const checkCommand = (p) => `vaultctl audit check-inclusion --leaf-hash ${p.leaf_hash} --index ${p.index} --size ${p.size} `
  + `--root ${p.root} --proof '${p.proof.join(",")}'`;

function egressTable(egress) {
  if (egress.length === 0) return el("p", { text: "Nothing has been released from the vault, nor refused." });
  return el("table", {}, el("thead", {}, el("tr", {}, ["#", "Time", "Decision", "Destination", "From", "Bytes", "SHA-256"]
    .map((h) => el("th", { scope: "col", text: h })))),
    el("tbody", {}, egress.map((d) => el("tr", {}, el("td", { text: d.seq }), el("td", { text: new Date(d.time * 1000).toISOString() }),
      el("td", { text: d.decision }), el("td", { text: d.destination }), el("td", { text: d.compartments.join(", ") }),
      el("td", { text: d.size }), el("td", { text: d.sha256.slice(0, 16) + "…" })))));
}
