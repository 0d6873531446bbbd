// The owner's devices: this one's identity (its fingerprint to compare aloud), the devices paired with
// this vault, pairing a new one with a one-time code (the other device runs 'vaultctl pair join'),
// forgetting one, each device's sync state (last sync, records sent and received, pending, paused)
// with pause, resume and "sync now", and the sync conflicts waiting for a decision (each a branch of
// its document). The code is shown only while it waits and never kept anywhere in the browser.
import * as api from "./api.js";
import { el, replace, errorText } from "./dom.js";

// `answer`: what a revoke or a trust change just said, shown once at the top (alsoChangeNotice).
export async function devicesView(main, answer = null) {
  const [devices, conflicts] = await Promise.all([api.get("/api/devices"), api.get("/api/conflicts")]);
  const pairingArea = el("section", { "aria-labelledby": "pair-heading" });
  const refresh = (next = null) => devicesView(main, next);
  replace(main, el("h1", { text: "Devices" }), alsoChangeNotice(answer),
    el("p", {}, "This device: ", el("strong", { text: devices.this.name }), ", fingerprint ",
      el("code", { id: "this-fingerprint", text: devices.this.fingerprint }), ". Compare it aloud with what the other device shows when you pair."),
    el("h2", { text: "Paired with this vault" }), pairedTable(devices.paired, refresh),
    syncNowForm(devices.paired, refresh), conflictList(conflicts), pairingArea);
  showPairing(pairingArea, devices.pairing, refresh);
}

// After forgetting a device or making it someone else's: trust is per vault, so each of the owner's
// other devices still trusts it until it hears of the change at its next sync with one that knows, or
// the owner makes the same change there. The page names them, with the command to run on each.
function alsoChangeNotice(answer) {
  const others = answer?.also_change_on ?? [];
  if (others.length === 0) return null;
  return el("div", { role: "alert", class: "notice", id: "also-change-on" },
    el("p", { text: "This vault cannot change your other devices: each that pairs it still trusts it as yours and keeps sending it your "
      + "privileged projects until it next syncs with this one. Make the same change on each of them now:" }),
    el("ul", {}, others.map((o) => el("li", {}, `on ${o.device.name} (`, el("code", { text: o.device.fingerprint }), "): ",
      el("code", { text: o.command })))));
}

function pairedTable(paired, refresh) {
  if (paired.length === 0) return el("p", { text: "No device is paired yet." });
  return el("table", {}, el("thead", {}, el("tr", {}, ["Device", "Fingerprint", "Whose", "Sync", "Pairing", "Paired at", ""].map((h) => el("th", { scope: "col", text: h })))),
    el("tbody", {}, paired.map((p) => {
      const forget = el("button", { class: "danger", "aria-label": `Forget ${p.device.name}`, text: "Forget" });
      const errors = el("span", { "aria-live": "polite" });
      forget.addEventListener("click", async () => {
        if (!confirm(`Forget ${p.device.name}? It can no longer connect to this vault until you pair it again.`)) return;
        try { await refresh(await api.remove(`/api/devices/${p.device.fingerprint}`)); } catch (error) { replace(errors, errorText(error)); }
      });
      return el("tr", {}, el("td", { text: p.device.name }), el("td", {}, el("code", { text: p.device.fingerprint })),
        el("td", {}, trustControl(p, refresh)), el("td", {}, syncState(p, refresh)),
        el("td", { text: p.role === "hosted" ? "this device showed the code" : "this device typed the code" }),
        el("td", { text: p.paired_at }), el("td", {}, forget, errors));
    })));
}

function when(seconds) { return seconds ? new Date(seconds * 1000).toISOString().slice(0, 16).replace("T", " ") + " UTC" : "never"; }

// A device's sync as 'vaultctl sync status' shows it, and pausing or resuming it (every record stays).
function syncState(paired, refresh) {
  const sync = paired.sync;
  if (!sync) return el("span", { text: "—" });
  const text = `${sync.paused ? "Paused. " : ""}Last synced ${when(sync.last_sync_at)}; sent ${sync.records_sent}, received ${sync.records_received}`
    + `, ${sync.pending} waiting to go${sync.last_error ? `; last attempt failed (${sync.last_error})` : ""}.`
    + (sync.projects_not_in_sync?.length ? ` ${sync.projects_not_in_sync.length} project(s) NOT in sync with it (left, or records refused): see 'vaultctl sync status'.` : "");
  const verb = sync.paused ? "resume" : "pause";
  const toggle = el("button", { class: "secondary", "aria-label": `${sync.paused ? "Resume" : "Pause"} sync with ${paired.device.name}`,
    text: sync.paused ? "Resume" : "Pause" });
  const errors = el("span", { "aria-live": "polite" });
  toggle.addEventListener("click", async () => {
    try { await api.post(`/api/devices/${paired.device.fingerprint}/sync/${verb}`, {}); await refresh(); } catch (error) { replace(errors, errorText(error)); }
  });
  return el("span", {}, el("span", { class: "sync-state", text }), " ", toggle, errors);
}

// One exchange now with a paired device, where its 'vaultctl serve' listens (or heard from its announcement).
function syncNowForm(paired, refresh) {
  if (paired.length === 0) return null;
  const device = el("select", { id: "sync-device" }, paired.map((p) => el("option", { value: p.device.fingerprint, text: p.device.name })));
  const address = el("input", { id: "sync-address", size: 24, placeholder: "192.168.1.20:7421" });
  const outcome = el("div", { "aria-live": "polite" });
  const form = el("form", {}, el("h2", { text: "Sync now" }),
    el("label", { for: "sync-device", text: "With" }), device,
    el("label", { for: "sync-address", text: "At (address:port; empty: wait 5 s for its announcement)" }), address,
    " ", el("button", { type: "submit", text: "Sync now" }), outcome);
  const submit = form.querySelector("button[type='submit']");
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    if (submit.disabled) return;
    submit.disabled = true;
    replace(outcome, el("p", { role: "status", text: "Syncing…" }));
    try {
      const done = await api.post(`/api/devices/${device.value}/sync`, { address: address.value });
      replace(outcome, el("p", { role: "status", class: "proof-ok", text: `Synced ${done.projects} project(s): sent ${done.sent} record(s), received ${done.received}`
        + (done.refused ? `, ${done.refused} refused` : "") + (done.branches_made ? `; ${done.branches_made} conflict(s) kept as branches` : "") + "."
        + (done.projects_not_synced?.length ? ` ${done.projects_not_synced.length} project(s) did NOT wholly sync: see 'vaultctl sync status'.` : "") }));
      setTimeout(() => { if (form.isConnected) refresh(); }, 1500);
    } catch (error) { replace(outcome, errorText(error)); } finally { submit.disabled = false; }
  });
  return form;
}

const trustWords = { mine: "My own device", other: "Someone else's", unset: "Someone else's (not chosen yet)" };

// Whose device it is, and changing it: explicit, and recorded by the daemon as peer.trust. Only an
// own device may receive privileged projects.
function trustControl(paired, refresh) {
  const id = `trust-${paired.device.fingerprint}`;
  const choice = el("select", { id, "aria-label": `Whose device ${paired.device.name} is` },
    // An older pairing has no level: nothing is preselected, so a careless Save cannot make it "mine".
    paired.trust === "unset" ? el("option", { value: "", selected: true, disabled: true, text: "Choose…" }) : null,
    ["mine", "other"].map((t) => el("option", { value: t, selected: paired.trust === t, text: trustWords[t] })));
  const change = el("button", { class: "secondary", "aria-label": `Save whose device ${paired.device.name} is`, text: "Save" });
  const errors = el("span", { "aria-live": "polite" });
  change.addEventListener("click", async () => {
    if (!choice.value) { replace(errors, errorText(new Error("Choose whose device it is first."))); return; }
    try { await refresh(await api.post(`/api/devices/${paired.device.fingerprint}/trust`, { trust: choice.value })); }
    catch (error) { replace(errors, errorText(error)); }
  });
  return el("span", {}, el("span", { class: "trust", text: trustWords[paired.trust] ?? paired.trust }), " ", choice, " ", change, errors);
}

// Open sync conflicts: both sides' words are kept, one in the document and one in the branch, until
// the owner adopts or discards the branch on its document's page.
function conflictList(answer) {
  const locked = answer.locked_projects
    ? el("p", { class: "tag", text: `${answer.locked_projects} privileged project(s) not shown: open a session to see their conflicts.` }) : null;
  if (answer.conflicts.length === 0) return [el("h2", { text: "Sync conflicts" }), el("p", { text: "No conflict is waiting." }), locked];
  return [el("h2", { text: "Sync conflicts" }),
    el("ul", { class: "conflicts" }, answer.conflicts.map((c) => el("li", {},
      el("a", { href: `#/projects/${c.project}/${c.document}`, text: `${c.project_name ?? `Project ${c.project} (name damaged)`}: ${c.document_title}` }),
      ` — the other side's words kept as a branch (${c.by}), since ${new Date(c.created_at * 1000).toISOString().slice(0, 16).replace("T", " ")}`))),
    locked];
}

// The pairing form, or how the last one ended. The code comes only in the answer that started the
// wait, and lives in this view's memory while it waits.
function showPairing(area, pairing, refresh) {
  const heading = el("h2", { id: "pair-heading", text: "Pair a new device" });
  const outcome = pairing.state === "paired"
    ? el("p", { role: "status", class: "proof-ok", text: `Paired with ${pairing.device.name} (${trustWords[pairing.trust]}), fingerprint ${pairing.device.fingerprint}. Compare it with 'vaultctl device' on that device.` })
    : pairing.state === "failed" ? el("p", { role: "alert", class: "field-error", text: `The last pairing did not complete: ${pairing.reason}` })
    : pairing.state === "waiting" ? el("p", { role: "status", text: `A pairing started elsewhere is waiting on ${pairing.address}.` }) : null;
  const address = el("input", { id: "pair-address", value: "0.0.0.0:7420", size: 24 });
  const errors = el("div", { "aria-live": "polite" });
  // Whose device it is is asked every time, with no default, as 'pair host' asks it on the terminal.
  const trust = el("fieldset", {}, el("legend", { text: "Whose device is it?" }),
    ["mine", "other"].map((t) => el("label", { class: "choice" },
      el("input", { type: "radio", name: "trust", value: t, required: true }), " ",
      t === "mine" ? "My own device: privileged projects may sync to it" : "Someone else's: privileged projects never go to it")));
  const form = el("form", {}, trust, el("label", { for: "pair-address", text: "Listen for the other device on (address:port)" }), address,
    " ", el("button", { type: "submit", text: "Show a pairing code" }), errors);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      const started = await api.post("/api/devices/pairing", { address: address.value, trust: new FormData(form).get("trust") });
      showWaiting(area, heading, started, refresh);
    } catch (error) { replace(errors, errorText(error)); }
  });
  replace(area, heading, outcome, form);
}

// The code while the daemon waits: drawn once, its status line updated in place each second (so the
// focus stays where it is and a screen reader is not told everything again), until it ends.
function showWaiting(area, heading, started, refresh) {
  const status = el("p", { role: "status" });
  const describe = (p) => `Waiting on ${p.address}; the code works for ${Math.ceil(p.expires_in / 60)} more minute(s)`
    + (p.failed_attempts ? `, ${p.failed_attempts} failed attempt(s) of 3.` : ".");
  status.textContent = describe(started);
  const cancel = el("button", { class: "secondary", text: "Cancel" });
  cancel.addEventListener("click", async () => { await api.remove("/api/devices/pairing"); await refresh(); });
  replace(area, heading,
    el("p", { text: "On the other device, run 'vaultctl pair join --address ADDRESS' with this device's address and the port below, and type this code:" }),
    el("p", { class: "pairing-code", id: "pairing-code", text: started.code }),
    status, el("p", { text: "Read the code to the other person; never send it over the network." }), cancel);
  cancel.focus();
  const poll = async () => {
    if (!area.isConnected) return;
    const fresh = await api.get("/api/devices").catch(() => null);
    if (fresh && fresh.pairing.state !== "waiting") { await refresh(); return; }
    if (fresh) status.textContent = describe(fresh.pairing);
    setTimeout(poll, 1000);
  };
  setTimeout(poll, 1000);
}
