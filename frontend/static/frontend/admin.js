// Project admin: settings and guidelines, members, imports (with the reader's
// validation errors), assignments with an overlap, jobs (start, live progress, log
// tail, cancel, retry); model versions (admin/models.js), knowledge bases and distant
// labelling (admin/knowledge.js), exports (admin/exports.js), the re-identification
// curve (admin/reid.js) and erasure of a document or the project (admin/erasure.js).
import { api, config, listAll } from "./lib/api.js";
import { $, el } from "./lib/dom.js";
import { setUpExport } from "./admin/exports.js";
import { askEraseDocument, setUpErasure } from "./admin/erasure.js";
import { message } from "./admin/message.js";
import { loadKnowledgeBases, setUpKnowledge } from "./admin/knowledge.js";
import { loadModels as loadModelVersions } from "./admin/models.js";
import { loadReidCurve, reidCurveAfterJobs, setUpReid } from "./admin/reid.js";
import { loadRiskCurve } from "./admin/risk.js";

const cfg = config();
const state = { members: [], documents: cfg.documents, pollTimer: null };
const pid = cfg.project_id;

// --- project --------------------------------------------------------------------------
async function loadProject() {
  const p = await api("GET", `/api/projects/${pid}/`);
  const form = $("#project-form");
  for (const name of ["name", "description", "guidelines", "k_anonymity", "risk_threshold"]) form.elements[name].value = p[name];
}

async function saveProject(event) {
  event.preventDefault();
  const form = event.target;
  try {
    await api("PATCH", `/api/projects/${pid}/update/`, {
      name: form.elements.name.value,
      description: form.elements.description.value,
      guidelines: form.elements.guidelines.value,
      k_anonymity: Number(form.elements.k_anonymity.value),
      risk_threshold: Number(form.elements.risk_threshold.value),
    });
    message("#project-message", "Saved.", "ok");
  } catch (error) {
    message("#project-message", error.message, "error");
  }
}

// --- members ----------------------------------------------------------------------------
async function loadMembers() {
  state.members = await listAll(`/api/projects/${pid}/members/`);
  $("#members").replaceChildren(
    el("table", { class: "grid" },
      el("tr", {}, el("th", {}, "User"), el("th", {}, "Role"), el("th", {})),
      state.members.map((m) =>
        el("tr", { dataset: { user: m.user.username } },
          el("td", {}, m.user.username, m.user.is_active ? "" : el("small", { class: "muted" }, " (inactive)")),
          el("td", {}, el("select", { onchange: (e) => setRole(m.user.id, e.target.value) }, cfg.roles.map((r) => el("option", { value: r, selected: r === m.role }, r)))),
          el("td", {}, el("button", { class: "small secondary", onclick: () => removeMember(m.user.id) }, "remove")),
        ),
      ),
    ),
  );
  renderAnnotators();
}

async function setRole(userId, role) {
  try {
    await api("PATCH", `/api/projects/${pid}/members/${userId}/update/`, { role });
    message("#member-message", "Role changed.", "ok");
  } catch (error) {
    message("#member-message", error.message, "error");
  }
  await loadMembers();
}

async function removeMember(userId) {
  try {
    await api("DELETE", `/api/projects/${pid}/members/${userId}/delete/`);
  } catch (error) {
    message("#member-message", error.message, "error");
  }
  await loadMembers();
}

async function addMember(event) {
  event.preventDefault();
  const form = event.target;
  try {
    // An invitation: the user joins when they accept it on their home page. The answer
    // is the same whether the name exists, so it says "if".
    const answer = await api("POST", `/api/projects/${pid}/invitations/`, { username: form.elements.username.value, role: form.elements.role.value });
    form.reset();
    message("#member-message", answer.detail, "ok");
  } catch (error) {
    message("#member-message", error.body?.username || error.message, "error");
  }
  await loadMembers();
}

// --- import -----------------------------------------------------------------------------
async function importFile(event) {
  event.preventDefault();
  const form = event.target;
  const data = new FormData(form);
  data.set("sync", form.elements.background.checked ? "false" : "true");
  data.delete("background");
  const out = $("#import-result");
  out.replaceChildren("Importing…");
  try {
    const result = await api("POST", `/api/projects/${pid}/import/`, undefined, { form: data });
    if (result.kind) {
      out.replaceChildren(el("p", { class: "ok" }, `Import job #${result.id} queued; see Jobs below.`));
      loadJobs();
    } else {
      out.replaceChildren(el("p", { class: "ok" }, `Imported ${result.documents} document(s), ${result.annotation_sets} annotation set(s), ${result.spans} span(s).`));
      const docs = await listAll(`/api/projects/${pid}/documents/`);
      state.documents = docs.map((d) => ({ id: d.id, external_id: d.external_id, status: d.status, assignees: state.documents.find((x) => x.id === d.id)?.assignees || [] }));
      renderDocuments();
      // A TAB file's annotators arrive as (inactive) members: refresh who may be assigned.
      await loadMembers();
    }
  } catch (error) {
    const b = error.body || {};
    out.replaceChildren(
      el("div", { class: "import-errors" },
        el("p", {}, el("strong", {}, "The file was not imported (nothing was written): "), b.problem || b.detail || error.message),
        b.doc_id ? el("p", {}, "Document: ", el("code", { class: "err-doc" }, b.doc_id)) : null,
        b.mention_id ? el("p", {}, "Mention: ", el("code", { class: "err-mention" }, b.mention_id)) : null,
        b.file ? el("p", {}, `File: ${b.file}`) : null,
      ),
    );
  }
}

// --- assignments ---------------------------------------------------------------------------
function renderDocuments() {
  $("#documents").replaceChildren(
    el("table", { class: "grid" },
      el("tr", {}, el("th", {}, el("input", { type: "checkbox", id: "all-docs", onchange: (e) => document.querySelectorAll(".doc-check").forEach((c) => (c.checked = e.target.checked)) })), el("th", {}, "Document"), el("th", {}, "Status"), el("th", {}, "Assigned to"), el("th", {})),
      state.documents.map((d) =>
        el("tr", { dataset: { document: d.id } },
          el("td", {}, el("input", { type: "checkbox", class: "doc-check", value: d.id })),
          el("td", {}, el("a", { href: `/documents/${d.id}/review/` }, d.external_id)),
          el("td", {}, d.status),
          el("td", { class: "assignees" }, d.assignees.join(", ")),
          el("td", {}, el("button", { type: "button", class: "small secondary erase-document", onclick: () => askEraseDocument(d, { onErased: documentErased }) }, "erase…")),
        ),
      ),
    ),
  );
}

// An erasure cancelled the project's jobs and may have deleted or marked models.
function documentErased(documentId) {
  state.documents = state.documents.filter((d) => d.id !== documentId);
  renderDocuments();
  loadJobs();
  loadModels();
}

// The project is gone: stop polling its jobs (a request on the way answers 404).
function projectErased() {
  state.erased = true;
  clearTimeout(state.pollTimer);
}

// Only accounts that can log in are offered: TAB annotators come with an import as
// inactive accounts that own their imported sets but never get new documents.
function renderAnnotators() {
  const annotators = state.members.filter((m) => m.role === "annotator" && m.user.is_active);
  const inactive = state.members.filter((m) => !m.user.is_active).length;
  $("#annotators").replaceChildren(
    ...annotators.map((m) => el("label", { class: "inline-check" }, el("input", { type: "checkbox", class: "annotator-check", value: m.user.id, checked: true }), ` ${m.user.username}`)),
    inactive ? el("span", { class: "muted inactive-note" }, `(${inactive} inactive imported account(s) not offered)`) : "",
  );
  $("#overlap").max = Math.max(1, annotators.length);
}

async function assign(event) {
  event.preventDefault();
  const documentIds = [...document.querySelectorAll(".doc-check:checked")].map((c) => Number(c.value));
  const annotatorIds = [...document.querySelectorAll(".annotator-check:checked")].map((c) => Number(c.value));
  try {
    const created = await api("POST", `/api/projects/${pid}/assignments/create/`, { document_ids: documentIds, annotator_ids: annotatorIds, overlap: Number($("#overlap").value) });
    const names = new Map(state.members.map((m) => [m.user.id, m.user.username]));
    for (const a of created) {
      const doc = state.documents.find((d) => d.id === a.document);
      const name = names.get(a.user);
      if (doc && name && !doc.assignees.includes(name)) doc.assignees = [...doc.assignees, name].sort();
    }
    renderDocuments();
    message("#assign-message", `${created.length} assignment(s).`, "ok");
  } catch (error) {
    const b = error.body || {};
    message("#assign-message", b.detail || JSON.stringify(b), "error");
  }
}

// --- jobs ----------------------------------------------------------------------------------
const ACTIVE = new Set(["queued", "running"]);
const RETRYABLE = new Set(["failed", "cancelled"]);

function jobRow(job) {
  const pct = job.progress_total ? Math.round((100 * job.progress_done) / job.progress_total) : job.status === "succeeded" ? 100 : 0;
  return el("div", { class: "job card", dataset: { job: job.id, status: job.status } },
    el("div", { class: "row" },
      el("strong", {}, `#${job.id} ${job.kind}`),
      el("span", { class: `job-status status-${job.status}` }, job.status),
      el("div", { class: "progress", title: `${job.progress_done} / ${job.progress_total}` }, el("div", { style: `width: ${pct}%` })),
      el("span", { class: "job-pct" }, `${pct}%`),
      job.chunks && job.chunks.total
        ? el("span", { class: "job-chunks muted", title: "the job runs in chunks on every worker of its queue" },
          `${job.chunks.succeeded}/${job.chunks.total} chunks, ${job.chunks.workers} worker${job.chunks.workers === 1 ? "" : "s"}`)
        : null,
      ACTIVE.has(job.status) ? el("button", { class: "small danger", onclick: () => cancel(job.id) }, "cancel") : null,
      RETRYABLE.has(job.status) ? el("button", { class: "small job-retry", onclick: () => retry(job.id) }, "retry") : null,
    ),
    job.error ? el("p", { class: "error" }, job.error.split("\n").at(-2) || job.error) : null,
    el("pre", { class: "job-log" }, job.log_tail.split("\n").slice(-12).join("\n") || "(no log yet)"),
  );
}

async function loadJobs() {
  const page = await api("GET", `/api/jobs/?project=${pid}&limit=10`);
  $("#jobs").replaceChildren(...(page.results.length ? page.results.map(jobRow) : [el("p", { class: "muted" }, "No jobs yet.")]));
  loadKnowledgeBases(pid);
  clearTimeout(state.pollTimer);
  if (state.erased) return;
  if (page.results.some((j) => ACTIVE.has(j.status))) state.pollTimer = setTimeout(() => loadJobs().catch((error) => { if (!state.erased) throw error; }), 1000);
  else if (page.results.some((j) => j.kind === "train_recognizer")) loadModels();
  reidCurveAfterJobs(pid, page.results);
}

async function startJob(kind, params) {
  try {
    await api("POST", `/api/projects/${pid}/jobs/create/`, { kind, params });
    message("#job-message", `${kind} queued.`, "ok");
  } catch (error) {
    message("#job-message", error.message, "error");
  }
  loadJobs();
}

async function cancel(jobId) {
  try {
    await api("POST", `/api/jobs/${jobId}/cancel/`);
  } catch (error) {
    message("#job-message", error.message, "error");
  }
  loadJobs();
}

async function retry(jobId) {
  try {
    await api("POST", `/api/jobs/${jobId}/retry/`);
    message("#job-message", `job #${jobId} queued again.`, "ok");
  } catch (error) {
    message("#job-message", error.message, "error");
  }
  loadJobs();
}

const loadModels = () => loadModelVersions(pid);

async function main() {
  $("#project-form").addEventListener("submit", saveProject);
  $("#member-form").addEventListener("submit", addMember);
  $("#import-form").addEventListener("submit", importFile);
  $("#assign-form").addEventListener("submit", assign);
  $("#start-preannotate").addEventListener("click", () => startJob("preannotate", { skip_existing: !$("#redo-existing").checked }));
  $("#start-train").addEventListener("click", () => startJob("train_recognizer", { max_steps: Number($("#max-steps").value) || undefined, activate: $("#activate-trained").checked }));
  setUpKnowledge(pid, { selectionFunctions: cfg.selection_functions, onJob: loadJobs });
  const riskCurve = () => loadRiskCurve(pid, { threshold: cfg.risk.settings.threshold });
  $("#start-risk").addEventListener("click", () => startJob("risk_assess", cfg.risk.settings));
  $("#refresh-risk-curve").addEventListener("click", riskCurve);
  setUpReid(pid, { onJob: loadJobs });
  setUpErasure(pid, { onErased: projectErased });
  renderDocuments();
  await Promise.all([loadProject(), loadMembers(), loadJobs(), loadModels(), riskCurve(), loadReidCurve(pid)]);
  setUpExport(pid, { styles: cfg.release_styles, members: state.members });
  document.body.dataset.ready = "1";
}

main();
