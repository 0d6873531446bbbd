// The projects, each in its register's vocabulary and theme colour, and a form to create one from
// a register's template (a SOAP note, a legal memo, a novel).
import * as api from "./api.js";
import { el, replace, errorText } from "./dom.js";
import { projectTitle, damagedNameHint } from "./project-title.js";

export async function projectsView(main) {
  const [projects, registers] = await Promise.all([api.get("/api/projects"), api.get("/api/registers")]);
  replace(main,
    el("h1", { text: "Projects" }),
    projects.length === 0 ? el("p", { text: "No projects yet: create the first one below." }) : null,
    el("ul", { class: "cards" }, projects.map(card)),
    createForm(registers));
}

function card(project) {
  const hint = damagedNameHint(project);
  const item = el("li", { class: "card" },
    el("a", { href: `#/projects/${project.id}`, text: projectTitle(project) }),
    hint ? el("p", { class: "field-error", text: hint }) : null,
    el("p", { class: "tag", text: `${project.register} · ${project.kind}${project.privileged ? " · privileged" : ""}${project.view_only ? " · view only" : ""}${project.shared_by ? ` · someone else's, shared by device ${project.shared_by.name} (${project.shared_by.role})` : ""}` }));
  item.style.setProperty("--theme", project.theme);
  return item;
}

function createForm(registers) {
  const register = el("select", { id: "new-register", name: "register" },
    registers.map((r) => el("option", { value: r.id, text: r.id })));
  const template = el("select", { id: "new-template", name: "template" });
  const purposeField = el("div", {},
    el("label", { for: "new-purpose", text: "Purpose of this session (privileged register)" }),
    el("input", { id: "new-purpose", name: "purpose", size: 50 }));
  const showTemplates = () => {
    const chosen = registers.find((r) => r.id === register.value);
    replace(template, el("option", { value: "", text: "No template" }),
      chosen.templates.map((t) => el("option", { value: t.id, text: t.name })));
    purposeField.hidden = !chosen.privileged;
  };
  register.addEventListener("change", showTemplates);
  showTemplates();
  const errors = el("div", { "aria-live": "polite" });
  const form = el("form", { "aria-labelledby": "create-heading" },
    el("h2", { id: "create-heading", text: "Create a project" }),
    el("label", { for: "new-name", text: "Name" }), el("input", { id: "new-name", name: "name", required: true, size: 40 }),
    el("label", { for: "new-register", text: "Register" }), register,
    el("label", { for: "new-kind", text: "Kind" }),
    el("select", { id: "new-kind", name: "kind" }, el("option", { value: "document", text: "Document-shaped (block editor)" }),
      el("option", { value: "long-form", text: "Long-form (single text view)" })),
    el("label", { for: "new-template", text: "Start from a template" }), template,
    purposeField, errors,
    el("p", {}, el("button", { type: "submit", text: "Create" })));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const data = new FormData(form);
    const body = { name: data.get("name"), register: data.get("register"), kind: data.get("kind") };
    if (data.get("template")) body.template = data.get("template");
    if (!purposeField.hidden && data.get("purpose")) body.purpose = data.get("purpose");
    try {
      const project = await api.post("/api/projects", body);
      location.hash = `#/projects/${project.id}` + (project.document ? `/${project.document}` : "");
    } catch (error) {
      replace(errors, errorText(error));
    }
  });
  return form;
}
