// The console's entry: starts the API session, then shows the view the address's fragment names.
import * as api from "./api.js";
import { el, replace, status } from "./dom.js";
import * as live from "./live.js";
import { projectsView } from "./projects-view.js";
import { binderView } from "./binder-view.js";
import { sessionsView } from "./session-view.js";
import { auditView } from "./audit-view.js";
import { outlineView } from "./outline-view.js";
import { devicesView } from "./devices-view.js";

const main = document.getElementById("main");

async function route() {
  live.reset();
  const parts = location.hash.replace(/^#\/?/, "").split("/").filter(Boolean).map(decodeURIComponent);
  try {
    if (parts[0] === "projects" && parts[1]) await binderView(main, parts[1], parts[2]);
    else if (parts[0] === "outline" && parts[1]) await outlineView(main, parts[1]);
    else if (parts[0] === "sessions") await sessionsView(main);
    else if (parts[0] === "audit") await auditView(main);
    else if (parts[0] === "devices") await devicesView(main);
    else await projectsView(main);
  } catch (error) {
    replace(main, el("h1", { text: "Something went wrong" }), el("p", { role: "alert", text: error.message }));
  }
  main.focus();
}

async function boot() {
  try {
    await api.start();
  } catch (error) {
    replace(main, el("h1", { text: "Not signed in" }),
      el("p", { text: "Open the launch URL that 'vaultctl serve --console' printed in your terminal. Each URL works once." }));
    return;
  }
  status("Connected to this machine's vault");
  live.start();
  window.addEventListener("hashchange", route);
  await route();
}

boot();
