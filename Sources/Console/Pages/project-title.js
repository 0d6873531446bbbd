// What a project is called on the page: its name; or, when the API sends none, why: a privileged
// project whose session is not open, or a project whose sealed name does not open (`name_damaged`,
// reviewer15's R15-8), shown by its id so its documents stay reachable and the owner can rename it.
export function projectTitle(project) {
  if (project.name !== null && project.name !== undefined) return project.name;
  if (project.name_damaged) return `Project ${project.id} (name damaged)`;
  return `Privileged ${project.terms.project.singular} (locked)`;
}

// What the owner can do about a damaged name (nothing of the project is said but its id).
export function damagedNameHint(project) {
  if (!project.name_damaged) return null;
  return `Its name does not open here (${project.name_damaged}); its documents are untouched. `
    + `Give it a name again with: vaultctl project rename ${project.id} NEW-NAME`;
}
