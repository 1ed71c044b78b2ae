// The annotator's editor: own spans over machine suggestions, keyboard-first.
//
// Keystrokes change local state and restyle the touched span's elements at once; the
// writes to the API are queued per span and sent after a short pause (autosave), each
// carrying the version it read. A 409 opens the conflict panel with both versions and
// keeps the local change until the annotator chooses.

import { api, ApiError, config, el, offsetMapper, offsetsToServer, spansToView, spanToView } from "./api.js";
import {
  DocView,
  ENTITY_TYPES,
  IDENTIFIER_TYPES,
  releaseText,
  snapToTokens,
  stepEdge,
  tokenize,
} from "./render.js";

const cfg = config();
const SAVE_DELAY_MS = 600;
const TYPE_KEYS = { p: "PERSON", c: "CODE", l: "LOC", o: "ORG", e: "DEM", t: "DATETIME", u: "QUANTITY", i: "MISC" };
const DECISION_KEYS = { 1: "DIRECT", 2: "QUASI", 3: "NO_MASK", d: "DIRECT", q: "QUASI", x: "NO_MASK" };
const ENTITY_DECISION_KEYS = { D: "DIRECT", Q: "QUASI", X: "NO_MASK" };
const EDITABLE = ["start", "end", "entity_type", "identifier_type", "confidential_status", "entity_id", "note"];

const state = {
  doc: null,
  mySet: null, // {id, status, editable}
  spans: new Map(), // key -> span (own: layer "own"; suggestions: layer "machine")
  rejected: new Set(), // machine span ids
  selected: null,
  previous: null, // previously selected key (for entity linking)
  undo: [],
  redo: [],
  dirty: new Map(), // own key -> {fields:Set, create:bool, remove:bool}
  conflicts: new Map(), // key -> server version (or null when deleted)
  saving: false,
  timer: null,
  lastType: "PERSON",
  nextKey: 1,
  tokens: null,
  view: null,
};

// --- helpers -------------------------------------------------------------------------

const $ = (selector) => document.querySelector(selector);

function setStatus(text, kind = "") {
  const node = $("#save-status");
  node.textContent = text;
  node.className = `save-status ${kind}`;
}

function ownSpans() {
  // Cached between structural changes: the render asks once per segment.
  if (!state.ownCache) state.ownCache = [...state.spans.values()].filter((s) => s.layer === "own");
  return state.ownCache;
}

function suggestions() {
  return [...state.spans.values()].filter((s) => s.layer === "machine").sort((a, b) => a.start - b.start);
}

function overlaps(a, b) {
  return a.start < b.end && b.start < a.end;
}

function isReviewed(suggestion) {
  if (state.rejected.has(suggestion.id)) return true;
  return ownSpans().some((own) => overlaps(own, suggestion));
}

function classesFor(keys) {
  // The own span wins over suggestions; among equals the shortest (innermost) wins.
  const spans = keys.map((k) => state.spans.get(k)).filter(Boolean);
  const own = spans.filter((s) => s.layer === "own");
  const pool = own.length ? own : spans;
  const top = pool.reduce((a, b) => (b.end - b.start < a.end - a.start ? b : a));
  const classes = [`t-${top.entity_type}`, `i-${top.identifier_type}`, `L-${top.layer}`];
  if (own.length && spans.length > own.length) classes.push("has-sugg");
  if (top.layer === "machine") {
    if (state.rejected.has(top.id)) classes.push("rejected");
    else if (!isReviewed(top)) classes.push("unreviewed");
  }
  if (own.length > 1 || (spans.length > 1 && !own.length)) classes.push("stacked");
  return classes.join(" ");
}

function snapshot(span) {
  const out = {};
  for (const field of EDITABLE) out[field] = span[field];
  return out;
}

// --- rendering -----------------------------------------------------------------------

function select(key, { scroll = true } = {}) {
  if (state.selected && state.selected !== key) {
    for (const seg of state.view.elements(state.selected)) seg.classList.remove("sel");
    state.previous = state.selected;
  }
  state.selected = key;
  if (key) {
    const segs = state.view.elements(key);
    for (const seg of segs) seg.classList.add("sel");
    if (scroll && segs.length) segs[0].scrollIntoView({ block: "nearest" });
  }
  renderPanel();
}

function restyle(key) {
  state.view.restyle(key);
  // Suggestions under an own span change their "reviewed" look with it.
  const span = state.spans.get(key);
  if (span && span.layer === "own") {
    for (const s of suggestions()) if (overlaps(s, span)) state.view.restyle(s.key);
  }
  if (state.selected) for (const seg of state.view.elements(state.selected)) seg.classList.add("sel");
}

function structural(key, oldExtent) {
  state.ownCache = null;
  const span = state.spans.get(key);
  state.view.spanChanged(key, oldExtent, span || null);
  if (state.selected) for (const seg of state.view.elements(state.selected)) seg.classList.add("sel");
  updateCounts();
}

function updateCounts() {
  const own = ownSpans();
  const open = suggestions().filter((s) => !isReviewed(s)).length;
  $("#counts").textContent = `${own.length} spans · ${open} unreviewed suggestions`;
}

function describe(span) {
  const parts = [`${span.entity_type} · ${span.identifier_type}`];
  parts.push(span.layer === "own" ? "your decision" : `suggestion from ${span.source}`);
  if (span.confidence !== null && span.confidence !== undefined) parts.push(`confidence ${(+span.confidence).toFixed(2)}`);
  return parts.join(" — ");
}

function explanation(span) {
  const attrs = span.attrs || {};
  if (Array.isArray(attrs.combination)) {
    const unit = attrs.count === 1 ? "person" : "persons";
    return `${attrs.combination.join(" + ")} → ${attrs.count} ${unit}`;
  }
  return "";
}

function renderPanel() {
  const panel = $("#span-panel");
  const span = state.spans.get(state.selected);
  panel.replaceChildren();
  if (!span) {
    panel.append(el("p", { class: "muted" }, "Select a span (click it, or j / k), or select text to create one."));
    return;
  }
  const own = span.layer === "own";
  const readOnly = !own || !canEdit();
  panel.append(
    el("h3", {}, own ? "Your span" : "Machine suggestion"),
    el("blockquote", { class: "span-text" }, state.doc.text.slice(span.start, span.end)),
    el("p", { class: "muted" }, `${span.start}–${span.end} · ${describe(span)}`),
  );
  const why = explanation(span);
  if (why) panel.append(el("p", { class: "explain" }, el("strong", {}, "Why masked: "), why));
  const typeSelect = el(
    "select",
    { id: "panel-type", disabled: readOnly, onchange: (e) => change(span.key, { entity_type: e.target.value }) },
    ENTITY_TYPES.map((t) => el("option", { value: t, selected: t === span.entity_type }, t)),
  );
  const decisionSelect = el(
    "select",
    { id: "panel-decision", disabled: readOnly, onchange: (e) => change(span.key, { identifier_type: e.target.value }) },
    IDENTIFIER_TYPES.map((t) => el("option", { value: t, selected: t === span.identifier_type }, t)),
  );
  panel.append(el("label", {}, "Type ", typeSelect), el("label", {}, "Decision ", decisionSelect));
  if (own) {
    const entities = [...new Set(ownSpans().map((s) => s.entity_id).filter(Boolean))].sort();
    const entityInput = el("input", {
      id: "panel-entity",
      list: "entity-ids",
      value: span.entity_id || "",
      disabled: readOnly,
      placeholder: "entity id (co-reference)",
      onchange: (e) => change(span.key, { entity_id: e.target.value.trim() }),
    });
    const mentions = span.entity_id ? ownSpans().filter((s) => s.entity_id === span.entity_id).length : 0;
    panel.append(
      el("label", {}, "Entity ", entityInput),
      el("datalist", { id: "entity-ids" }, entities.map((id) => el("option", { value: id }))),
      el("p", { class: "muted" }, span.entity_id ? `${mentions} mention(s); Shift+D / Q / X decides for all of them` : "g: link to the previously selected span's entity"),
      el(
        "label",
        {},
        "Note ",
        el("textarea", {
          id: "panel-note",
          rows: 2,
          disabled: readOnly,
          onchange: (e) => change(span.key, { note: e.target.value }),
        }, span.note || ""),
      ),
    );
    if (!readOnly) panel.append(el("button", { class: "danger", onclick: () => removeSpan(span.key) }, "Delete (Del)"));
  } else if (canEdit()) {
    panel.append(
      el("div", { class: "row" },
        el("button", { onclick: () => accept(span.key) }, "Accept (a)"),
        el("button", { class: "secondary", onclick: () => reject(span.key) }, state.rejected.has(span.id) ? "Un-reject (r)" : "Reject (r)"),
      ),
    );
  }
}

// --- tooltip -----------------------------------------------------------------------------

function setupTooltip(container) {
  const tip = $("#tooltip");
  container.addEventListener("mouseover", (event) => {
    const seg = event.target.closest(".seg");
    if (!seg) return;
    const lines = seg.dataset.k
      .split(" ")
      .map((k) => state.spans.get(k))
      .filter(Boolean)
      .map((s) => {
        const why = explanation(s);
        return el("div", { class: "tip-line" }, describe(s), why ? el("div", { class: "explain" }, `Why: ${why}`) : null, s.note ? el("div", { class: "muted" }, `Note: ${s.note}`) : null);
      });
    tip.replaceChildren(...lines);
    const rect = seg.getBoundingClientRect();
    tip.style.left = `${Math.max(4, rect.left + window.scrollX)}px`;
    tip.style.top = `${rect.bottom + window.scrollY + 4}px`;
    tip.hidden = false;
  });
  container.addEventListener("mouseout", (event) => {
    if (!event.relatedTarget || !event.relatedTarget.closest?.(".seg")) tip.hidden = true;
  });
}

// --- editing -----------------------------------------------------------------------------

function canEdit() {
  return state.mySet === null || state.mySet.editable !== false;
}

function markDirty(key, patch) {
  const entry = state.dirty.get(key) || { fields: new Set(), create: false, remove: false };
  if (patch.create) entry.create = true;
  if (patch.remove) entry.remove = true;
  for (const field of patch.fields || []) entry.fields.add(field);
  state.dirty.set(key, entry);
  scheduleSave();
}

function apply(command, direction) {
  // direction "do" applies command.after, "undo" command.before.
  const target = direction === "do" ? command.after : command.before;
  const existing = state.spans.get(command.key);
  const oldExtent = existing ? [existing.start, existing.end] : null;
  if (target === null) {
    if (!existing) return;
    state.spans.delete(command.key);
    if (state.selected === command.key) state.selected = null;
    markDirty(command.key, { remove: true });
    structural(command.key, oldExtent);
    renderPanel();
    return;
  }
  if (!existing) {
    const span = { ...command.base, ...target, key: command.key, layer: "own", id: null, version: 1 };
    state.spans.set(command.key, span);
    const entry = state.dirty.get(command.key);
    const gone = state.deleted.get(command.key);
    if (entry && entry.remove && gone) {
      // Re-created before its deletion was saved: the server row is still there.
      entry.remove = false;
      span.id = gone.id;
      span.version = gone.version;
      state.deleted.delete(command.key);
      markDirty(command.key, { fields: EDITABLE });
    } else {
      if (entry) entry.remove = false;
      markDirty(command.key, { create: true });
    }
    structural(command.key, null);
    select(command.key);
    return;
  }
  const fields = Object.keys(target).filter((f) => existing[f] !== target[f]);
  Object.assign(existing, target);
  markDirty(command.key, { fields });
  if (fields.includes("start") || fields.includes("end")) structural(command.key, oldExtent);
  else restyle(command.key);
  if (state.selected === command.key) renderPanel();
}

function run(command) {
  state.undo.push(command);
  if (state.undo.length > 500) state.undo.shift();
  state.redo = [];
  apply(command, "do");
}

function change(key, changes) {
  const span = state.spans.get(key);
  if (!span || span.layer !== "own" || !canEdit()) return;
  const before = {};
  const after = {};
  for (const [field, value] of Object.entries(changes)) {
    if (span[field] === value) continue;
    before[field] = span[field];
    after[field] = value;
  }
  if (!Object.keys(after).length) return;
  if (after.entity_type) state.lastType = after.entity_type;
  run({ key, before, after });
}

function createSpan(fields) {
  if (!canEdit()) return null;
  const key = `c${state.nextKey++}`;
  const after = {
    start: fields.start,
    end: fields.end,
    entity_type: fields.entity_type || state.lastType,
    identifier_type: fields.identifier_type || "QUASI",
    confidential_status: fields.confidential_status || "NOT_CONFIDENTIAL",
    entity_id: fields.entity_id || "",
    note: fields.note || "",
  };
  const base = { confidence: null, attrs: fields.attrs || {}, source: cfg.user };
  run({ key, before: null, after, base });
  return key;
}

function removeSpan(key) {
  const span = state.spans.get(key);
  if (!span || span.layer !== "own" || !canEdit()) return;
  run({ key, before: snapshot(span), after: null, base: { confidence: span.confidence, attrs: span.attrs, source: span.source } });
}

function accept(key) {
  const suggestion = state.spans.get(key);
  if (!suggestion || suggestion.layer !== "machine") return;
  const attrs = { ...(suggestion.attrs || {}), accepted_from: suggestion.id };
  const newKey = createSpan({ ...snapshot(suggestion), attrs });
  if (newKey) {
    restyle(key);
    updateCounts();
  }
}

async function reject(key) {
  const suggestion = state.spans.get(key);
  if (!suggestion || suggestion.layer !== "machine" || !canEdit()) return;
  const rejected = !state.rejected.has(suggestion.id);
  if (rejected) state.rejected.add(suggestion.id);
  else state.rejected.delete(suggestion.id);
  restyle(key);
  updateCounts();
  renderPanel();
  try {
    await ensureMySet();
    const result = await api("POST", `/api/annotation-sets/${state.mySet.id}/rejections/`, {
      span_ids: [suggestion.id],
      rejected,
    });
    state.rejected = new Set(result.rejected_suggestions);
  } catch (error) {
    setStatus(`Could not record the rejection: ${error.message}`, "error");
  }
  if (rejected) jumpSuggestion(1);
}

function resize(edge, direction) {
  const span = state.spans.get(state.selected);
  if (!span || span.layer !== "own") return;
  const next = stepEdge(state.tokens, span, edge, direction);
  if (next) change(span.key, { start: next[0], end: next[1] });
}

function decideEntity(identifierType) {
  const span = state.spans.get(state.selected);
  if (!span || span.layer !== "own") return;
  if (!span.entity_id) {
    change(span.key, { identifier_type: identifierType });
    return;
  }
  // One undoable step per mention: each goes through the same version-checked save.
  for (const mention of ownSpans().filter((s) => s.entity_id === span.entity_id)) {
    change(mention.key, { identifier_type: identifierType });
  }
}

function linkToPrevious() {
  const span = state.spans.get(state.selected);
  const other = state.spans.get(state.previous);
  if (!span || !other || span.layer !== "own" || other.layer !== "own" || span === other) {
    setStatus("Select the mention to link to, then the mention to link, and press g", "warn");
    return;
  }
  let entity = other.entity_id;
  if (!entity) {
    entity = `E${Date.now().toString(36)}`;
    change(other.key, { entity_id: entity });
  }
  change(span.key, { entity_id: entity });
}

function jump(direction, list) {
  if (!list.length) return;
  const current = state.spans.get(state.selected);
  const pos = current ? current.start : direction > 0 ? -1 : Infinity;
  const candidates = direction > 0 ? list.filter((s) => s.start > pos || (s.start === pos && current && s.key > current.key)) : list.filter((s) => s.start < pos).reverse();
  const target = candidates[0] || (direction > 0 ? list[0] : list.at(-1));
  select(target.key);
}

function jumpSpan(direction) {
  jump(direction, [...state.spans.values()].sort((a, b) => a.start - b.start || (a.key < b.key ? -1 : 1)));
}

function jumpSuggestion(direction) {
  jump(direction, suggestions().filter((s) => !isReviewed(s)));
}

function undo() {
  const command = state.undo.pop();
  if (!command) return;
  state.redo.push(command);
  apply(command, "undo");
}

function redo() {
  const command = state.redo.pop();
  if (!command) return;
  state.undo.push(command);
  apply(command, "do");
}

// --- saving ------------------------------------------------------------------------------

async function ensureMySet() {
  if (state.mySet) return state.mySet;
  const data = await api("POST", `/api/documents/${cfg.document_id}/annotation-sets/mine/`);
  state.mySet = { id: data.id, status: data.status, editable: data.editable };
  $("#set-status").textContent = data.status;
  return state.mySet;
}

function scheduleSave() {
  setStatus("Unsaved changes", "dirty");
  clearTimeout(state.timer);
  state.timer = setTimeout(flush, SAVE_DELAY_MS);
}

function payload(span, fields) {
  const out = {};
  for (const field of fields) out[field] = span[field];
  return out;
}

async function saveOne(key, entry) {
  const span = state.spans.get(key);
  if (entry.remove) {
    if (span || !entry.serverId) return true;
    try {
      await api("DELETE", `/api/spans/${entry.serverId}/delete/?version=${entry.version}`);
    } catch (error) {
      if (error.status === 404) return true;
      throw error;
    }
    return true;
  }
  if (!span) return true;
  if (span.id === null) {
    const created = await api("POST", `/api/annotation-sets/${state.mySet.id}/spans/create/`, {
      ...offsetsToServer(payload(span, EDITABLE), state.offsets),
      attrs: span.attrs || {},
    });
    span.id = created.id;
    span.version = created.version;
    return true;
  }
  if (!entry.fields.size) return true;
  const updated = await api("PATCH", `/api/spans/${span.id}/update/`, {
    version: span.version,
    ...offsetsToServer(payload(span, entry.fields), state.offsets),
  });
  span.version = updated.version;
  return true;
}

async function flush() {
  clearTimeout(state.timer);
  if (state.saving) {
    state.timer = setTimeout(flush, SAVE_DELAY_MS);
    return;
  }
  if (!state.dirty.size) {
    if (!state.conflicts.size) setStatus("All changes saved", "ok");
    return;
  }
  state.saving = true;
  setStatus("Saving…", "saving");
  try {
    await ensureMySet();
    for (const [key, entry] of [...state.dirty.entries()]) {
      if (state.conflicts.has(key)) continue;
      // A delete needs the id and version the span had when it was removed.
      const span = state.spans.get(key);
      if (entry.remove && !span) {
        const gone = state.deleted.get(key);
        entry.serverId = gone?.id;
        entry.version = gone?.version;
      }
      state.dirty.delete(key);
      try {
        await saveOne(key, entry);
        if (entry.remove) state.deleted.delete(key);
      } catch (error) {
        if (error instanceof ApiError && error.status === 409) {
          state.dirty.set(key, entry);
          state.conflicts.set(key, spanToView(error.body.current || null, state.offsets));
          showConflicts();
        } else if (error instanceof ApiError && error.status >= 400 && error.status < 500) {
          setStatus(`Not saved: ${error.message}`, "error");
        } else {
          state.dirty.set(key, entry); // network trouble: keep it and retry
          throw error;
        }
      }
    }
    if (state.conflicts.size) setStatus("Conflict: choose a version", "error");
    else if (!state.dirty.size) setStatus("All changes saved", "ok");
  } catch (error) {
    setStatus(`Saving failed, retrying: ${error.message}`, "error");
    state.timer = setTimeout(flush, 3000);
  } finally {
    state.saving = false;
  }
  if (state.dirty.size && !state.conflicts.size && !state.timer) scheduleSave();
}

function showConflicts() {
  const box = $("#conflicts");
  box.replaceChildren();
  box.hidden = state.conflicts.size === 0;
  for (const [key, theirs] of state.conflicts) {
    const mine = state.spans.get(key);
    const row = (label, s) =>
      el("tr", {}, el("th", {}, label), el("td", {}, s ? `${state.doc.text.slice(s.start, s.end)} [${s.start}–${s.end}]` : "(deleted)"), el("td", {}, s ? s.entity_type : ""), el("td", {}, s ? s.identifier_type : ""), el("td", {}, s ? s.note || "" : ""), el("td", {}, s ? `v${s.version}` : ""));
    box.append(
      el(
        "div",
        { class: "conflict", dataset: { key } },
        el("p", {}, el("strong", {}, "Someone else changed this span since you read it."), " Both versions:"),
        el("table", { class: "grid" }, el("tr", {}, el("th", {}), el("th", {}, "Span"), el("th", {}, "Type"), el("th", {}, "Decision"), el("th", {}, "Note"), el("th", {}, "Version")), row("Yours", mine), row("Theirs", theirs)),
        el("button", { class: "keep-mine", onclick: () => resolve(key, "mine") }, "Keep mine"),
        " ",
        el("button", { class: "secondary take-theirs", onclick: () => resolve(key, "theirs") }, "Take theirs"),
      ),
    );
  }
}

function resolve(key, choice) {
  const theirs = state.conflicts.get(key);
  state.conflicts.delete(key);
  const mine = state.spans.get(key);
  const entry = state.dirty.get(key);
  if (choice === "mine") {
    if (mine && theirs) {
      mine.version = theirs.version;
      for (const field of EDITABLE) if (mine[field] !== theirs[field]) entry.fields.add(field);
    } else if (mine && !theirs) {
      mine.id = null; // deleted on the server: create it again
    } else if (!mine && theirs) {
      state.deleted.set(key, { id: theirs.id, version: theirs.version });
    }
  } else {
    state.dirty.delete(key);
    if (theirs) {
      const oldExtent = mine ? [mine.start, mine.end] : null;
      const span = mine || { key, layer: "own", attrs: {}, source: "server", confidence: null };
      Object.assign(span, snapshot(theirs), { id: theirs.id, version: theirs.version });
      state.spans.set(key, span);
      structural(key, oldExtent);
    } else if (mine) {
      state.spans.delete(key);
      structural(key, [mine.start, mine.end]);
    }
    renderPanel();
  }
  showConflicts();
  scheduleSave();
}

// --- selection ---------------------------------------------------------------------------

function onMouseUp() {
  const selection = window.getSelection();
  if (!selection || selection.isCollapsed || !selection.rangeCount) return;
  const range = selection.getRangeAt(0);
  const container = state.view.container;
  if (!container.contains(range.commonAncestorContainer)) return;
  const a = state.view.offsetOf(range.startContainer, range.startOffset);
  const b = state.view.offsetOf(range.endContainer, range.endOffset);
  if (a === null || b === null || a === b) return;
  const snapped = snapToTokens(state.tokens, Math.min(a, b), Math.max(a, b));
  selection.removeAllRanges();
  if (!snapped) return;
  state.justCreated = true;
  setTimeout(() => {
    state.justCreated = false;
  }, 0);
  // A new span takes the type of a suggestion it overlaps, else the last type used.
  const hint = suggestions().find((s) => overlaps(s, { start: snapped[0], end: snapped[1] }));
  const key = createSpan({ start: snapped[0], end: snapped[1], entity_type: hint?.entity_type });
  if (key) select(key, { scroll: false });
}

function onClick(event) {
  if (state.justCreated) {
    state.justCreated = false;
    return;
  }
  const seg = event.target.closest(".seg");
  if (!seg || !seg.isConnected || !window.getSelection().isCollapsed) return;
  const keys = seg.dataset.k.split(" ");
  // Repeated clicks cycle through stacked spans; own spans come first.
  keys.sort((x, y) => (state.spans.get(x).layer === "own" ? -1 : 1) - (state.spans.get(y).layer === "own" ? -1 : 1));
  const at = keys.indexOf(state.selected);
  select(keys[(at + 1) % keys.length], { scroll: false });
}

// --- keyboard ----------------------------------------------------------------------------

function onKey(event) {
  if (event.target instanceof Element && event.target.closest("input, textarea, select")) {
    if (event.key === "Escape") event.target.blur();
    return;
  }
  const key = event.key;
  const ctrl = event.ctrlKey || event.metaKey;
  let handled = true;
  const selected = state.spans.get(state.selected);
  if (ctrl && (key === "z" || key === "Z")) (event.shiftKey ? redo : undo)();
  else if (ctrl && key === "y") redo();
  else if (ctrl) handled = false;
  else if (key === "ArrowRight" && event.shiftKey) resize("end", 1);
  else if (key === "ArrowLeft" && event.shiftKey) resize("end", -1);
  else if (key === "ArrowLeft" && event.altKey) resize("start", 1);
  else if (key === "ArrowRight" && event.altKey) resize("start", -1);
  else if (key === "j" || key === "ArrowRight") jumpSpan(1);
  else if (key === "k" || key === "ArrowLeft") jumpSpan(-1);
  else if (key === "]") jumpSuggestion(1);
  else if (key === "[") jumpSuggestion(-1);
  else if (key === "z") undo();
  else if (key === "y") redo();
  else if (key === "v") togglePreview();
  else if (key === "?") $("#help").toggleAttribute("hidden");
  else if (key === "Escape") select(null);
  else if (!selected) handled = false;
  else if (key in ENTITY_DECISION_KEYS) decideEntity(ENTITY_DECISION_KEYS[key]);
  else if (key in DECISION_KEYS) {
    if (selected.layer === "machine") {
      accept(selected.key);
      change(state.selected, { identifier_type: DECISION_KEYS[key] });
    } else change(selected.key, { identifier_type: DECISION_KEYS[key] });
  } else if (key in TYPE_KEYS) {
    if (selected.layer === "machine") accept(selected.key);
    change(state.selected, { entity_type: TYPE_KEYS[key] });
  }
  else if (key === "a") accept(selected.key);
  else if (key === "r") reject(selected.key);
  else if (key === "Delete" || key === "Backspace") removeSpan(selected.key);
  else if (key === "g") linkToPrevious();
  else if (key === "G" || key === "N") {
    const field = $(key === "G" ? "#panel-entity" : "#panel-note");
    if (field) field.focus();
    else handled = false;
  } else handled = false;
  if (handled) event.preventDefault();
}

// --- preview & submit --------------------------------------------------------------------

function togglePreview() {
  const preview = $("#preview");
  const showing = !preview.hidden;
  if (!showing) preview.textContent = releaseText(state.doc.text, ownSpans());
  preview.hidden = showing;
  state.view.container.hidden = !showing;
  $("#preview-toggle").textContent = showing ? "Masked preview (v)" : "Back to annotation (v)";
}

async function submit() {
  await flush();
  if (state.dirty.size || state.conflicts.size) {
    setStatus("Resolve the unsaved changes before submitting", "error");
    return;
  }
  try {
    await ensureMySet();
    const data = await api("POST", `/api/annotation-sets/${state.mySet.id}/submit/`);
    state.mySet.status = data.status;
    $("#set-status").textContent = data.status;
    setStatus("Submitted", "ok");
  } catch (error) {
    setStatus(`Not submitted: ${error.message}`, "error");
  }
}

// --- start ---------------------------------------------------------------------------------

async function main() {
  const started = performance.now();
  const doc = await api("GET", `/api/documents/${cfg.document_id}/workspace/`);
  state.offsets = offsetMapper(doc.text);
  spansToView(doc, state.offsets);
  state.doc = doc;
  state.deleted = new Map();
  const mine = doc.sets.find((s) => s.mine);
  if (mine) {
    state.mySet = { id: mine.id, status: mine.status, editable: mine.editable };
    state.rejected = new Set(mine.rejected_suggestions);
  }
  for (const set of doc.sets) {
    const layer = set.mine ? "own" : set.kind === "machine" ? "machine" : null;
    if (!layer) continue;
    for (const span of set.spans) {
      const key = layer === "own" ? `s${span.id}` : `m${span.id}`;
      state.spans.set(key, { ...span, key, layer, setId: set.id, source: layer === "own" ? cfg.user : set.source_name || set.source });
    }
  }
  state.tokens = tokenize(doc.text);
  $("#target-person").textContent = doc.target_person || "(not given)";
  $("#set-status").textContent = mine ? mine.status : "not started";
  const container = $("#doc");
  state.view = new DocView(container, doc.text, { classesFor });
  state.view.setSpans([...state.spans.values()]);
  state.view.render();
  // Keep the span extents the view holds in sync with state (same objects).
  state.view.spans = state.spans;
  container.addEventListener("mouseup", onMouseUp);
  container.addEventListener("click", onClick);
  document.addEventListener("keydown", onKey);
  setupTooltip(container);
  $("#preview-toggle").addEventListener("click", togglePreview);
  $("#submit").addEventListener("click", submit);
  $("#undo").addEventListener("click", undo);
  $("#redo").addEventListener("click", redo);
  window.addEventListener("beforeunload", (event) => {
    if (state.dirty.size || state.conflicts.size) {
      flush();
      event.preventDefault();
    }
  });
  updateCounts();
  renderPanel();
  setStatus(mine ? "All changes saved" : "Nothing changed yet", "ok");
  const ready = performance.now();
  document.body.dataset.ready = "1";
  window.__editor = { state, ready_ms: ready - started, select, flush, interactiveAt: ready };
}

// Deletions need the id/version the span had; keep them when a span leaves the map.
const originalDelete = Map.prototype.delete;
state.spans.delete = function (key) {
  const span = this.get(key);
  if (span && span.layer === "own" && span.id) state.deleted.set(key, { id: span.id, version: span.version });
  return originalDelete.call(this, key);
};

main().catch((error) => {
  setStatus(`Could not load the document: ${error.message}`, "error");
  throw error;
});
