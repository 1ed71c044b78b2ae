// The annotator's editor: own spans over machine suggestions, keyboard-first.
//
// Wiring only. editor/store.js holds the state and announces its changes; the views
// (editor/text_view.js, panel.js, conflicts.js, preview.js) redraw what a change
// touched at once; editor/sync.js saves the edits after a short pause, each carrying
// the version it read, and keeps both versions of a span on a conflict until the
// annotator chooses.

import { config } from "./lib/api.js";
import { $ } from "./lib/dom.js";
import { tokenize } from "./lib/tokens.js";
import { loadWorkspace } from "./views/document.js";
import { editorActions } from "./editor/actions.js";
import { showConflicts } from "./editor/conflicts.js";
import { applyFilters, machineRuns, setupFilterBar, SuggestionFilters } from "./editor/filters.js";
import { OverviewStrip } from "./editor/overview.js";
import { keyHandler } from "./editor/keyboard.js";
import { setupTooltip, SpanPanel } from "./editor/panel.js";
import { MaskedPreview } from "./editor/preview.js";
import { ReidPanel } from "./editor/reid.js";
import { RiskDial } from "./editor/risk.js";
import { setupPublishedVersions } from "./editor/published.js";
import { setStatus } from "./editor/status.js";
import { SpanStore } from "./editor/store.js";
import { AutoSave, reloadWhenRestored } from "./editor/sync.js";
import { EditorTextView } from "./editor/text_view.js";

const cfg = config();

// The annotator's own spans and the machine suggestions of a workspace, keyed for the store.
function editorSpans(doc) {
  const spans = [];
  for (const set of doc.sets) {
    const layer = set.mine ? "own" : set.kind === "machine" ? "machine" : null;
    if (!layer) continue;
    const source = layer === "own" ? cfg.user : set.source_name || set.source;
    for (const span of set.spans) {
      const key = layer === "own" ? `s${span.id}` : `m${span.id}`;
      spans.push({ ...span, key, layer, setId: set.id, source });
    }
  }
  return spans;
}

async function main() {
  const started = performance.now();
  const { doc, offsets } = await loadWorkspace(cfg.document_id);
  const mine = doc.sets.find((s) => s.mine);
  const mySet = mine ? { id: mine.id, status: mine.status, editable: mine.editable } : null;

  const store = new SpanStore({ user: cfg.user, defaults: cfg.defaults });
  store.load(editorSpans(doc), mine ? mine.rejected_suggestions : []);
  // Read-only for a reviewer or admin on a document not assigned to them (the server
  // would refuse to create their set) and once the set has been reviewed.
  store.setEditable(cfg.may_annotate !== false && (mySet === null || (mySet.editable !== false && mySet.status !== "reviewed")));
  const sync = new AutoSave({ store, documentId: cfg.document_id, offsets, mySet, status: setStatus });
  const actions = editorActions({ store, sync, tokens: tokenize(doc.text), status: setStatus });

  $("#target-person").textContent = doc.target_person || "(not given)";
  $("#set-status").textContent = mine ? mine.status : "not started";
  sync.addEventListener("set", (event) => {
    $("#set-status").textContent = event.detail.status;
  });
  const textView = new EditorTextView($("#doc"), doc.text, { store, onSelectText: actions.createAt });
  setupTooltip(textView.container, store);
  const vocabulary = {
    entityTypes: cfg.entity_types.map((t) => t.name),
    identifierTypes: cfg.identifier_types.map((t) => t.name),
    entityDecisionKeys: `Shift+${cfg.identifier_types.map((t) => t.entity_key).filter(Boolean).join(" / ")}`,
  };
  const panel = new SpanPanel($("#span-panel"), { store, actions, text: doc.text, vocabulary });
  sync.addEventListener("conflicts", () => showConflicts($("#conflicts"), { sync, store, text: doc.text }));
  const preview = new MaskedPreview({
    node: $("#preview"),
    textNode: textView.container,
    button: $("#preview-toggle"),
    store,
    documentId: cfg.document_id,
    offsets,
  });

  document.addEventListener(
    "keydown",
    keyHandler({ store, actions, preview, entityTypes: cfg.entity_types, identifierTypes: cfg.identifier_types }),
  );
  $("#preview-toggle").addEventListener("click", () => preview.toggle());
  $("#submit").addEventListener("click", () => sync.submit());
  $("#undo").addEventListener("click", () => store.undo());
  $("#redo").addEventListener("click", () => store.redo());
  window.addEventListener("beforeunload", (event) => {
    if (sync.hasPending()) {
      sync.flush();
      event.preventDefault();
    }
  });
  // Suggestion filters, bulk actions and the overview strip (editor/filters.js, overview.js).
  const filters = new SuggestionFilters({ store, runs: machineRuns(doc), entityTypes: vocabulary.entityTypes });
  filters.addEventListener("change", () => {
    applyFilters(filters, textView.view);
    textView.updateCounts();
  });
  actions.setVisibility((span) => filters.visible(span));
  textView.isShown = (span) => filters.visible(span);
  if (filters.runs.length) {
    setupFilterBar($("#suggestion-filters"), { filters, store, sync, actions, status: setStatus });
    new OverviewStrip($("#overview"), { store, filters, textLength: doc.text.length });
  }
  // The privacy/utility dial (editor/risk.js): an overlay of the solver's masks, never saved.
  const riskDial = new RiskDial($("#risk-panel"), { documentId: cfg.document_id, view: textView.view, store, offsets, risk: cfg.risk });
  // The live re-identification rank (editor/reid.js): asked again after every decision.
  const reid = new ReidPanel($("#reid-panel"), { documentId: cfg.document_id, store, view: textView.view, offsets, entityTypes: vocabulary.entityTypes });
  setupPublishedVersions({ doc, node: $("#versions"), editorNode: textView.container, readOnlyNode: $("#published-doc") });
  textView.updateCounts();
  panel.render();
  // Only now, with the state just read from the server (answers are never cached).
  setStatus(mine ? "All changes saved" : "Nothing changed yet", "ok");
  reloadWhenRestored(sync);
  const ready = performance.now();
  document.body.dataset.ready = "1";
  reid.load();
  // For the browser tests and benchmarks/ui_long_document.py.
  window.__editor = {
    store,
    sync,
    doc,
    view: textView.view,
    ready_ms: ready - started,
    filters,
    riskDial,
    reid,
    select: (key, options) => store.select(key, options),
    flush: () => sync.flush(),
    interactiveAt: ready,
  };
}

main().catch((error) => {
  setStatus(`Could not load the document: ${error.message}`, "error");
  throw error;
});
