// The conflict panel: for each span someone else changed meanwhile, both values of every
// field that differs, with a choice per field (type, decision, extent, entity,
// confidential status, note). The preselected choice is "Keep mine"'s: the annotator's
// value where they changed it, the other one elsewhere, and for the decision the
// stronger of the two; a weaker decision is saved only when chosen here.

import { el } from "../lib/dom.js";
import { CONFLICT_FIELDS, decisionRank, groupDiffers } from "./sync.js";

function describe(span, text) {
  return span ? `${text.slice(span.start, span.end)} [${span.start}–${span.end}]` : "(deleted)";
}

function shown(group, span, text) {
  if (group.name === "extent") return describe(span, text);
  const value = span[group.fields[0]];
  return value === "" || value === null || value === undefined ? "(none)" : String(value);
}

// A span deleted on one side: kept or dropped whole.
function wholeSpan(key, { sync, store, text }) {
  const mine = store.get(key);
  const theirs = sync.conflicts.get(key);
  return [
    el("p", {}, el("strong", {}, theirs ? "You deleted this span; someone else changed it." : "This span was deleted elsewhere."), " Both versions:"),
    el("table", { class: "grid" }, el("tr", {}, el("th", {}, "Yours"), el("td", {}, describe(mine, text))), el("tr", {}, el("th", {}, "Theirs"), el("td", {}, describe(theirs, text)))),
    el("button", { class: "keep-mine", onclick: () => sync.resolve(key, "mine") }, mine ? "Keep mine (save it again)" : "Keep mine (delete it)"),
    " ",
    el("button", { class: "secondary take-theirs", onclick: () => sync.resolve(key, "theirs") }, theirs ? "Take theirs" : "Take theirs (drop mine)"),
  ];
}

function perField(key, { sync, store, text }) {
  const mine = store.get(key);
  const theirs = sync.conflicts.get(key);
  const picks = sync.defaultPicks(key);
  const groups = CONFLICT_FIELDS.filter((group) => groupDiffers(group, mine, theirs));
  const radio = (group, side) =>
    el(
      "label",
      { class: "choice" },
      el("input", { type: "radio", name: `${key}-${group.name}`, value: side, checked: picks[group.name] === side, dataset: { field: group.name } }),
      " ",
      shown(group, side === "mine" ? mine : theirs, text),
    );
  const rows = groups.map((group) => {
    const weaker = group.name === "decision" && decisionRank(mine.identifier_type) < decisionRank(theirs.identifier_type) ? "mine" : "theirs";
    const hint = group.name === "decision" ? el("td", { class: "muted" }, `choosing ${weaker === "mine" ? "yours" : "theirs"} lowers the decision`) : el("td");
    return el("tr", { dataset: { field: group.name } }, el("th", {}, group.label), el("td", {}, radio(group, "mine")), el("td", {}, radio(group, "theirs")), hint);
  });
  const form = el("table", { class: "grid" }, el("tr", {}, el("th", {}, "Field"), el("th", {}, "Yours"), el("th", {}, `Theirs (v${theirs.version})`), el("th")), rows);
  const chosen = () => {
    const out = {};
    for (const input of form.querySelectorAll("input[type=radio]:checked")) out[input.dataset.field] = input.value;
    return out;
  };
  return [
    el("p", {}, el("strong", {}, `Someone else changed “${text.slice(theirs.start, theirs.end)}” since you read it.`), groups.length ? " Choose per field:" : " Both versions are the same."),
    form,
    el("button", { class: "apply-choices", onclick: () => sync.resolve(key, "mine", chosen()) }, "Save these choices"),
    " ",
    el("button", { class: "secondary keep-mine", title: "your changes, the other values where you changed nothing, never the weaker decision", onclick: () => sync.resolve(key, "mine") }, "Keep my changes"),
    " ",
    el("button", { class: "secondary take-theirs", onclick: () => sync.resolve(key, "theirs") }, "Take theirs"),
  ];
}

export function showConflicts(box, context) {
  const { sync, store } = context;
  box.replaceChildren();
  box.hidden = sync.conflicts.size === 0;
  for (const [key, theirs] of sync.conflicts) {
    const body = store.get(key) && theirs ? perField(key, context) : wholeSpan(key, context);
    box.append(el("div", { class: "conflict", dataset: { key } }, ...body));
  }
}
