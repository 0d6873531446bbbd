// A project: its binder (folders and documents as a tree, in the register's words), reordering by
// buttons, keyboard and drag (reorder.js), adding a document or folder, a link to the outline, and
// the open document's editor beside it.
import * as api from "./api.js";
import { el, replace, errorText } from "./dom.js";
import { projectTitle, damagedNameHint } from "./project-title.js";
import { startSessionForm } from "./session-view.js";
import { editorView } from "./editor-view.js";
import { historyView } from "./history-view.js";
import { assistantView } from "./assistant-view.js";
import * as live from "./live.js";
import { sessionCountdown } from "./countdown.js";
import { onReorderKey, dragAttributes, moveByKey } from "./reorder.js";

export async function binderView(main, projectID, documentID, focusNode = null) {
  let project;
  try {
    project = await api.get(`/api/projects/${api.segment(projectID)}`);
  } catch (error) {
    if (error.status !== 423) throw error;
    replace(main, el("h1", { text: "Privileged project" }), startSessionForm(projectID, () => binderView(main, projectID, documentID)));
    return;
  }
  const terms = project.terms;
  const editorArea = el("section", { class: "editor", "aria-label": terms.scene.singular });
  const historyArea = el("section", { class: "history", "aria-label": "History and branches" });
  const assistantArea = el("section", { class: "assistant", "aria-label": "Assistant" });
  const refresh = (focus = null) => binderView(main, projectID, documentID, focus);
  // This view owns every live handler of the page (the tree's, the editor's); drawing it again drops
  // the last drawing's, so each change is fetched once, not once per redraw.
  live.reset();
  const treeArea = el("div", {}, tree(project, documentID, refresh));
  // A document or folder added, moved or renamed elsewhere: the tree is drawn again, the editor left alone.
  // Only a change naming this project or one of its nodes is fetched: a read of a privileged project
  // counts as a use of its session, and another project's changes must not keep it alive.
  live.subscribe(async (change) => {
    const ours = new Set([project.id, ...project.nodes.map((n) => n.id)]);
    if (!change.subjects.some((id) => ours.has(id)) && !(change.compartments || []).includes(project.compartment)) return;
    const fresh = await api.get(`/api/projects/${api.segment(projectID)}`).catch(() => null);
    if (!fresh || JSON.stringify(fresh.nodes) === JSON.stringify(project.nodes)) return;
    project.nodes = fresh.nodes;
    replace(treeArea, tree(project, documentID, refresh));
  });
  const hint = damagedNameHint(project);
  replace(main, el("h1", { text: projectTitle(project) }),
    hint ? el("p", { class: "field-error", text: hint }) : null,
    el("p", { class: "tag", text: `${project.register} · ${project.kind}${project.privileged ? " · privileged, in a session" : ""}${project.view_only ? " · shared with you to view only" : ""}${project.shared_by ? ` · someone else's project, shared by device ${project.shared_by.name} (${project.shared_by.role})` : ""}` }),
    project.session ? sessionBar(project.session, refresh) : null,
    el("div", { class: "layout" },
      el("nav", { class: "binder", "aria-label": `${terms.chapter.plural} and ${terms.scene.plural}` },
        searchForm(project), el("h2", { text: "Binder" }),
        el("p", {}, el("a", { href: `#/outline/${project.id}`, text: "Outline view" })), treeArea,
        project.view_only ? null : addForm(project, refresh)),
      el("div", {}, editorArea, assistantArea, historyArea)));
  document.documentElement.style.setProperty("--accent", project.theme);
  if (focusNode) main.querySelector(`[data-node="${focusNode}"]`)?.focus();
  if (documentID) {
    await editorView(editorArea, project, documentID);
    await historyView(historyArea, project, documentID, refresh);
    await assistantView(assistantArea, project, documentID,
      (branchID) => historyView(historyArea, project, documentID, refresh, branchID)).catch((error) => replace(assistantArea, errorText(error)));
  }
  else replace(editorArea, el("p", { text: `Choose a ${terms.scene.singular.toLowerCase()} in the binder, or add one.` }));
}

// A privileged project's session: its time left and a way to end it now.
function sessionBar(session, refresh) {
  const end = el("button", { class: "danger", text: "End session" });
  end.addEventListener("click", async () => { await api.remove(`/api/sessions/${session.id}`); await refresh(); });
  return el("div", { class: "session-bar" }, sessionCountdown(session, refresh), end);
}

function tree(project, current, refresh) {
  const children = (parent) => project.nodes.filter((n) => (n.parent ?? null) === parent);
  const list = (parent) => {
    const nodes = children(parent);
    if (nodes.length === 0) return null;
    return el("ul", {}, nodes.map((node, index) => el("li", dragAttributes(project, node, refresh),
      node.kind === "scene"
        ? el("a", { href: `#/projects/${project.id}/${node.id}`, "aria-current": node.id === current ? "page" : false, "data-node": node.id,
            onkeydown: onReorderKey(project, node, refresh), text: node.title || "(untitled)" })
        : el("span", { tabindex: 0, "data-node": node.id, onkeydown: onReorderKey(project, node, refresh),
            text: `${node.label}: ${node.title}` }),
      " ",
      el("button", { class: "secondary", "aria-label": `Move ${node.title} up`, disabled: index === 0,
        onclick: () => moveByKey(project, node, "ArrowUp", refresh), text: "↑" }),
      el("button", { class: "secondary", "aria-label": `Move ${node.title} down`, disabled: index === nodes.length - 1,
        onclick: () => moveByKey(project, node, "ArrowDown", refresh), text: "↓" }),
      list(node.id))));
  };
  return list(null) ?? el("p", { text: "Empty." });
}

function addForm(project, refresh) {
  const errors = el("div", { "aria-live": "polite" });
  const form = el("form", {},
    el("h2", { text: "Add" }),
    el("label", { for: "node-title", text: "Title" }), el("input", { id: "node-title", name: "title", required: true }),
    el("label", { for: "node-kind", text: "Kind" }),
    el("select", { id: "node-kind", name: "kind" }, el("option", { value: "scene", text: project.terms.scene.singular }),
      el("option", { value: "chapter", text: project.terms.chapter.singular })),
    errors, el("p", {}, el("button", { type: "submit", text: "Add" })));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const data = new FormData(form);
    try {
      const node = await api.post(`/api/projects/${project.id}/nodes`, { kind: data.get("kind"), title: data.get("title") });
      if (node.kind === "scene") location.hash = `#/projects/${project.id}/${node.id}`;
      else await refresh();
    } catch (error) { replace(errors, errorText(error)); }
  });
  return form;
}

// Search over the project's documents (words, "a phrase", a prefix*), answered from the daemon's
// in-memory index; each hit links to its document.
function searchForm(project) {
  const results = el("div", { "aria-live": "polite" });
  const query = el("input", { id: "search-query", type: "search", size: 18 });
  const form = el("form", { role: "search" }, el("label", { for: "search-query", text: `Search the ${project.terms.project.singular.toLowerCase()}` }),
    query, " ", el("button", { type: "submit", class: "secondary", text: "Search" }), results);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      const answer = await api.get(`/api/projects/${project.id}/search?q=${encodeURIComponent(query.value)}`);
      replace(results, el("p", { text: `${answer.found} found` }), el("ul", { class: "search-results" }, answer.documents.map((hit) =>
        el("li", {}, el("a", { href: `#/projects/${project.id}/${hit.id}`, text: hit.title }), el("br"), hit.snippets.join(" … ")))));
    } catch (error) { replace(results, errorText(error)); }
  });
  return form;
}
