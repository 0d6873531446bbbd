// The assistant on a document (issue 18's lanes): choose a lane, add an instruction, and first see
// what the egress funnel would decide for the prompt (which provider, allowed, redacted or refused,
// and what the leak guard found). Only "Send" sends, confirming that decision: if the document or the
// policy changed meanwhile the daemon sends nothing and asks for a new check. The answer arrives as
// an AI-suggestion branch, shown beside its base in the history, adopted or discarded there.
import * as api from "./api.js";
import { el, replace, errorText } from "./dom.js";

const decisionWords = {
  allow: "would be sent as it is",
  redact: "would be sent with what the leak guard found replaced by placeholders",
  refuse: "would not be sent",
};

export async function assistantView(area, project, documentID, showBranch) {
  const base = `/api/projects/${project.id}/documents/${api.segment(documentID)}/assistant`;
  const lanes = await api.get(`/api/projects/${project.id}/assistant`);
  const usable = lanes.lanes.filter((lane) => lane.provider);
  const outcome = el("div", { "aria-live": "polite" });
  if (usable.length === 0) {
    replace(area, el("h2", { text: "Assistant" }),
      el("p", { text: lanes.privileged
        ? "This project is privileged: no lane may send anything to a model unless you allow a local provider for it ('vaultctl ai allow-local')."
        : "No provider may serve this project's lanes. Add one with 'vaultctl ai providers add'." }),
      el("ul", {}, lanes.lanes.map((lane) => el("li", { text: `${lane.lane}: ${lane.refused}` }))));
    return;
  }
  const lane = el("select", { id: "assistant-lane" }, lanes.lanes.map((row) => el("option", {
    value: row.lane, disabled: !row.provider, text: row.provider ? `${row.lane} (${row.provider})` : `${row.lane}: ${row.refused}`,
  })));
  lane.value = usable[0].lane;
  const instruction = el("textarea", { id: "assistant-instruction", rows: 2, cols: 40 });
  const form = el("form", {},
    el("label", { for: "assistant-lane", text: "Lane" }), lane,
    el("label", { for: "assistant-instruction", text: "Instruction (optional)" }), instruction,
    el("p", {}, el("button", { type: "submit", text: "Check what would be sent" })));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    replace(outcome, el("p", { text: "Checking…" }));
    try {
      const check = await api.post(`${base}/check`, { lane: lane.value, instruction: instruction.value });
      showCheck(outcome, base, check, showBranch);
    } catch (error) { replace(outcome, errorText(error)); }
  });
  replace(area, el("h2", { text: "Assistant" }),
    el("p", { class: "tag", text: `${lanes.privileged ? "Privileged project · " : ""}${lanes.local_only ? "local providers only" : "any allowed provider"}`
      + ` · findings ${lanes.on_finding === "redact" ? "redacted" : "refuse the call"}` }),
    form, outcome);
}

function findingsText(findings) {
  const entries = Object.entries(findings || {});
  return entries.length === 0 ? "the leak guard found nothing" : `the leak guard found ${entries.map(([kind, n]) => `${n} ${kind}`).join(", ")}`;
}

// The decision, before anything is sent, with Send (unless refused) and Cancel.
function showCheck(outcome, base, check, showBranch) {
  const summary = check.provider
    ? `To ${check.provider}: the prompt (${check.prompt_size} bytes) ${decisionWords[check.decision]}; ${findingsText(check.findings)}.`
    : `Refused by the project's policy: ${check.refused}.`;
  const send = el("button", { text: "Send", disabled: check.decision === "refuse" });
  const cancel = el("button", { class: "secondary", text: "Cancel", onclick: () => replace(outcome, el("p", { text: "Nothing was sent." })) });
  const progress = el("p", { role: "status" });
  send.addEventListener("click", () => run(outcome, base, check, progress, showBranch));
  replace(outcome, el("h3", { text: "Before anything is sent" }), el("p", { class: `decision ${check.decision}`, text: summary }),
    el("p", { text: "Nothing has been sent yet." }), el("p", {}, send, " ", cancel), progress);
  send.focus();
}

async function run(outcome, base, check, progress, showBranch) {
  outcome.querySelectorAll("button").forEach((button) => { button.disabled = true; });
  progress.textContent = "Sending…";
  let ended = false;
  try {
    await api.postLines(`${base}/run`, { check: check.check }, (line) => {
      if (line.decided) progress.textContent = `Recorded: ${line.decided.decision} to ${line.decided.provider}. Waiting for the answer…`;
      else if (line.received !== undefined) progress.textContent = `Receiving: ${line.received} characters`;
      else if (line.done) { ended = true; finish(outcome, line.done, showBranch); }
      else if (line.error) { ended = true; replace(outcome, errorText(new Error(line.error.message))); }
    });
    if (!ended) replace(outcome, errorText(new Error("The run ended without an answer (see 'vaultctl ai log'); check again to retry.")));
  } catch (error) { replace(outcome, errorText(error)); }
}

function finish(outcome, done, showBranch) {
  if (done.failed) {
    replace(outcome, el("p", { role: "alert", text: `The answer failed the output contract (${done.failed}): no branch was made. It is in the AI log.` }));
    return;
  }
  replace(outcome, el("p", { role: "status", text: `A suggestion from ${done.provider} is ready as a branch. Nothing in the document changed until you adopt it.` }));
  showBranch(done.branch.id);
}
