// The reviewer's page: every set of a document side by side (one row per region where
// any set has a span), disagreements highlighted and filterable, any version shown in
// the text, gold edited in place (keys as in the editor), adoption of one region or of
// a whole set into gold (asked first when gold holds spans: it replaces them all), the
// count of regions gold has not decided, publication (with a confirmation while regions
// are undecided or annotators still work; never past a gold change the server did not
// confirm) and agreement.
//
// Only annotator sets that were handed in count; "Show in-progress sets" adds the
// others (the server counts the same way, annotation.selectors.agreement). This page
// never creates an annotator set.
//
// Speed: the text is rendered once on load (one DocView render of one version); gold
// edits restyle or re-render only the blocks they touch.

import { renderAgreement } from "./agreement_view.js";
import { api, config } from "./lib/api.js";
import { $, debounce, el } from "./lib/dom.js";
import { offsetsToServer, spansToView } from "./lib/offsets.js";
import { tokenize } from "./lib/tokens.js";
import { GoldEditor } from "./review/gold.js";
import { ReidVersions } from "./review/reid.js";
import { UnitTable } from "./review/table.js";
import { computeUnits, markUnresolved, shownSets } from "./review/units.js";
import { DocView, loadWorkspace } from "./views/document.js";

const cfg = config();
const IDENTIFIER_TYPES = cfg.identifier_types.map((t) => t.name);
const ENTITY_TYPES = cfg.entity_types.map((t) => t.name);
const state = { doc: null, offsets: null, sets: [], units: [], regions: [], view: null, editor: null, table: null };

const gold = () => state.sets.find((s) => s.kind === "gold") || null;
const showInProgress = () => $("#show-in-progress").checked;

function setMessage(text, kind = "") {
  $("#message").textContent = text;
  $("#message").className = kind;
}

// --- the text -------------------------------------------------------------------------

function layerOf(set) {
  return set.kind === "machine" ? "machine" : set.kind === "gold" ? "gold" : "human";
}

function displaySpans() {
  const choice = $("#display").value;
  if (choice === "disagreements") {
    return state.units.filter((u) => u.disagree).map((u, i) => ({ key: `d${i}`, start: u.start, end: u.end, layer: "dis" }));
  }
  const set = choice === "gold" ? gold() : state.sets.find((s) => String(s.id) === choice);
  if (!set) return [];
  const layer = layerOf(set);
  // Gold spans are the editor's own objects, so a gold edit restyles them in place.
  return set.spans.map((span) => Object.assign(span, { key: `${layer[0]}${span.id}`, layer }));
}

function renderDoc() {
  state.view.setSpans(displaySpans());
  state.view.render();
  markSelected();
  $("#doc").dataset.display = $("#display").value;
  $("#doc").classList.toggle("gold-editing", $("#display").value === "gold");
}

function markSelected(old) {
  if (old) for (const seg of state.view.elements(`g${old}`)) seg.classList.remove("sel");
  const id = state.editor.selected;
  if (id !== null) for (const seg of state.view.elements(`g${id}`)) seg.classList.add("sel");
}

function renderDisplayOptions() {
  const select = $("#display");
  const current = select.value;
  const versions = shownSets(state.sets, showInProgress()).filter((s) => s.kind !== "gold");
  select.replaceChildren(
    el("option", { value: "disagreements" }, "Disagreement regions"),
    el("option", { value: "gold" }, gold() ? "Gold (edit)" : "Gold (empty, edit)"),
    ...versions.map((s) => el("option", { value: String(s.id) }, `${s.name}${s.kind === "machine" ? " (machine)" : ""}${s.kind === "human" && s.status === "in_progress" ? " (in progress)" : ""}`)),
  );
  select.value = [...select.options].some((o) => o.value === current) ? current : gold() ? "gold" : "disagreements";
  const adoptable = $("#adopt-all-source");
  const chosen = adoptable.value;
  adoptable.replaceChildren(...versions.map((s) => el("option", { value: String(s.id) }, s.name)));
  if ([...adoptable.options].some((o) => o.value === chosen)) adoptable.value = chosen;
  $("#adopt-all").disabled = !versions.length;
}

function focusUnit(unit, index) {
  const [node] = state.view.positionOf(unit.start);
  (node.nodeType === 3 ? node.parentElement : node).scrollIntoView({ block: "center" });
  state.table.markCurrent(index);
}

// --- the table and the counters -----------------------------------------------------------

function renderTable() {
  const sets = shownSets(state.sets, showInProgress());
  state.units = computeUnits(sets);
  markUnresolved(state.units, state.regions);
  const shown = state.table.render({
    units: state.units,
    columns: sets.filter((s) => s.kind !== "gold"),
    gold: gold(),
    text: state.doc.text,
    identifierTypes: IDENTIFIER_TYPES,
    onlyDisagreements: $("#only-disagreements").checked,
  });
  const disagreements = state.units.filter((u) => u.disagree).length;
  $("#unit-counts").textContent = `${state.units.length} regions, ${disagreements} with disagreement, ${shown} shown`;
  const humans = state.sets.filter((s) => s.kind === "human");
  const counted = shownSets(humans, false);
  const hidden = humans.length - counted.length;
  $("#in-progress-note").textContent = hidden ? `${hidden} set(s) still in progress ${showInProgress() ? "shown, not counted by the server" : "not counted"}` : "";
  $("#complete").disabled = disagreements > 0 || counted.length === 0;
  $("#complete").title = disagreements ? "Adjudicate the disagreements first" : "Copy the unanimous annotation into gold and publish";
}

function renderGoldStatus() {
  const g = gold();
  const published = Boolean(g?.published_at);
  $("#gold-status").textContent = g ? `${g.spans.length} spans${published ? ", published" : ", not published"}` : "none yet";
  // The state itself, for whoever waits for it (the text "not published" holds "published").
  $("#gold-status").dataset.published = String(published);
  $("#publish").disabled = !g;
}

const regionsRequest = () => api("GET", `/api/documents/${cfg.document_id}/gold/regions/`);

// The server's count of the regions gold has not decided (annotation.selectors.agreement).
function applyRegions(regions) {
  state.regions = regions.unresolved.map((r) => ({ start: state.offsets.toView(r.start), end: state.offsets.toView(r.end) }));
  const counter = $("#unresolved");
  counter.textContent = `${state.regions.length} of ${regions.total} regions undecided in gold`;
  counter.dataset.count = String(state.regions.length);
  counter.className = state.regions.length ? "badge warn" : "badge ok";
  markUnresolved(state.units, state.regions);
  for (const row of document.querySelectorAll("#units tr[data-unit]")) row.classList.toggle("unresolved", state.units[+row.dataset.unit].unresolved);
}

// The server's count of undecided regions, for gold once the changes sent so far are
// saved; an answer that a later request has overtaken is dropped, so a slow old count
// never replaces a newer one.
// (data-answers counts the answers, used or dropped, for tests that wait for one.)
let regionsAsked = 0;
async function loadRegions() {
  const asked = ++regionsAsked;
  await state.editor.settled();
  const counter = $("#unresolved");
  try {
    const regions = await regionsRequest();
    if (asked === regionsAsked) applyRegions(regions);
  } catch (error) {
    if (asked === regionsAsked) throw error; // an overtaken failure is no news either
  } finally {
    counter.dataset.answers = String(Number(counter.dataset.answers || 0) + 1);
  }
}

const refreshAfterEdit = debounce(() => {
  renderTable();
  renderGoldStatus();
  loadRegions().catch((error) => setMessage(error.message, "error"));
}, 250);

// --- gold ---------------------------------------------------------------------------------

function goldEntry(set) {
  spansToView({ sets: [set] }, state.offsets);
  return { id: set.id, kind: "gold", name: "gold", status: set.status, published_at: set.published_at, spans: set.spans };
}

function replaceGold(set) {
  state.editor.setGold(goldEntry(set));
}

function renderGoldPanel() {
  const span = state.editor.span(state.editor.selected);
  const panel = $("#gold-panel");
  if (!span) {
    panel.replaceChildren(el("p", { class: "muted" }, "Show gold in the text to edit it: click a span to select it, select text to add one."));
    return;
  }
  const choose = (field, options) =>
    el("select", { id: `gold-${field}`, onchange: (e) => state.editor.change(span.id, { [field]: e.target.value }) }, options.map((t) => el("option", { value: t, selected: t === span[field] }, t)));
  panel.replaceChildren(
    el("strong", {}, `“${state.doc.text.slice(span.start, span.end)}” `),
    el("span", { class: "muted" }, `${span.start}–${span.end} `),
    el("label", {}, "Type ", choose("entity_type", ENTITY_TYPES)),
    el("label", {}, "Decision ", choose("identifier_type", IDENTIFIER_TYPES)),
    el("button", { class: "small danger", onclick: () => state.editor.remove(span.id) }, "Remove (Del)"),
  );
}

function onGoldChange({ span, removed, oldExtent, structural }) {
  if ($("#display").value === "gold") {
    const key = `g${(span || removed).id}`;
    if (span) Object.assign(span, { key, layer: "gold" });
    if (structural) state.view.spanChanged(key, oldExtent, span);
    else state.view.restyle(key);
    markSelected();
  }
  renderGoldPanel();
  refreshAfterEdit();
}

function setupTextEditing() {
  const container = $("#doc");
  container.addEventListener("mouseup", () => {
    if ($("#display").value !== "gold") return;
    const selection = window.getSelection();
    if (!selection || selection.isCollapsed || !selection.rangeCount) return;
    const range = selection.getRangeAt(0);
    if (!container.contains(range.commonAncestorContainer)) return;
    const a = state.view.offsetOf(range.startContainer, range.startOffset);
    const b = state.view.offsetOf(range.endContainer, range.endOffset);
    if (a === null || b === null || a === b) return;
    selection.removeAllRanges();
    state.editor.create(Math.min(a, b), Math.max(a, b));
  });
  container.addEventListener("click", (event) => {
    const seg = event.target.closest(".seg");
    if ($("#display").value !== "gold" || !seg || !window.getSelection().isCollapsed) return;
    const ids = seg.dataset.k.split(" ").map((k) => +k.slice(1));
    const at = ids.indexOf(state.editor.selected);
    state.editor.select(ids[(at + 1) % ids.length]);
  });
  document.addEventListener("keydown", (event) => {
    if (state.editor.handleKey(event)) event.preventDefault();
  });
}

// --- actions ------------------------------------------------------------------------------

async function act(work, done) {
  try {
    await state.editor.settled();
    await work();
    if (done) setMessage(done, "ok");
  } catch (error) {
    setMessage(error.message, "error");
  }
}

// The editor holds the gold set (it may create it); the page's list of sets follows.
function afterGoldReplaced() {
  const entry = state.editor.gold;
  state.sets = state.sets.filter((s) => s.kind !== "gold").concat(entry ? [entry] : []);
  renderDisplayOptions();
  if ($("#display").value === "gold") renderDoc();
  renderGoldPanel();
  refreshAfterEdit();
}

// Adopting a whole set and completing replace every gold decision: never without
// asking while gold holds any. False when the reviewer said no.
function replacingGoldConfirmed(replacement) {
  const replaced = gold()?.spans.length || 0;
  if (!replaced || window.confirm(`Replace all ${replaced} gold span${replaced === 1 ? "" : "s"} with ${replacement}? Gold's own decisions are lost.`)) return true;
  setMessage("Gold left as it was.");
  return false;
}

function adopt(unit, setId) {
  const spans = unit.bySet.get(setId) || [];
  return act(async () => {
    const body = { span_ids: spans.map((s) => s.id), ...offsetsToServer({ start: unit.start, end: unit.end }, state.offsets) };
    replaceGold(await api("POST", `/api/documents/${cfg.document_id}/gold/adopt/`, body));
  }, `Adopted into gold (${spans.length} span${spans.length === 1 ? "" : "s"}).`);
}

function adoptAll() {
  const id = +$("#adopt-all-source").value;
  const name = state.sets.find((s) => s.id === id)?.name;
  if (!replacingGoldConfirmed(`${name}'s version of every region`)) return Promise.resolve();
  return act(async () => {
    replaceGold(await api("POST", `/api/documents/${cfg.document_id}/gold/adopt-set/`, { annotation_set_id: id }));
  }, `Gold is now ${name}'s version of every region.`);
}

// The annotators whose sets in progress hold spans, as the publish refusal lists them
// ({annotator, spans} each; a bare count or names also do): "2 annotators still
// working (carol: 3 spans, dan: 1 span)".
function inProgressText(inProgress) {
  const list = Array.isArray(inProgress) ? inProgress : [];
  const count = Array.isArray(inProgress) ? list.length : Number(inProgress) || 0;
  if (!count) return "";
  const named = (x) => {
    if (typeof x !== "object" || x === null) return String(x);
    const spans = Number.isInteger(x.spans) ? `: ${x.spans} span${x.spans === 1 ? "" : "s"}` : "";
    return `${x.annotator || x.name || "?"}${spans}`;
  };
  const who = list.length ? ` (${list.map(named).join(", ")})` : "";
  return `${count} annotator${count === 1 ? "" : "s"} still working${who}: their marks are not handed in.`;
}

async function publish(force = false) {
  if (state.editor.saving) setMessage("Waiting for the gold changes to be saved before publishing…", "saving");
  // Never publish past a gold change the server did not confirm: the reviewer sees
  // gold as reloaded from the server first.
  const failed = await state.editor.saved();
  if (failed) {
    setMessage(`Not published, because a gold change failed: ${failed} Check gold as the server holds it, then publish again.`, "error");
    return;
  }
  try {
    replaceGold(await api("POST", `/api/documents/${cfg.document_id}/gold/publish/`, { force }));
    setMessage("Gold published: annotators can now see every set.", "ok");
    loadAgreement();
  } catch (error) {
    const working = error.status === 400 ? inProgressText(error.body.in_progress) : "";
    if (error.status === 400 && (error.body.unresolved || working)) {
      const undecided = error.body.unresolved ? `${error.body.unresolved} of ${error.body.total} regions are not decided in gold.` : "";
      $("#publish-warning").textContent = [undecided, working, "Publish anyway? Annotators will see gold as it is."].filter(Boolean).join(" ");
      $("#publish-confirm").showModal();
    } else setMessage(error.message, "error");
  }
}

function applyWorkspace({ doc, offsets }) {
  state.offsets = offsets;
  state.doc = doc;
  state.sets = doc.sets;
  const g = gold();
  if (g) g.name = "gold";
}

async function load() {
  applyWorkspace(await loadWorkspace(cfg.document_id));
}

// Gold as the server holds it. A gold change made while the workspace is fetched would
// be hidden by the older copy (the page would not show what the server ends up with),
// so the fetch waits for the changes sent so far, and fetches again when one was made
// meanwhile.
async function reload() {
  let workspace;
  for (;;) {
    const edits = state.editor.edits;
    await state.editor.settled();
    workspace = await loadWorkspace(cfg.document_id);
    if (state.editor.edits === edits && !state.editor.saving) break;
  }
  applyWorkspace(workspace);
  state.editor.setGold(gold()); // redraws the table, the panel and gold in the text
  if ($("#display").value !== "gold") renderDoc();
}

async function loadAgreement() {
  try {
    const query = showInProgress() ? "?in_progress=true" : "";
    renderAgreement($("#agreement"), await api("GET", `/api/documents/${cfg.document_id}/agreement/${query}`));
    $("#agreement").dataset.state = "ready";
  } catch (error) {
    $("#agreement").textContent = error.message;
  }
}

async function main() {
  const started = performance.now();
  const regions = regionsRequest(); // in parallel with the workspace
  await load();
  $("#target-person").textContent = state.doc.target_person || "(not given)";
  state.view = new DocView($("#doc"), state.doc.text);
  state.editor = new GoldEditor({
    documentId: cfg.document_id,
    gold: gold(),
    offsets: state.offsets,
    tokens: tokenize(state.doc.text),
    entityTypes: cfg.entity_types,
    identifierTypes: cfg.identifier_types,
    defaults: cfg.defaults,
    status: setMessage,
  });
  state.editor.addEventListener("change", (event) => onGoldChange(event.detail));
  state.editor.addEventListener("replace", afterGoldReplaced);
  state.editor.addEventListener("select", (event) => {
    markSelected(event.detail.old);
    renderGoldPanel();
    const segs = state.view.elements(`g${event.detail.id}`);
    if (segs.length) segs[0].scrollIntoView({ block: "nearest" });
  });
  state.editor.addEventListener("stale", (event) => {
    const { message } = event.detail;
    setMessage(message, "error");
    // Until a reload succeeds the editor keeps the failure, so publishing stays refused.
    // (The message stays as set: a refused publication may have explained it since.)
    reload().catch((error) => setMessage(`${message} Reloading failed too (${error.message}): reload the page.`, "error"));
  });
  state.table = new UnitTable($("#units"), {
    focus: focusUnit,
    adopt,
    decide: (id, value) => state.editor.change(id, { identifier_type: value }),
    remove: (id) => state.editor.remove(id),
    pick: (id) => {
      if ($("#display").value !== "gold") {
        $("#display").value = "gold";
        renderDoc();
      }
      state.editor.select(id);
    },
  });
  $("#only-disagreements").addEventListener("change", renderTable);
  $("#show-in-progress").addEventListener("change", () => {
    renderDisplayOptions();
    renderTable();
    loadAgreement();
  });
  $("#display").addEventListener("change", renderDoc);
  $("#adopt-all").addEventListener("click", adoptAll);
  $("#complete").addEventListener("click", () => {
    if (!replacingGoldConfirmed("the annotators' unanimous version, published")) return;
    act(async () => {
      replaceGold(await api("POST", `/api/documents/${cfg.document_id}/gold/complete/`, { publish: true }));
      loadAgreement();
    }, "Everyone agreed: gold set written and published.");
  });
  $("#publish").addEventListener("click", () => publish(false));
  $("#publish-force").addEventListener("click", () => {
    $("#publish-confirm").close();
    publish(true);
  });
  $("#publish-cancel").addEventListener("click", () => $("#publish-confirm").close());
  $("#refresh-agreement").addEventListener("click", loadAgreement);
  setupTextEditing();
  renderDisplayOptions();
  renderTable();
  renderGoldStatus();
  renderDoc();
  renderGoldPanel();
  applyRegions(await regions);
  document.body.dataset.ready = "1";
  window.__review = { state, ready_ms: performance.now() - started };
  loadAgreement();
  new ReidVersions($("#reid"), { documentId: cfg.document_id }).start();
}

main().catch((error) => setMessage(`Could not load: ${error.message}`, "error"));
