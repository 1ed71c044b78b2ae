// After the gold set is published, the annotator may look at gold and at the other
// sets of the document in the editor, read-only: a version switcher above the text
// shows the chosen version in a second, read-only view in place of the editor's text.
// The server sends those sets only after publication (annotation.selectors.access).

import { el } from "../lib/dom.js";
import { DocView } from "../views/document.js";

function label(set) {
  if (set.kind === "gold") return "Gold (published)";
  if (set.kind === "machine") return `${set.name} (machine)`;
  return set.name;
}

// doc: the workspace (page offsets); node: where the switcher goes; editorNode: the
// editor's text; readOnlyNode: the container of the read-only view. Returns false when
// there is nothing to switch to (gold not published).
export function setupPublishedVersions({ doc, node, editorNode, readOnlyNode }) {
  const gold = doc.sets.find((s) => s.kind === "gold" && s.published_at);
  if (!gold) return false;
  const others = doc.sets.filter((s) => !s.mine && s.kind !== "machine" && s !== gold);
  const versions = [gold, ...others];
  const view = new DocView(readOnlyNode, doc.text);
  const select = el(
    "select",
    { id: "version-switch", "aria-label": "Version shown" },
    el("option", { value: "mine" }, "My annotation"),
    versions.map((s) => el("option", { value: String(s.id) }, label(s))),
  );
  select.addEventListener("change", () => {
    const set = versions.find((s) => String(s.id) === select.value);
    editorNode.hidden = Boolean(set);
    readOnlyNode.hidden = !set;
    readOnlyNode.dataset.version = set ? set.name : "";
    if (!set) return;
    const layer = set.kind === "gold" ? "gold" : "human";
    view.setSpans(set.spans.map((span) => ({ ...span, key: `v${span.id}`, layer })));
    view.render();
  });
  node.replaceChildren(el("label", { class: "inline" }, "Show ", select, el("span", { class: "muted" }, " read-only")));
  node.hidden = false;
  return true;
}
