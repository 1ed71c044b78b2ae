// The save-state badge of the editor ("Unsaved changes", "All changes saved", errors),
// with a link when there is somewhere to go (the login page when the session ended).

import { el } from "../lib/dom.js";

export function setStatus(text, kind = "", link = null) {
  const node = document.getElementById("save-status");
  node.textContent = text;
  node.className = `save-status ${kind}`;
  if (link) {
    node.append(" ", el("a", { href: link.href, target: "_blank", rel: "noopener", class: "status-link" }, link.label));
  }
}
