// The editor's state: the spans on the page (the annotator's own, layer "own", and the
// machine suggestions, layer "machine"), the selection, the rejected suggestions and
// the undo history. It changes only through the methods below, and each change is
// announced as an event, so the views and the autosave react to changes instead of
// reading and writing one shared object.
//
// Events (CustomEvent detail):
//   "span"     {key, span, removed, oldExtent, structural, fields, before, origin}
//              a span was added, changed or removed (span null when removed, then
//              ``removed`` is the span that left); structural when its extent changed
//              or it came or went; ``before`` holds the changed fields' old values;
//              origin "edit" for the annotator's own edits (to be saved), "server" when
//              the server's version replaced it (already saved), "state" when only its
//              save state (span.saveState: "unsaved", "conflict" or null) changed
//   "select"   {key, old, scroll}   the selection moved
//   "rejected" {key, rejected}      a suggestion was rejected or un-rejected

export const EDITABLE = ["start", "end", "entity_type", "identifier_type", "confidential_status", "entity_id", "note"];
const UNDO_LIMIT = 500;

export function snapshot(span) {
  const out = {};
  for (const field of EDITABLE) out[field] = span[field];
  return out;
}

export function overlaps(a, b) {
  return a.start < b.end && b.start < a.end;
}

export class SpanStore extends EventTarget {
  #spans = new Map(); // key -> span
  #rejected = new Set(); // ids of rejected machine spans
  #selected = null;
  #previous = null; // the previously selected key (for entity linking)
  #undo = [];
  #redo = [];
  #nextKey = 1;
  #editable = true;
  #ownCache = null;

  // user: the annotator's name (source of new spans); defaults: {entity_type,
  // identifier_type, confidential_status} of a new span when nothing else is known.
  constructor({ user, defaults }) {
    super();
    this.user = user;
    this.defaults = defaults;
    this.lastType = defaults.entity_type;
  }

  // --- reading -----------------------------------------------------------------------

  get selected() {
    return this.#selected;
  }

  get previous() {
    return this.#previous;
  }

  get size() {
    return this.#spans.size;
  }

  get(key) {
    return this.#spans.get(key);
  }

  all() {
    return [...this.#spans.values()];
  }

  own() {
    // Cached between structural changes: the render asks once per segment.
    if (!this.#ownCache) this.#ownCache = this.all().filter((s) => s.layer === "own");
    return this.#ownCache;
  }

  suggestions() {
    return this.all()
      .filter((s) => s.layer === "machine")
      .sort((a, b) => a.start - b.start);
  }

  // The annotator's span on exactly these offsets (a set holds at most one).
  ownAt(start, end) {
    return this.own().find((s) => s.start === start && s.end === end) || null;
  }

  isRejected(suggestion) {
    return this.#rejected.has(suggestion.id);
  }

  isReviewed(suggestion) {
    if (this.#rejected.has(suggestion.id)) return true;
    return this.own().some((own) => overlaps(own, suggestion));
  }

  canEdit() {
    return this.#editable;
  }

  // --- loading and server state (no events: nothing on the page changes) ----------------

  load(spans, rejectedIds = []) {
    for (const span of spans) this.#spans.set(span.key, span);
    this.#rejected = new Set(rejectedIds);
    this.#ownCache = null;
  }

  setEditable(editable) {
    this.#editable = editable;
  }

  setRejected(ids) {
    this.#rejected = new Set(ids);
  }

  // The server's id and version of a span after a save.
  setServerState(span, { id, version }) {
    span.id = id;
    span.version = version;
  }

  // Marks a span as not saved ("unsaved": refused; "conflict": changed or deleted
  // elsewhere) or saved (null); the text view shows the mark.
  setSaveState(key, state) {
    const span = this.#spans.get(key);
    if (!span || (span.saveState || null) === state) return;
    span.saveState = state;
    this.#emit("span", { key, span, oldExtent: [span.start, span.end], structural: false, fields: [], origin: "state" });
  }

  // --- selection ---------------------------------------------------------------------

  select(key, { scroll = true } = {}) {
    const old = this.#selected;
    if (old && old !== key) this.#previous = old;
    this.#selected = key;
    this.#emit("select", { key, old, scroll });
  }

  // --- edits (undoable) ------------------------------------------------------------------

  change(key, changes) {
    const span = this.#spans.get(key);
    if (!span || span.layer !== "own" || !this.canEdit()) return;
    const before = {};
    const after = {};
    for (const [field, value] of Object.entries(changes)) {
      if (span[field] === value) continue;
      before[field] = span[field];
      after[field] = value;
    }
    if (!Object.keys(after).length) return;
    if (after.entity_type) this.lastType = after.entity_type;
    this.#run({ key, before, after });
  }

  // A new own span from {start, end, and optionally any editable field and attrs}; its key.
  create(fields) {
    if (!this.canEdit()) return null;
    const key = `c${this.#nextKey++}`;
    const after = {
      start: fields.start,
      end: fields.end,
      entity_type: fields.entity_type || this.lastType,
      identifier_type: fields.identifier_type || this.defaults.identifier_type,
      confidential_status: fields.confidential_status || this.defaults.confidential_status,
      entity_id: fields.entity_id || "",
      note: fields.note || "",
    };
    const base = { confidence: null, attrs: fields.attrs || {}, source: this.user };
    this.#run({ key, before: null, after, base });
    return key;
  }

  remove(key) {
    const span = this.#spans.get(key);
    if (!span || span.layer !== "own" || !this.canEdit()) return;
    const base = { confidence: span.confidence, attrs: span.attrs, source: span.source };
    this.#run({ key, before: snapshot(span), after: null, base });
  }

  undo() {
    const command = this.#undo.pop();
    if (!command) return;
    this.#redo.push(command);
    this.#apply(command, "undo");
  }

  redo() {
    const command = this.#redo.pop();
    if (!command) return;
    this.#undo.push(command);
    this.#apply(command, "do");
  }

  // --- not undoable ------------------------------------------------------------------------

  // Rejects a suggestion, or un-rejects a rejected one; the new state, null if refused.
  toggleRejected(key) {
    const suggestion = this.#spans.get(key);
    if (!suggestion || suggestion.layer !== "machine" || !this.canEdit()) return null;
    const rejected = !this.#rejected.has(suggestion.id);
    if (rejected) this.#rejected.add(suggestion.id);
    else this.#rejected.delete(suggestion.id);
    this.#emit("rejected", { key, rejected });
    return rejected;
  }

  // The server's version of a span (null: deleted there) replaces the local one.
  replace(key, theirs) {
    const mine = this.#spans.get(key);
    const oldExtent = mine ? [mine.start, mine.end] : null;
    if (theirs) {
      const span = mine || { key, layer: "own", attrs: {}, source: "server", confidence: null };
      Object.assign(span, snapshot(theirs), { id: theirs.id, version: theirs.version });
      this.#spans.set(key, span);
      this.#ownCache = null;
      this.#emit("span", { key, span, oldExtent, structural: true, origin: "server" });
    } else if (mine) {
      this.#spans.delete(key);
      this.#ownCache = null;
      this.#emit("span", { key, span: null, removed: mine, oldExtent, structural: true, origin: "server" });
    }
  }

  // --- internals ---------------------------------------------------------------------------

  #emit(type, detail) {
    this.dispatchEvent(new CustomEvent(type, { detail }));
  }

  #run(command) {
    this.#undo.push(command);
    if (this.#undo.length > UNDO_LIMIT) this.#undo.shift();
    this.#redo = [];
    this.#apply(command, "do");
  }

  // direction "do" applies command.after, "undo" command.before (null: no span).
  #apply(command, direction) {
    const { key } = command;
    const target = direction === "do" ? command.after : command.before;
    const existing = this.#spans.get(key);
    const oldExtent = existing ? [existing.start, existing.end] : null;
    if (target === null) {
      if (!existing) return;
      this.#spans.delete(key);
      this.#ownCache = null;
      if (this.#selected === key) this.#selected = null;
      this.#emit("span", { key, span: null, removed: existing, oldExtent, structural: true, origin: "edit" });
      return;
    }
    if (!existing) {
      const span = { ...command.base, ...target, key, layer: "own", id: null, version: 1 };
      this.#spans.set(key, span);
      this.#ownCache = null;
      this.#emit("span", { key, span, oldExtent: null, structural: true, origin: "edit" });
      this.select(key);
      return;
    }
    const fields = Object.keys(target).filter((f) => existing[f] !== target[f]);
    const before = {};
    for (const field of fields) before[field] = existing[field];
    Object.assign(existing, target);
    const structural = fields.includes("start") || fields.includes("end");
    if (structural) this.#ownCache = null;
    this.#emit("span", { key, span: existing, oldExtent, structural, fields, before, origin: "edit" });
  }
}
