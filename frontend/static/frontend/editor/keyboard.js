// The editor's keys (the list on the page, annotate.html, says the same). The letters
// for types and decisions come with the vocabulary in the page config.

import { $ } from "../lib/dom.js";

// entityTypes: [{name, key}]; identifierTypes: [{name, keys, entity_key}] (page config).
function keyMaps(entityTypes, identifierTypes) {
  const types = new Map();
  for (const t of entityTypes) if (t.key) types.set(t.key, t.name);
  const decisions = new Map();
  const entityDecisions = new Map();
  for (const t of identifierTypes) {
    for (const key of t.keys) decisions.set(key, t.name);
    if (t.entity_key) entityDecisions.set(t.entity_key, t.name);
  }
  return { types, decisions, entityDecisions };
}

// The keydown handler; preview.toggle() switches the masked preview.
export function keyHandler({ store, actions, preview, entityTypes, identifierTypes }) {
  const { types, decisions, entityDecisions } = keyMaps(entityTypes, identifierTypes);
  return (event) => {
    if (event.target instanceof Element && event.target.closest("input, textarea, select")) {
      if (event.key === "Escape") event.target.blur();
      return;
    }
    const key = event.key;
    const ctrl = event.ctrlKey || event.metaKey;
    let handled = true;
    const selected = store.get(store.selected);
    if (ctrl && (key === "z" || key === "Z")) (event.shiftKey ? store.redo() : store.undo());
    else if (ctrl && key === "y") store.redo();
    else if (ctrl) handled = false;
    else if (key === "ArrowRight" && event.shiftKey) actions.resize("end", 1);
    else if (key === "ArrowLeft" && event.shiftKey) actions.resize("end", -1);
    else if (key === "ArrowLeft" && event.altKey) actions.resize("start", 1);
    else if (key === "ArrowRight" && event.altKey) actions.resize("start", -1);
    else if (key === "j" || key === "ArrowRight") actions.jumpSpan(1);
    else if (key === "k" || key === "ArrowLeft") actions.jumpSpan(-1);
    else if (key === "]") actions.jumpSuggestion(1);
    else if (key === "[") actions.jumpSuggestion(-1);
    else if (key === "z") store.undo();
    else if (key === "y") store.redo();
    else if (key === "v") preview.toggle();
    else if (key === "?") $("#help").toggleAttribute("hidden");
    else if (key === "Escape") store.select(null);
    else if (!selected) handled = false;
    else if (entityDecisions.has(key)) actions.decideEntity(entityDecisions.get(key));
    else if (decisions.has(key)) actions.label("identifier_type", decisions.get(key));
    else if (types.has(key)) actions.label("entity_type", types.get(key));
    else if (key === "a") actions.accept(selected.key);
    else if (key === "r") actions.reject(selected.key);
    else if (key === "Delete" || key === "Backspace") store.remove(selected.key);
    else if (key === "g") actions.linkToPrevious();
    else if (key === "G" || key === "N") {
      const field = $(key === "G" ? "#panel-entity" : "#panel-note");
      if (field) field.focus();
      else handled = false;
    } else handled = false;
    if (handled) event.preventDefault();
  };
}
