// The reviewer's page: every set of a document side by side (one row per region where
// any set has a span), disagreements highlighted and filterable, adoption into gold,
// gold edits, one-action completion when everyone agrees, publication, agreement.
import { renderAgreement } from "./agreement_view.js";
import { api, config } from "./lib/api.js";
import { $, el, fmt } from "./lib/dom.js";
import { offsetsToServer, spansToView } from "./lib/offsets.js";
import { DocView, loadWorkspace } from "./views/document.js";

const cfg = config();
const IDENTIFIER_TYPES = cfg.identifier_types.map((t) => t.name);
const state = { doc: null, sets: [], units: [], gold: null, view: null, display: "overlay" };

function spanKey(s) {
  return `${s.start}:${s.end}:${s.entity_type}:${s.identifier_type}`;
}

function computeUnits() {
  const all = [];
  for (const set of state.sets) for (const span of set.spans) all.push({ ...span, set });
  all.sort((a, b) => a.start - b.start || a.end - b.end);
  const units = [];
  for (const span of all) {
    const last = units.at(-1);
    if (last && span.start < last.end) {
      last.end = Math.max(last.end, span.end);
      last.spans.push(span);
    } else units.push({ start: span.start, end: span.end, spans: [span] });
  }
  const humans = state.sets.filter((s) => s.kind === "human");
  for (const unit of units) {
    unit.bySet = new Map(state.sets.map((s) => [s.id, unit.spans.filter((x) => x.set.id === s.id)]));
    const versions = new Set(humans.map((h) => unit.bySet.get(h.id).map(spanKey).sort().join("|")));
    unit.disagree = versions.size > 1;
  }
  state.units = units;
}

function chip(span) {
  return el("span", { class: `chip i-${span.identifier_type}`, title: `${span.start}–${span.end}${span.confidence != null ? ` · confidence ${fmt(span.confidence, 2)}` : ""}${span.note ? ` · ${span.note}` : ""}` }, `${span.entity_type} · ${span.identifier_type}`, span.end - span.start !== 0 ? "" : "");
}

function goldCell(unit) {
  const spans = unit.bySet.get(state.gold?.id) || [];
  return el(
    "td",
    { class: "cell-gold" },
    spans.map((span) =>
      el("div", { class: "gold-span" },
        el("span", { class: "muted" }, `${state.doc.text.slice(span.start, span.end)} `),
        el("select", { class: "gold-decision", dataset: { span: span.id }, onchange: (e) => editGold(span, { identifier_type: e.target.value }) }, IDENTIFIER_TYPES.map((t) => el("option", { value: t, selected: t === span.identifier_type }, t))),
        el("button", { class: "small secondary", title: "Remove from gold", onclick: () => deleteGold(span) }, "×"),
      ),
    ),
  );
}

function renderTable() {
  const onlyDisagreements = $("#only-disagreements").checked;
  const columns = state.sets.filter((s) => s.kind !== "gold");
  const table = el("table", { class: "grid" });
  table.append(el("tr", {}, el("th", {}, "Text"), columns.map((s) => el("th", { class: `col-${s.kind}` }, s.name)), el("th", {}, "gold")));
  let shown = 0;
  state.units.forEach((unit, index) => {
    if (onlyDisagreements && !unit.disagree) return;
    shown++;
    const row = el("tr", { class: unit.disagree ? "disagree" : "agree", dataset: { unit: index, start: unit.start, end: unit.end } });
    row.append(el("td", { class: "unit-text" }, el("a", { href: "#", onclick: (e) => { e.preventDefault(); focusUnit(index); } }, state.doc.text.slice(unit.start, unit.end).slice(0, 60))));
    for (const set of columns) {
      const spans = unit.bySet.get(set.id);
      row.append(
        el("td", { class: `cell-${set.kind}`, dataset: { set: set.name } },
          spans.length ? spans.map(chip) : el("span", { class: "muted" }, "—"),
          el("button", { class: "small secondary adopt", title: `Adopt ${set.name}'s version into gold`, onclick: () => adopt(unit, spans) }, "adopt"),
        ),
      );
    }
    row.append(goldCell(unit));
    table.append(row);
  });
  $("#units").replaceChildren(table);
  const disagreements = state.units.filter((u) => u.disagree).length;
  $("#unit-counts").textContent = `${state.units.length} regions, ${disagreements} with disagreement, ${shown} shown`;
  const humans = state.sets.filter((s) => s.kind === "human");
  $("#complete").disabled = disagreements > 0 || humans.length === 0;
  $("#complete").title = disagreements ? "Adjudicate the disagreements first" : "Copy the unanimous annotation into gold and publish";
}

function renderDoc() {
  const choice = $("#display").value;
  const spans = [];
  if (choice === "disagreements") {
    state.units.filter((u) => u.disagree).forEach((u, i) => spans.push({ key: `d${i}`, start: u.start, end: u.end, layer: "dis" }));
  } else {
    const set = state.sets.find((s) => String(s.id) === choice);
    if (set) for (const span of set.spans) spans.push({ ...span, key: `s${span.id}`, layer: set.kind === "machine" ? "machine" : set.kind === "gold" ? "gold" : "human" });
  }
  state.view.setSpans(spans);
  state.view.render();
}

function focusUnit(index) {
  const unit = state.units[index];
  const [node, offset] = state.view.positionOf(unit.start);
  const target = node.nodeType === 3 ? node.parentElement : node;
  target.scrollIntoView({ block: "center" });
  for (const row of document.querySelectorAll("#units tr.current")) row.classList.remove("current");
  document.querySelector(`#units tr[data-unit="${index}"]`)?.classList.add("current");
  void offset;
}

function setMessage(text, kind = "") {
  $("#message").textContent = text;
  $("#message").className = kind;
}

async function adopt(unit, spans) {
  try {
    const gold = await api("POST", `/api/documents/${cfg.document_id}/gold/adopt/`, { span_ids: spans.map((s) => s.id), ...offsetsToServer({ start: unit.start, end: unit.end }, state.offsets) });
    replaceGold(gold);
    setMessage(`Adopted into gold (${spans.length} span${spans.length === 1 ? "" : "s"}).`, "ok");
  } catch (error) {
    setMessage(error.message, "error");
  }
}

async function editGold(span, changes) {
  try {
    await api("PATCH", `/api/spans/${span.id}/update/`, { version: span.version, ...offsetsToServer(changes, state.offsets) });
    await reload();
    setMessage("Gold span changed.", "ok");
  } catch (error) {
    setMessage(error.status === 409 ? "Someone changed this gold span meanwhile; reloaded." : error.message, "error");
    await reload();
  }
}

async function deleteGold(span) {
  try {
    await api("DELETE", `/api/spans/${span.id}/delete/?version=${span.version}`);
    await reload();
  } catch (error) {
    setMessage(error.message, "error");
  }
}

function replaceGold(gold) {
  spansToView({ sets: [gold] }, state.offsets);
  const entry = { id: gold.id, kind: "gold", name: "gold", status: gold.status, spans: gold.spans, published_at: gold.published_at };
  state.sets = state.sets.filter((s) => s.kind !== "gold").concat([entry]);
  state.gold = entry;
  refresh();
}

function refresh() {
  computeUnits();
  renderTable();
  renderDisplayOptions();
  renderDoc();
  const published = Boolean(state.gold?.published_at);
  $("#gold-status").textContent = state.gold ? `${state.gold.spans.length} spans${published ? ", published" : ", not published"}` : "none yet";
  // The state itself, for whoever waits for it (the text "not published" holds "published").
  $("#gold-status").dataset.published = String(published);
  $("#publish").disabled = !state.gold;
}

function renderDisplayOptions() {
  const select = $("#display");
  const current = select.value;
  select.replaceChildren(
    el("option", { value: "disagreements" }, "Disagreement regions"),
    state.sets.map((s) => el("option", { value: String(s.id) }, `${s.kind === "gold" ? "Gold" : s.name}`)),
  );
  select.value = [...select.options].some((o) => o.value === current) ? current : (state.gold ? String(state.gold.id) : "disagreements");
}

async function load() {
  const { doc, offsets } = await loadWorkspace(cfg.document_id);
  state.offsets = offsets;
  state.doc = doc;
  state.sets = doc.sets;
  state.gold = doc.sets.find((s) => s.kind === "gold") || null;
}

async function reload() {
  await load();
  refresh();
}

async function loadAgreement() {
  try {
    const summary = await api("GET", `/api/documents/${cfg.document_id}/agreement/`);
    renderAgreement($("#agreement"), summary);
  } catch (error) {
    $("#agreement").textContent = error.message;
  }
}

async function main() {
  await load();
  $("#target-person").textContent = state.doc.target_person || "(not given)";
  state.view = new DocView($("#doc"), state.doc.text);
  $("#only-disagreements").addEventListener("change", renderTable);
  $("#display").addEventListener("change", renderDoc);
  $("#complete").addEventListener("click", async () => {
    try {
      const gold = await api("POST", `/api/documents/${cfg.document_id}/gold/complete/`, { publish: true });
      replaceGold(gold);
      setMessage("Everyone agreed: gold set written and published.", "ok");
      loadAgreement();
    } catch (error) {
      setMessage(error.message, "error");
    }
  });
  $("#publish").addEventListener("click", async () => {
    try {
      const gold = await api("POST", `/api/documents/${cfg.document_id}/gold/publish/`);
      replaceGold(gold);
      setMessage("Gold published: annotators can now see every set.", "ok");
      loadAgreement();
    } catch (error) {
      setMessage(error.message, "error");
    }
  });
  $("#refresh-agreement").addEventListener("click", loadAgreement);
  refresh();
  await loadAgreement();
  document.body.dataset.ready = "1";
}

main().catch((error) => setMessage(`Could not load: ${error.message}`, "error"));
