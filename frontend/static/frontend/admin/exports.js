// Export on the admin page: TAB JSON, TAB's masks or the released texts in a style,
// downloaded as a file (the export API answers with an attachment).
import { $, el } from "../lib/dom.js";

export function exportUrl(pid, form) {
  const format = form.elements.format.value;
  const params = new URLSearchParams({ format });
  if (format === "tab") {
    if (form.elements.include_machine.checked) params.set("include_machine", "true");
    if (form.elements.include_gold.checked) params.set("include_gold", "true");
  } else {
    params.set("source", form.elements.source.value);
    if (format === "text") params.set("style", form.elements.style.value);
  }
  return `/api/projects/${pid}/export/?${params}`;
}

// Which fields apply to the chosen format, and the link's address and file name.
function refresh(pid, form) {
  const format = form.elements.format.value;
  for (const node of form.querySelectorAll("[data-formats]")) node.hidden = !node.dataset.formats.split(" ").includes(format);
  const link = $("#export-download");
  link.href = exportUrl(pid, form);
  link.download = `project-${pid}-${format}.json`;
}

export function setUpExport(pid, { styles, members }) {
  const form = $("#export-form");
  form.elements.style.replaceChildren(...styles.map((s) => el("option", { value: s }, s)));
  const sources = ["auto", "gold", ...members.filter((m) => m.role === "annotator").map((m) => `annotator:${m.user.username}`)];
  form.elements.source.replaceChildren(...sources.map((s) => el("option", { value: s }, s)));
  form.addEventListener("change", () => refresh(pid, form));
  refresh(pid, form);
}
