// Privileged processing sessions: the live ones with their remaining time, ending one, and the
// form a locked project shows to start one with a purpose.
import * as api from "./api.js";
import { el, replace, errorText } from "./dom.js";
import { sessionCountdown } from "./countdown.js";

export async function sessionsView(main) {
  const sessions = await api.get("/api/sessions");
  replace(main, el("h1", { text: "Privileged sessions" }),
    sessions.length === 0 ? el("p", { text: "No session is open." }) :
      el("table", {}, el("thead", {}, el("tr", {}, ["Compartment", "Started", "Time left", ""].map((h) => el("th", { scope: "col", text: h })))),
        el("tbody", {}, sessions.map((s) => el("tr", {},
          el("td", { text: s.compartment }), el("td", { text: s.started_at }), el("td", {}, sessionCountdown(s, () => sessionsView(main))),
          el("td", {}, el("button", { class: "danger", onclick: async () => { await api.remove(`/api/sessions/${s.id}`); await sessionsView(main); },
            text: "End session" })))))));
}

export function startSessionForm(project, onStarted) {
  const errors = el("div", { "aria-live": "polite" });
  const form = el("form", { class: "locked" },
    el("h2", { text: "This project is privileged" }),
    el("p", { text: "Nothing of it is shown until you open a session. The purpose is sealed in the audit log; name no patient or client in it." }),
    el("label", { for: "session-purpose", text: "Purpose" }),
    el("input", { id: "session-purpose", name: "purpose", required: true, size: 50 }),
    errors, el("p", {}, el("button", { type: "submit", text: "Start session" })));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      await api.post("/api/sessions", { project: project, purpose: new FormData(form).get("purpose") });
      await onStarted();
    } catch (error) {
      replace(errors, errorText(error));
    }
  });
  return form;
}
