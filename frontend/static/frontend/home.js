// The home page: each project's queue (search, status filter, sort by column; "n"
// opens the next unfinished document) and the form that creates a project.
import { api, config } from "./lib/api.js";
import { $, el } from "./lib/dom.js";

const cfg = config();
const UNFINISHED = new Set(["new", "in_progress"]);

function nextUnfinished() {
  for (const row of document.querySelectorAll("section.project tr[data-document-id]")) {
    if (!row.hidden && UNFINISHED.has(row.dataset.status)) return row.querySelector("a.open-annotate");
  }
  return null;
}

document.addEventListener("keydown", (event) => {
  if (event.target instanceof Element && event.target.closest("input, textarea, select")) return;
  if (event.key === "n" && !event.ctrlKey && !event.metaKey && !event.altKey) {
    const link = nextUnfinished();
    if (link) window.location.assign(link.href);
  }
});

// --- queue: search, filter, sort ---------------------------------------------------------
const SORT_KEYS = {
  doc: (row) => row.querySelector(".doc-id").textContent.trim().toLowerCase(),
  person: (row) => row.querySelector(".person").textContent.trim().toLowerCase(),
  status: (row) => row.querySelector(".status").textContent.trim().toLowerCase(),
  chars: (row) => Number(row.dataset.chars),
};

function setUpQueue(section) {
  const tools = section.querySelector(".queue-tools");
  if (!tools) return;
  const body = section.querySelector("tbody");
  const rows = [...body.querySelectorAll("tr[data-document-id]")];
  const search = tools.querySelector(".queue-search");
  const status = tools.querySelector(".queue-status");
  const labels = new Map(rows.map((r) => [r.dataset.status, r.querySelector(".status").textContent.trim()]));
  status.append(...[...labels].map(([value, label]) => el("option", { value }, label)));

  function filter() {
    const words = search.value.trim().toLowerCase().split(/\s+/).filter(Boolean);
    let shown = 0;
    for (const row of rows) {
      const haystack = `${SORT_KEYS.doc(row)} ${SORT_KEYS.person(row)}`;
      row.hidden = !(words.every((w) => haystack.includes(w)) && (!status.value || row.dataset.status === status.value));
      if (!row.hidden) shown += 1;
    }
    tools.querySelector(".queue-count").textContent = `${shown} of ${rows.length}`;
  }

  // A header click sorts by its column, a second click reverses; the file order is the
  // starting point and breaks ties.
  function sort(th) {
    const dir = th.dataset.dir === "asc" ? "desc" : "asc";
    for (const other of section.querySelectorAll("th.sortable")) delete other.dataset.dir;
    th.dataset.dir = dir;
    const key = SORT_KEYS[th.dataset.sort];
    const sign = dir === "asc" ? 1 : -1;
    rows.sort((a, b) => {
      const x = key(a);
      const y = key(b);
      return (x < y ? -sign : x > y ? sign : 0) || a.dataset.position - b.dataset.position;
    });
    body.append(...rows);
  }

  search.addEventListener("input", filter);
  status.addEventListener("change", filter);
  for (const th of section.querySelectorAll("th.sortable")) th.addEventListener("click", () => sort(th));
  filter();
}

for (const section of document.querySelectorAll("section.project")) setUpQueue(section);

// --- new project --------------------------------------------------------------------------
function setUpProjectForm() {
  const form = $("#project-create-form");
  if (!form) return;
  form.elements.k_anonymity.value = cfg.defaults.k_anonymity;
  form.elements.risk_threshold.value = cfg.defaults.risk_threshold;
  $("#component-choices").replaceChildren(
    ...cfg.recognizer_components.map((name) => el("label", { class: "inline-check" }, el("input", { type: "checkbox", class: "component-check", value: name }), ` ${name}`)),
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const components = [...form.querySelectorAll(".component-check:checked")].map((c) => c.value);
    const body = {
      name: form.elements.name.value,
      description: form.elements.description.value,
      guidelines: form.elements.guidelines.value,
      k_anonymity: Number(form.elements.k_anonymity.value),
      risk_threshold: Number(form.elements.risk_threshold.value),
      privacy_settings: components.length ? { [cfg.recognizer_components_key]: components } : {},
    };
    try {
      const project = await api("POST", "/api/projects/create/", body);
      window.location.assign(`/projects/${project.id}/admin/`);
    } catch (error) {
      const message = $("#project-create-message");
      message.textContent = error.body?.name || error.body?.detail || error.message;
      message.className = "error";
    }
  });
}

setUpProjectForm();
document.body.dataset.ready = "1";
