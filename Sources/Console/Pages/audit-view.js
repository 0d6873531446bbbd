// The audit log for the owner or an auditor: verify it, and read the newest entries (clear fields
// only: the sealed details stay sealed), filtered by action.
import * as api from "./api.js";
import { el, replace, errorText } from "./dom.js";

export async function auditView(main, filter = "") {
  const [log, egress] = await Promise.all([api.get(`/api/audit?action=${encodeURIComponent(filter)}`), api.get("/api/egress")]);
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
  replace(main, el("h1", { text: "Audit log" }), el("p", {}, verify), result, filterForm,
    el("p", { text: `${log.size} entries in all; the newest ${log.entries.length} shown.` }),
    el("table", {}, el("thead", {}, el("tr", {}, ["#", "Time", "Actor", "Action", "Details (sealed)"].map((h) => el("th", { scope: "col", text: h })))),
      el("tbody", {}, log.entries.map((e) => el("tr", {}, el("td", { text: e.seq }), el("td", { text: new Date(e.time * 1000).toISOString() }),
        el("td", { text: e.actor }), el("td", { text: e.action }), el("td", { text: e.details.join(", ") }))))),
    el("h2", { text: "Egress decisions" }),
    egress.length === 0 ? el("p", { text: "Nothing has been released from the vault, nor refused." }) :
      el("table", {}, el("thead", {}, el("tr", {}, ["#", "Time", "Decision", "Destination", "From", "Bytes", "SHA-256"]
        .map((h) => el("th", { scope: "col", text: h })))),
        el("tbody", {}, egress.map((d) => el("tr", {}, el("td", { text: d.seq }), el("td", { text: new Date(d.time * 1000).toISOString() }),
          el("td", { text: d.decision }), el("td", { text: d.destination }), el("td", { text: d.compartments.join(", ") }),
          el("td", { text: d.size }), el("td", { text: d.sha256.slice(0, 16) + "…" }))))));
}
