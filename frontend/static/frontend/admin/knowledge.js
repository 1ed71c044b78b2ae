// Knowledge bases and distant labelling on the admin page: upload a knowledge base
// (indexed by a background job), then label the documents for k-anonymity against it.
import { api, listAll } from "../lib/api.js";
import { message } from "./message.js";
import { $, el } from "../lib/dom.js";

const say = (text, kind) => message("#kb-message", text, kind);

export async function loadKnowledgeBases(pid) {
  const bases = await listAll(`/api/knowledge-bases/?project=${pid}`);
  $("#knowledge-bases").replaceChildren(
    bases.length
      ? el("table", { class: "grid" },
          el("tr", {}, el("th", {}, "Knowledge base"), el("th", {}, "Status"), el("th", {}, "People"), el("th", {}, "Terms")),
          bases.map((kb) => el("tr", { dataset: { kb: kb.id, status: kb.status } }, el("td", {}, kb.name), el("td", { class: "kb-status" }, kb.status), el("td", {}, kb.n_persons), el("td", {}, kb.n_terms))),
        )
      : el("p", { class: "muted" }, "No knowledge base yet."),
  );
  const ready = bases.filter((kb) => kb.status === "ready");
  const select = $("#distant-form").elements.knowledge_base;
  const chosen = select.value;
  select.replaceChildren(...ready.map((kb) => el("option", { value: kb.id, selected: String(kb.id) === chosen }, kb.name)));
  $("#distant-form").querySelector("button").disabled = !ready.length;
  return bases;
}

async function upload(pid, event, onJob) {
  event.preventDefault();
  const form = event.target;
  const data = new FormData(form);
  if (!data.get("max_df")) data.delete("max_df");
  try {
    const result = await api("POST", `/api/projects/${pid}/knowledge-bases/upload/`, undefined, { form: data });
    say(`Knowledge base "${result.knowledge_base.name}" is being indexed (job #${result.job.id}).`, "ok");
    form.reset();
  } catch (error) {
    say(error.body?.file || error.body?.name || error.message, "error");
  }
  await loadKnowledgeBases(pid);
  onJob();
}

async function startDistant(pid, event, onJob) {
  event.preventDefault();
  const form = event.target;
  const body = {
    knowledge_base: Number(form.elements.knowledge_base.value),
    max_arity: Number(form.elements.max_arity.value),
    selection: form.elements.selection.value,
  };
  if (form.elements.k.value) body.k = Number(form.elements.k.value);
  try {
    const job = await api("POST", `/api/projects/${pid}/distant-label/`, body);
    say(`Distant labelling queued (job #${job.id}).`, "ok");
  } catch (error) {
    say(error.body?.knowledge_base || error.message, "error");
  }
  onJob();
}

export function setUpKnowledge(pid, { selectionFunctions, onJob }) {
  const distant = $("#distant-form");
  distant.elements.selection.replaceChildren(...selectionFunctions.map((s) => el("option", { value: s }, s)));
  $("#kb-form").addEventListener("submit", (e) => upload(pid, e, onJob));
  distant.addEventListener("submit", (e) => startDistant(pid, e, onJob));
}
