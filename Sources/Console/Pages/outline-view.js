// The outline of a project: every folder and document in reading order, indented by depth, each
// title editable in place (the library counts depth from 1 at the top level), each item moved by keyboard or drag as in the binder (reorder.js). It is
// for restructuring a long manuscript or a brief without opening any document.
import * as api from "./api.js";
import { el, replace, errorText } from "./dom.js";
import { projectTitle } from "./project-title.js";
import { onReorderKey, dragAttributes } from "./reorder.js";
import * as live from "./live.js";

export async function outlineView(main, projectID, focusNode = null) {
  const project = await api.get(`/api/projects/${api.segment(projectID)}`);
  const terms = project.terms;
  const refresh = (focus = null) => outlineView(main, projectID, focus);
  // This view owns every live handler of the page (the tree's, the editor's); drawing it again drops
  // the last drawing's, so each change is fetched once, not once per redraw.
  live.reset();
  live.subscribe(async () => {
    const fresh = await api.get(`/api/projects/${api.segment(projectID)}`).catch(() => null);
    if (fresh && JSON.stringify(fresh.nodes) !== JSON.stringify(project.nodes) && !main.contains(document.activeElement)) await refresh();
  });
  replace(main, el("h1", { text: `${projectTitle(project)}: outline` }),
    el("p", {}, el("a", { href: `#/projects/${project.id}`, text: "Back to the binder" })),
    el("p", { class: "tag", text: `Alt+Up and Alt+Down move an item among its neighbours, Alt+Right into the ${terms.chapter.singular.toLowerCase()} above it, Alt+Left out of its ${terms.chapter.singular.toLowerCase()}; or drag it.` }),
    project.nodes.length === 0 ? el("p", { text: "Empty." }) :
      el("table", { class: "outline" },
        el("thead", {}, el("tr", {}, ["Title", "Kind", ""].map((h) => el("th", { scope: "col", text: h })))),
        el("tbody", {}, project.nodes.map((node) => row(project, node, refresh)))));
  document.documentElement.style.setProperty("--accent", project.theme);
  if (focusNode) main.querySelector(`[data-node="${focusNode}"]`)?.focus();
}

function row(project, node, refresh) {
  const title = el("input", { value: node.title, "aria-label": `Title of ${node.label} ${node.title}`, "data-node": node.id,
    class: `depth-${Math.min(node.depth - 1, 6)}`, onkeydown: onReorderKey(project, node, refresh) });
  const errors = el("span", { "aria-live": "polite" });
  title.addEventListener("change", async () => {
    try {
      await api.post(`/api/projects/${project.id}/nodes/${node.id}/rename`, { title: title.value });
      node.title = title.value;
      replace(errors);
    } catch (error) { replace(errors, errorText(error)); title.value = node.title; }
  });
  const open = node.kind === "scene" ? el("a", { href: `#/projects/${project.id}/${node.id}`, text: "Open" }) : null;
  return el("tr", dragAttributes(project, node, refresh), el("td", {}, title, errors), el("td", { text: node.label }), el("td", {}, open));
}
