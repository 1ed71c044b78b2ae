// Which machine suggestions the editor shows, and bulk decisions on them.
//
// Filters: hide a whole machine run, show only some entity types, or only suggestions
// at or above a confidence. Hidden suggestions leave the text (the annotator's own
// spans always stay) but not the store, so nothing is lost by hiding them.
//
// Bulk actions take the unreviewed suggestions that are shown and match a type, or a
// confidence at/above or below a threshold, and accept or reject each through the
// editor's own paths (actions.accept -> autosave with its version checks;
// sync.recordRejection, one confirmed request at a time).

import { el } from "../lib/dom.js";

export class SuggestionFilters extends EventTarget {
  constructor({ store, runs, entityTypes }) {
    super();
    this.store = store;
    this.runs = runs; // [{id, name, count}]
    this.entityTypes = entityTypes;
    this.hiddenRuns = new Set();
    this.types = new Set(entityTypes);
    this.minConfidence = 0;
  }

  // Whether a span is drawn: own spans always; a suggestion when its run is shown, its
  // type is chosen and its confidence (if it has one) reaches the minimum.
  visible(span) {
    if (span.layer !== "machine") return true;
    if (this.hiddenRuns.has(span.setId) || !this.types.has(span.entity_type)) return false;
    return span.confidence === null || span.confidence === undefined || span.confidence >= this.minConfidence;
  }

  shownSuggestions() {
    return this.store.suggestions().filter((s) => this.visible(s));
  }

  isFiltering() {
    return this.hiddenRuns.size > 0 || this.types.size < this.entityTypes.length || this.minConfidence > 0;
  }

  set(change) {
    change(this);
    this.dispatchEvent(new Event("change"));
  }
}

// The suggestions a bulk action applies to: unreviewed, shown, and matching the scope.
export function bulkTargets(filters, { scope, type, threshold }) {
  const matches = {
    type: (s) => s.entity_type === type,
    above: (s) => s.confidence !== null && s.confidence !== undefined && s.confidence >= threshold,
    below: (s) => s.confidence !== null && s.confidence !== undefined && s.confidence < threshold,
  }[scope];
  return filters.shownSuggestions().filter((s) => !filters.store.isReviewed(s) && matches(s));
}

// Accepts each target (skipping one an earlier acceptance already covers); how many.
export function bulkAccept(store, actions, targets) {
  let done = 0;
  for (const suggestion of targets) {
    if (store.isReviewed(suggestion)) continue;
    if (actions.accept(suggestion.key)) done += 1;
  }
  return done;
}

// Rejects each target, waiting for the server to confirm each; a refused one is shown
// unrejected again and stops the run. Returns how many were recorded.
export async function bulkReject(store, sync, targets, status) {
  let done = 0;
  for (const suggestion of targets) {
    if (store.isReviewed(suggestion)) continue;
    if (store.toggleRejected(suggestion.key) !== true) continue;
    try {
      await sync.recordRejection(suggestion.id, true);
      done += 1;
      status(`Rejecting… ${done} of ${targets.length}`, "");
    } catch (error) {
      store.toggleRejected(suggestion.key);
      status(`Could not record the rejection: ${error.message}`, "error");
      return done;
    }
  }
  return done;
}

// The filter bar and bulk actions above the text.
export function setupFilterBar(node, { filters, store, sync, actions, status }) {
  const runBoxes = filters.runs.map((run) =>
    el("label", { class: "inline-check" },
      el("input", { type: "checkbox", class: "run-toggle", checked: true, dataset: { run: run.id },
        onchange: (e) => filters.set((f) => (e.target.checked ? f.hiddenRuns.delete(run.id) : f.hiddenRuns.add(run.id))) }),
      ` ${run.name} (${run.count})`),
  );
  const typeBoxes = filters.entityTypes.map((type) =>
    el("label", { class: `inline-check type-toggle t-${type}` },
      el("input", { type: "checkbox", class: "type-filter", checked: true, value: type,
        onchange: (e) => filters.set((f) => (e.target.checked ? f.types.add(type) : f.types.delete(type))) }),
      ` ${type}`),
  );
  const confidence = el("input", { type: "number", id: "min-confidence", min: 0, max: 1, step: 0.05, value: 0, style: "width:5em",
    onchange: (e) => filters.set((f) => (f.minConfidence = Number(e.target.value) || 0)) });
  const scope = el("select", { id: "bulk-scope" },
    el("option", { value: "type" }, "of type"),
    el("option", { value: "above" }, "with confidence ≥"),
    el("option", { value: "below" }, "with confidence <"));
  const type = el("select", { id: "bulk-type" }, filters.entityTypes.map((t) => el("option", { value: t }, t)));
  const threshold = el("input", { type: "number", id: "bulk-threshold", min: 0, max: 1, step: 0.05, value: 0.5, style: "width:5em" });
  const showScope = () => {
    type.hidden = scope.value !== "type";
    threshold.hidden = scope.value === "type";
  };
  scope.addEventListener("change", showScope);
  showScope();
  const options = () => ({ scope: scope.value, type: type.value, threshold: Number(threshold.value) });
  const disabled = !store.canEdit();
  const accept = el("button", { class: "small", id: "bulk-accept", disabled, onclick: () => {
    const n = bulkAccept(store, actions, bulkTargets(filters, options()));
    status(`Accepted ${n} suggestion(s); saving…`, "");
  } }, "Accept all");
  const reject = el("button", { class: "small secondary", id: "bulk-reject", disabled, onclick: async () => {
    const targets = bulkTargets(filters, options());
    status(`Rejecting ${targets.length} suggestion(s)…`, "");
    const n = await bulkReject(store, sync, targets, status);
    if (n === targets.length) status(`Rejected ${n} suggestion(s)`, "ok");
  } }, "Reject all");
  node.replaceChildren(
    el("div", { class: "row filter-row" }, el("strong", {}, "Suggestions:"), ...runBoxes),
    el("div", { class: "row filter-row" }, ...typeBoxes, el("label", {}, "min confidence ", confidence)),
    el("div", { class: "row filter-row bulk-row" }, el("strong", {}, "All unreviewed shown"), scope, type, threshold, accept, reject),
  );
  node.hidden = false;
}

// Redraws the text with only the visible spans (own spans are always visible).
export function applyFilters(filters, view) {
  view.setSpans(filters.store.all().filter((s) => filters.visible(s)));
  view.render();
}

// The machine runs of a workspace, for the run toggles.
export function machineRuns(doc) {
  return doc.sets.filter((s) => s.kind === "machine").map((s) => ({ id: s.id, name: s.name || s.source_name || s.source, count: s.spans.length }));
}
