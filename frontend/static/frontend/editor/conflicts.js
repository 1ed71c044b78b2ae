// The conflict panel: for each span someone else changed meanwhile, both versions and
// the choice between them (the autosave keeps the local change until then).

import { el } from "../lib/dom.js";

export function showConflicts(box, { sync, store, text }) {
  const describe = (s) => (s ? `${text.slice(s.start, s.end)} [${s.start}–${s.end}]` : "(deleted)");
  const row = (label, s) =>
    el("tr", {}, el("th", {}, label), el("td", {}, describe(s)), el("td", {}, s ? s.entity_type : ""), el("td", {}, s ? s.identifier_type : ""), el("td", {}, s ? s.note || "" : ""), el("td", {}, s ? `v${s.version}` : ""));
  box.replaceChildren();
  box.hidden = sync.conflicts.size === 0;
  for (const [key, theirs] of sync.conflicts) {
    box.append(
      el(
        "div",
        { class: "conflict", dataset: { key } },
        el("p", {}, el("strong", {}, "Someone else changed this span since you read it."), " Both versions:"),
        el("table", { class: "grid" }, el("tr", {}, el("th", {}), el("th", {}, "Span"), el("th", {}, "Type"), el("th", {}, "Decision"), el("th", {}, "Note"), el("th", {}, "Version")), row("Yours", store.get(key)), row("Theirs", theirs)),
        el("button", { class: "keep-mine", onclick: () => sync.resolve(key, "mine") }, "Keep mine"),
        " ",
        el("button", { class: "secondary take-theirs", onclick: () => sync.resolve(key, "theirs") }, "Take theirs"),
      ),
    );
  }
}
