// What the annotator's keys and buttons do, in terms of the store (edits, selection)
// and the autosave (rejections are recorded at once).

import { snapToTokens, stepEdge } from "../lib/tokens.js";
import { overlaps, snapshot } from "./store.js";

export function editorActions({ store, sync, tokens, status }) {
  const selectedSpan = () => store.get(store.selected);

  function jump(direction, list) {
    if (!list.length) return;
    const current = selectedSpan();
    const pos = current ? current.start : direction > 0 ? -1 : Infinity;
    const candidates =
      direction > 0
        ? list.filter((s) => s.start > pos || (s.start === pos && current && s.key > current.key))
        : list.filter((s) => s.start < pos).reverse();
    const target = candidates[0] || (direction > 0 ? list[0] : list.at(-1));
    store.select(target.key);
  }

  function jumpSpan(direction) {
    jump(direction, store.all().sort((a, b) => a.start - b.start || (a.key < b.key ? -1 : 1)));
  }

  function jumpSuggestion(direction) {
    jump(direction, store.suggestions().filter((s) => !store.isReviewed(s)));
  }

  // Copies a suggestion into the annotator's own set.
  function accept(key) {
    const suggestion = store.get(key);
    if (!suggestion || suggestion.layer !== "machine") return;
    const attrs = { ...(suggestion.attrs || {}), accepted_from: suggestion.id };
    store.create({ ...snapshot(suggestion), attrs });
  }

  async function reject(key) {
    const suggestion = store.get(key);
    const rejected = store.toggleRejected(key);
    if (rejected === null) return;
    try {
      await sync.recordRejection(suggestion.id, rejected);
    } catch (error) {
      status(`Could not record the rejection: ${error.message}`, "error");
    }
    if (rejected) jumpSuggestion(1);
  }

  // Sets a field of the selected span; a selected suggestion is accepted first.
  function label(field, value) {
    const selected = selectedSpan();
    if (!selected) return;
    if (selected.layer === "machine") accept(selected.key);
    store.change(store.selected, { [field]: value });
  }

  function resize(edge, direction) {
    const span = selectedSpan();
    if (!span || span.layer !== "own") return;
    const next = stepEdge(tokens, span, edge, direction);
    if (next) store.change(span.key, { start: next[0], end: next[1] });
  }

  // The decision for every mention of the selected span's entity.
  function decideEntity(identifierType) {
    const span = selectedSpan();
    if (!span || span.layer !== "own") return;
    if (!span.entity_id) {
      store.change(span.key, { identifier_type: identifierType });
      return;
    }
    // One undoable step per mention: each goes through the same version-checked save.
    for (const mention of store.own().filter((s) => s.entity_id === span.entity_id)) {
      store.change(mention.key, { identifier_type: identifierType });
    }
  }

  function linkToPrevious() {
    const span = selectedSpan();
    const other = store.get(store.previous);
    if (!span || !other || span.layer !== "own" || other.layer !== "own" || span === other) {
      status("Select the mention to link to, then the mention to link, and press g", "warn");
      return;
    }
    let entity = other.entity_id;
    if (!entity) {
      entity = `E${Date.now().toString(36)}`;
      store.change(other.key, { entity_id: entity });
    }
    store.change(span.key, { entity_id: entity });
  }

  // A new span over the selected text [start, end), snapped to whole tokens; false when
  // the text holds no token.
  function createAt(start, end) {
    const snapped = snapToTokens(tokens, start, end);
    if (!snapped) return false;
    // A new span takes the type of a suggestion it overlaps, else the last type used.
    const hint = store.suggestions().find((s) => overlaps(s, { start: snapped[0], end: snapped[1] }));
    const key = store.create({ start: snapped[0], end: snapped[1], entity_type: hint?.entity_type });
    if (key) store.select(key, { scroll: false });
    return true;
  }

  return { accept, reject, label, resize, decideEntity, linkToPrevious, jumpSpan, jumpSuggestion, createAt };
}
