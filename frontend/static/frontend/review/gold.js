// Editing the gold set on the review page: change a gold span's type, decision or
// extent, add one by selecting text, remove one, with the editor's keys (the letters
// come from the page config, frontend/views.py). Each change is sent at once, in
// order, with the version it read. Any failure (409: someone else changed gold; another
// 4xx; a 5xx or the network) reloads the page state from the server instead of showing
// a change the server may not hold, or writing over the other reviewer; until that
// reload has replaced gold, saved() reports the failure (publication waits for it).
//
// Events (CustomEvent detail): "change" {span, removed, oldExtent, structural} after a
// local change; "replace" {} when the whole gold set was replaced; "stale" {message}
// when the page must reload; "select" {id, old}.

import { api } from "../lib/api.js";
import { offsetsToServer } from "../lib/offsets.js";
import { snapToTokens, stepEdge } from "../lib/tokens.js";

export function goldKeyMaps(entityTypes, identifierTypes) {
  const types = new Map(entityTypes.filter((t) => t.key).map((t) => [t.key, t.name]));
  const decisions = new Map();
  for (const t of identifierTypes) for (const key of t.keys) decisions.set(key, t.name);
  return { types, decisions };
}

export class GoldEditor extends EventTarget {
  #queue = Promise.resolve();
  #pending = 0; // changes queued or in flight
  #failure = null; // why gold on the server may differ from the page, until setGold
  #failures = 0;
  #lastFailure = null;
  #edits = 0; // local changes made so far (a reload fetched before one is out of date)

  // gold: the gold set of the workspace ({id, spans, ...} in page offsets) or null.
  constructor({ documentId, gold, offsets, tokens, entityTypes, identifierTypes, defaults, status }) {
    super();
    this.documentId = documentId;
    this.gold = gold;
    this.offsets = offsets;
    this.tokens = tokens;
    this.keys = goldKeyMaps(entityTypes, identifierTypes);
    this.defaults = defaults;
    this.lastType = defaults.entity_type;
    this.status = status;
    this.selected = null;
  }

  span(id) {
    return this.gold?.spans.find((s) => s.id === id) || null;
  }

  sorted() {
    return [...(this.gold?.spans || [])].sort((a, b) => a.start - b.start || a.end - b.end);
  }

  // gold as the server holds it (reloaded, or replaced by an action).
  setGold(gold) {
    this.gold = gold;
    this.#failure = null;
    if (this.selected !== null && !this.span(this.selected)) this.selected = null;
    this.#emit("replace");
  }

  select(id) {
    const old = this.selected;
    this.selected = id;
    this.#emit("select", { id, old });
  }

  // Run API calls one after the other, so each carries the version the previous returned.
  #enqueue(work) {
    this.#edits += 1;
    this.#pending += 1;
    this.#queue = this.#queue
      .then(work)
      .catch((error) => {
        // Refused or failed: the server may hold something else than the page shows
        // (a 5xx may even have written it), so the page shows what the server holds
        // again, and says why.
        const conflict = error.status === 409 || error.status === 404;
        const message = conflict ? "Gold was changed elsewhere; reloaded." : `Not saved: ${error.message}; gold reloaded from the server.`;
        this.#failure = this.#lastFailure = message;
        this.#failures += 1;
        this.#emit("stale", { message });
      })
      .finally(() => {
        this.#pending -= 1;
      });
    return this.#queue;
  }

  async #ensureGold() {
    if (this.gold) return this.gold;
    const gold = await api("POST", `/api/documents/${this.documentId}/gold/`);
    this.gold = { ...gold, name: "gold", spans: [] };
    this.#emit("replace");
    return this.gold;
  }

  change(id, fields) {
    const span = this.span(id);
    if (!span) return;
    const oldExtent = [span.start, span.end];
    const changed = Object.fromEntries(Object.entries(fields).filter(([k, v]) => span[k] !== v));
    if (!Object.keys(changed).length) return;
    Object.assign(span, changed);
    if (changed.entity_type) this.lastType = changed.entity_type;
    const structural = "start" in changed || "end" in changed;
    this.#emit("change", { span, oldExtent, structural });
    return this.#enqueue(async () => {
      const saved = await api("PATCH", `/api/spans/${span.id}/update/`, {
        version: span.version,
        ...offsetsToServer(changed, this.offsets),
      });
      span.version = saved.version;
      this.status("Gold span saved.", "ok");
    });
  }

  create(start, end) {
    const snapped = snapToTokens(this.tokens, start, end);
    if (!snapped) return false;
    this.#enqueue(async () => {
      const gold = await this.#ensureGold();
      const fields = {
        start: snapped[0],
        end: snapped[1],
        entity_type: this.lastType,
        identifier_type: this.defaults.identifier_type,
        confidential_status: this.defaults.confidential_status,
      };
      const created = await api("POST", `/api/annotation-sets/${gold.id}/spans/create/`, offsetsToServer(fields, this.offsets));
      const span = { ...created, ...fields };
      gold.spans.push(span);
      this.#emit("change", { span, oldExtent: null, structural: true });
      this.select(span.id);
      this.status("Gold span added.", "ok");
    });
    return true;
  }

  remove(id) {
    const span = this.span(id);
    if (!span) return;
    this.gold.spans = this.gold.spans.filter((s) => s !== span);
    if (this.selected === id) this.select(null);
    this.#emit("change", { span: null, removed: span, oldExtent: [span.start, span.end], structural: true });
    return this.#enqueue(async () => {
      await api("DELETE", `/api/spans/${span.id}/delete/?version=${span.version}`);
      this.status("Removed from gold.", "ok");
    });
  }

  resize(edge, direction) {
    const span = this.span(this.selected);
    const next = span && stepEdge(this.tokens, span, edge, direction);
    if (next) this.change(span.id, { start: next[0], end: next[1] });
  }

  jump(direction) {
    const spans = this.sorted();
    if (!spans.length) return;
    const at = spans.findIndex((s) => s.id === this.selected);
    const next = at < 0 ? (direction > 0 ? 0 : spans.length - 1) : (at + direction + spans.length) % spans.length;
    this.select(spans[next].id);
  }

  // The review page's keydown handler: true when the key was an edit of gold.
  handleKey(event) {
    if (event.target instanceof Element && event.target.closest("input, textarea, select")) return false;
    if (event.ctrlKey || event.metaKey) return false;
    const key = event.key;
    if (key === "j") this.jump(1);
    else if (key === "k") this.jump(-1);
    else if (this.selected === null) return false;
    else if (key === "ArrowRight" && event.shiftKey) this.resize("end", 1);
    else if (key === "ArrowLeft" && event.shiftKey) this.resize("end", -1);
    else if (key === "ArrowLeft" && event.altKey) this.resize("start", 1);
    else if (key === "ArrowRight" && event.altKey) this.resize("start", -1);
    else if (key === "Escape") this.select(null);
    else if (key === "Delete" || key === "Backspace") this.remove(this.selected);
    else if (this.keys.decisions.has(key)) this.change(this.selected, { identifier_type: this.keys.decisions.get(key) });
    else if (this.keys.types.has(key)) this.change(this.selected, { entity_type: this.keys.types.get(key) });
    else return false;
    return true;
  }

  // Waits for every change sent so far (tests, actions).
  settled() {
    return this.#queue;
  }

  // Waits for every change sent so far and any sent meanwhile; then why gold on the
  // server may not be what the page shows (a change failed while waiting, or failed
  // earlier and gold was not reloaded since), or null when every change was saved.
  async saved() {
    const failures = this.#failures;
    while (this.#pending) await this.#queue;
    return this.#failure || (this.#failures !== failures ? this.#lastFailure : null);
  }

  get edits() {
    return this.#edits;
  }

  get saving() {
    return this.#pending > 0;
  }

  #emit(type, detail = {}) {
    this.dispatchEvent(new CustomEvent(type, { detail }));
  }
}
