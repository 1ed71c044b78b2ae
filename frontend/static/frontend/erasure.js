// Staff's erasure page: erase a user's data after typing the username back and giving a
// reason (POST /api/users/<id>/erase/), and the erasure audit records (GET /api/erasures/).
import { api } from "./lib/api.js";
import { $, el } from "./lib/dom.js";

const state = { next: "/api/erasures/?limit=20" };

function say(text, kind = "") {
  const node = $("#erasure-message");
  node.textContent = text;
  node.className = kind;
}

function counts(removed) {
  return Object.entries(removed)
    .map(([k, v]) => [k, Array.isArray(v) ? (v.length ? v.map((id) => `#${id}`).join(" ") : "") : v])
    .filter(([, v]) => v)
    .map(([k, v]) => `${k.replaceAll("_", " ")}: ${v}`)
    .join(", ");
}

function recordRow(r) {
  const models = [r.models_deleted.length ? `deleted ${r.models_deleted.map((id) => `#${id}`).join(" ")}` : "", r.models_marked.length ? `marked ${r.models_marked.map((id) => `#${id}`).join(" ")}` : ""].filter(Boolean).join("; ");
  const files = !r.files_scheduled ? "none" : r.files_removed_at ? `${r.files_removed}/${r.files_scheduled} removed${r.files_failed ? `, ${r.files_failed} failed` : ""}` : `${r.files_scheduled} pending`;
  return el("tr", { dataset: { erasure: r.id, kind: r.kind } },
    el("td", {}, new Date(r.created_at).toLocaleString()),
    el("td", {}, r.label),
    el("td", {}, r.actor || "(erased account)"),
    el("td", {}, r.reason),
    el("td", { class: "muted" }, counts(r.removed)),
    el("td", { class: "muted" }, models || "none"),
    el("td", { class: "muted" }, files),
  );
}

async function loadRecords({ reset = false } = {}) {
  if (reset) {
    state.next = "/api/erasures/?limit=20";
    $("#erasures").replaceChildren(
      el("table", { class: "grid" }, el("tbody", {}, el("tr", {}, ["When", "What", "By", "Reason", "Removed", "Models", "Files"].map((h) => el("th", {}, h))))),
    );
  }
  if (!state.next) return;
  const page = await api("GET", state.next);
  $("#erasures tbody").append(...page.results.map(recordRow));
  if (!page.count) $("#erasures").append(el("p", { class: "muted" }, "No erasures yet."));
  state.next = page.next;
  $("#more-erasures").hidden = !state.next;
}

function askEraseUser(row) {
  say("");
  const username = row.dataset.username;
  const form = el("form", { class: "erase-user-form", dataset: { user: row.dataset.user } },
    el("p", {}, el("strong", {}, "Erase the data of "), el("code", {}, username), ". This cannot be undone."),
    el("label", {}, "Type the username to confirm ", el("input", { name: "confirm", autocomplete: "off", required: true })),
    el("label", {}, "Reason (kept in the audit record) ", el("textarea", { name: "reason", rows: 2, maxlength: 1000, required: true })),
    el("div", { class: "row" },
      el("button", { type: "submit", class: "danger confirm-erase" }, "Erase user data"),
      el("button", { type: "button", class: "secondary", onclick: () => $("#erase-user").replaceChildren() }, "Cancel"),
    ),
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      const record = await api("POST", `/api/users/${row.dataset.user}/erase/`, { confirm: form.elements.confirm.value, reason: form.elements.reason.value });
      $("#erase-user").replaceChildren();
      row.remove();
      say(`Erased the ${record.label}: ${counts(record.removed) || "nothing else"}.`, "ok");
      await loadRecords({ reset: true });
    } catch (error) {
      const b = error.body || {};
      say(b.detail || [b.confirm, b.reason].flat().filter(Boolean).join(" ") || error.message, "error");
    }
  });
  $("#erase-user").replaceChildren(form);
  form.elements.confirm.focus();
}

async function main() {
  for (const button of document.querySelectorAll("#users .erase-user")) {
    button.addEventListener("click", () => askEraseUser(button.closest("tr")));
  }
  $("#more-erasures").addEventListener("click", () => loadRecords());
  await loadRecords({ reset: true });
  document.body.dataset.ready = "1";
}

main();
