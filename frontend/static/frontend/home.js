// The home page: each project's queue (search, status filter, sort by column; "n"
// opens the next unfinished document) and the form that creates a project.
import { api, config, listAll } from "./lib/api.js";
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

// --- invitations: membership starts only when the invitee accepts -----------------------
function setUpInvitations() {
  for (const item of document.querySelectorAll("#invitations li[data-invitation-id]")) {
    const id = item.dataset.invitationId;
    for (const [selector, action] of [[".invitation-accept", "accept"], [".invitation-decline", "decline"]]) {
      item.querySelector(selector).addEventListener("click", async () => {
        try {
          await api("POST", `/api/invitations/${id}/${action}/`);
          window.location.reload();
        } catch (error) {
          const message = $("#invitation-message");
          message.textContent = error.body?.detail || error.message;
          message.className = "error";
        }
      });
    }
  }
}

// --- API tokens: listed and revoked here (accounts app's API) ---------------------------
const when = (iso) => (iso ? new Date(iso).toLocaleString() : "—");

function tokenState(token) {
  if (token.revoked_at) return "revoked";
  return new Date(token.expires_at) <= new Date() ? "expired" : "active";
}

function tokenMessage(text, kind) {
  const message = $("#token-message");
  message.textContent = text;
  message.className = kind;
}

async function loadTokens() {
  const rows = $("#token-rows");
  const tokens = await listAll("/api/auth/tokens/");
  if (!tokens.length) {
    rows.replaceChildren(el("tr", {}, el("td", { colspan: 7, class: "muted" }, "You have no API tokens.")));
    return;
  }
  rows.replaceChildren(
    ...tokens.map((token) => {
      const state = tokenState(token);
      const revoke = state === "active" ? el("button", { type: "button", class: "token-revoke", onclick: () => revokeToken(token) }, "Revoke") : "";
      return el(
        "tr",
        { dataset: { tokenId: token.id, state } },
        el("td", {}, token.name || "—"),
        el("td", {}, el("code", {}, `${token.prefix}…`)),
        el("td", {}, when(token.created_at)),
        el("td", {}, when(token.expires_at)),
        el("td", {}, when(token.last_used_at)),
        el("td", { class: "token-state" }, state),
        el("td", {}, revoke),
      );
    }),
  );
}

async function revokeToken(token) {
  try {
    await api("POST", `/api/auth/tokens/${token.id}/revoke/`);
    tokenMessage(`Token ${token.prefix}… revoked.`, "ok");
  } catch (error) {
    tokenMessage(error.body?.detail || error.message, "error");
  }
  await loadTokens();
}

function setUpTokens() {
  if (!$("#api-tokens")) return;
  $("#tokens-revoke-all").addEventListener("click", async () => {
    if (!window.confirm("Revoke every API token of yours? Scripts using them stop working.")) return;
    try {
      const answer = await api("POST", "/api/auth/tokens/revoke-all/");
      tokenMessage(`${answer.revoked} token(s) revoked.`, "ok");
    } catch (error) {
      tokenMessage(error.body?.detail || error.message, "error");
    }
    await loadTokens();
  });
  return loadTokens().catch((error) => tokenMessage(error.message, "error"));
}

setUpProjectForm();
setUpInvitations();
await setUpTokens();
document.body.dataset.ready = "1";
