// A document's history: the snapshot timeline (take one, compare any version with the current
// text, restore), and its branches by kind with a side-by-side view against their base and the
// word-level diff, adopted, discarded or reverted.
import * as api from "./api.js";
import { el, replace, errorText } from "./dom.js";

const kindNames = { "ai-suggestion": "AI suggestion", "research-insert": "Research insert", "sync-conflict": "Sync conflict", manual: "Manual" };

export async function historyView(area, project, documentID, onChange, openBranchID = null) {
  const base = `/api/projects/${project.id}/documents/${api.segment(documentID)}`;
  const [snapshots, branches] = await Promise.all([api.get(`${base}/snapshots`), api.get(`${base}/branches`)]);
  const detail = el("div", { "aria-live": "polite" });
  const refresh = async () => { await onChange(); };

  const title = el("input", { id: "snapshot-title", size: 30 });
  const take = el("form", {}, el("label", { for: "snapshot-title", text: "Version title (optional)" }), title, " ",
    el("button", { type: "submit", text: "Take a snapshot" }));
  take.addEventListener("submit", async (event) => {
    event.preventDefault();
    try { await api.post(`${base}/snapshots`, { title: title.value }); await refresh(); } catch (error) { replace(detail, errorText(error)); }
  });

  const timeline = el("ul", { class: "timeline", "aria-label": "Versions, newest first" }, snapshots.slice().reverse().map((snapshot) => el("li", {},
    `Version ${snapshot.number}${snapshot.title ? ` “${snapshot.title}”` : ""} · ${snapshot.origin} · ${when(snapshot.created_at)} `,
    el("button", { class: "secondary", text: "Compare with now", "aria-label": `Compare version ${snapshot.number} with the current text`,
      onclick: async () => showDiff(detail, `Version ${snapshot.number} → now`, await api.get(`${base}/diff?from=${snapshot.id}&to=current`)) }),
    " ",
    el("button", { class: "secondary", text: "Restore", "aria-label": `Restore version ${snapshot.number}`,
      onclick: async () => { try { await api.post(`${base}/snapshots/${snapshot.id}/restore`, {}); await refresh(); } catch (e) { replace(detail, errorText(e)); } } }))));

  const branchList = branches.length === 0 ? el("p", { text: "No branches." }) : el("ul", {}, branches.map((branch) => el("li", {},
    `${kindNames[branch.kind] || branch.kind} by ${branch.by} · ${branch.state} `,
    el("button", { class: "secondary", text: "Show", "aria-label": `Show the ${kindNames[branch.kind] || branch.kind} by ${branch.by}`,
      onclick: async () => showBranch(detail, base, await api.get(`${base}/branches/${branch.id}`), refresh) }))));

  replace(area, el("h2", { text: "History" }), take, timeline, el("h2", { text: "Branches" }), branchList, detail);
  // A branch just made (an assistant's suggestion) is shown at once, beside its base.
  if (openBranchID) showBranch(detail, base, await api.get(`${base}/branches/${openBranchID}`), refresh);
}

function when(seconds) { return new Date(seconds * 1000).toLocaleString(); }

function runs(list) {
  return el("p", { class: "diff" }, list.map((run) => run.kind === "insert" ? el("ins", { text: run.text })
    : run.kind === "delete" ? el("del", { text: run.text }) : run.text));
}

function showDiff(detail, heading, answer) {
  replace(detail, el("h3", { text: heading }), runs(answer.runs));
}

function blocksColumn(heading, blocks) {
  return el("div", {}, el("h4", { text: heading }), blocks.map((block) => el("p", { text: block.text })));
}

function showBranch(detail, base, branch, refresh) {
  const act = async (decision) => {
    try { await api.post(`${base}/branches/${branch.id}/${decision}`, {}); await refresh(); } catch (error) { detail.append(errorText(error)); }
  };
  replace(detail, el("h3", { text: `${kindNames[branch.kind] || branch.kind} by ${branch.by} (${branch.state})` }),
    el("div", { class: "side-by-side" }, blocksColumn("Base", branch.base_blocks), blocksColumn("Proposed", branch.blocks)),
    el("h4", { text: "Word by word" }), runs(branch.runs),
    el("p", {},
      branch.state === "open" ? [el("button", { text: "Adopt", onclick: () => act("adopt") }), " ",
        el("button", { class: "secondary", text: "Discard", onclick: () => act("discard") })] : null,
      branch.state === "adopted" ? el("button", { class: "secondary", text: "Revert", onclick: () => act("revert") }) : null));
}
