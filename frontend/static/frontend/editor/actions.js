// What the annotator's keys and buttons do, in terms of the store (edits, selection)
// and the autosave (rejections are recorded at once).

import { snapToTokens, stepEdge } from "../lib/tokens.js";
import { overlaps, snapshot } from "./store.js";
import { decisionRank } from "./sync.js";

export function editorActions({ store, sync, tokens, status }) {
  const selectedSpan = () => store.get(store.selected);
  // Which suggestions the page shows (the filters bar narrows it); jumps skip the rest.
  let isShown = () => true;
  const setVisibility = (predicate) => {
    isShown = predicate;
  };

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
    jump(direction, store.suggestions().filter((s) => isShown(s) && !store.isReviewed(s)));
  }

  // Copies a suggestion into the annotator's own set; the own span's key. A set holds one
  // span per offsets: when the annotator already has one there (accepted before, or
  // drawn by hand) that span takes the suggestion's type, its entity if it has none,
  // and its decision only if stronger, so accepting again never unmasks anything.
  function accept(key) {
    const suggestion = store.get(key);
    if (!suggestion || suggestion.layer !== "machine") return null;
    const existing = store.ownAt(suggestion.start, suggestion.end);
    if (existing) {
      const changes = { entity_type: suggestion.entity_type };
      if (decisionRank(suggestion.identifier_type) > decisionRank(existing.identifier_type)) changes.identifier_type = suggestion.identifier_type;
      if (!existing.entity_id && suggestion.entity_id) changes.entity_id = suggestion.entity_id;
      store.change(existing.key, changes);
      store.select(existing.key);
      return existing.key;
    }
    const attrs = { ...(suggestion.attrs || {}), accepted_from: suggestion.id };
    return store.create({ ...snapshot(suggestion), attrs });
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
    const key = selected.layer === "machine" ? accept(selected.key) : selected.key;
    if (key) store.change(key, { [field]: value });
  }

  function resize(edge, direction) {
    const span = selectedSpan();
    if (!span || span.layer !== "own") return;
    const next = stepEdge(tokens, span, edge, direction);
    if (!next) return;
    if (store.ownAt(next[0], next[1])) {
      status("Another of your spans already covers exactly that text", "warn");
      return;
    }
    store.change(span.key, { start: next[0], end: next[1] });
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
    // One span per offsets: selecting exactly an own span's text selects that span.
    const existing = store.ownAt(snapped[0], snapped[1]);
    if (existing) {
      store.select(existing.key, { scroll: false });
      return true;
    }
    // A new span takes the type of a suggestion it overlaps, else the last type used.
    const hint = store.suggestions().find((s) => overlaps(s, { start: snapped[0], end: snapped[1] }));
    const key = store.create({ start: snapped[0], end: snapped[1], entity_type: hint?.entity_type });
    if (key) store.select(key, { scroll: false });
    return true;
  }

  return { accept, reject, label, resize, decideEntity, linkToPrevious, jumpSpan, jumpSuggestion, createAt, setVisibility };
}
