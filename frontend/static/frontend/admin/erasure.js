// Erasure on the admin page: a document (from the documents table's "erase" buttons)
// or the whole project. Both ask for the object's name typed back and a reason, and
// only then call the API (POST /api/documents/<id>/erase/, /api/projects/<id>/erase/).
import { api } from "../lib/api.js";
import { $, el } from "../lib/dom.js";
import { message } from "./message.js";

const say = (text, kind) => message("#erasure-message", text, kind);

function fieldErrors(error) {
  const b = error.body || {};
  return b.detail || [b.confirm, b.reason].flat().filter(Boolean).join(" ") || error.message;
}

function summary(record) {
  const counts = Object.entries(record.removed).filter(([, n]) => typeof n === "number" && n).map(([k, n]) => `${n} ${k.replaceAll("_", " ")}`);
  const models = record.models_deleted.length || record.models_marked.length
    ? ` Models: ${record.models_deleted.length} deleted, ${record.models_marked.length} marked as trained on erased data.`
    : "";
  return `Erased ${record.label}: ${counts.join(", ") || "nothing else"}.${models}`;
}

// The confirmation step for one document, shown in the erasure card.
export function askEraseDocument(doc, { onErased }) {
  say("");
  const form = el("form", { class: "erase-document", dataset: { document: doc.id } },
    el("p", {}, el("strong", {}, "Erase document "), el("code", {}, doc.external_id), ": its text, every annotation set, span and audit event, its risk assessments and re-identification target go for good; the project's jobs are cancelled; models that learnt from it are deleted or marked."),
    el("label", {}, "Type the document id to confirm ", el("input", { name: "confirm", autocomplete: "off", required: true })),
    el("label", {}, "Reason (kept in the audit record; do not name the person) ", el("textarea", { name: "reason", rows: 2, maxlength: 1000, required: true })),
    el("div", { class: "row" },
      el("button", { type: "submit", class: "danger confirm-erase" }, "Erase document"),
      el("button", { type: "button", class: "secondary", onclick: () => $("#erase-document").replaceChildren() }, "Cancel"),
    ),
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      const record = await api("POST", `/api/documents/${doc.id}/erase/`, { confirm: form.elements.confirm.value, reason: form.elements.reason.value });
      $("#erase-document").replaceChildren();
      say(summary(record), "ok");
      onErased(doc.id);
    } catch (error) {
      say(fieldErrors(error), "error");
    }
  });
  $("#erase-document").replaceChildren(form);
  // The form sits in the erasure card, below the table the button is in.
  form.scrollIntoView({ block: "center" });
  form.elements.confirm.focus();
}

export function setUpErasure(pid, { onErased }) {
  const form = $("#erase-project-form");
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      const record = await api("POST", `/api/projects/${pid}/erase/`, { confirm: form.elements.confirm.value, reason: form.elements.reason.value });
      onErased();
      // The page's project is gone: say what went, then offer the way home.
      document.querySelector(".admin-grid").replaceChildren(
        el("section", { class: "card span2 erased" }, el("p", { class: "ok" }, summary(record)), el("a", { href: "/" }, "Back to your projects")),
      );
    } catch (error) {
      say(fieldErrors(error), "error");
    }
  });
}
