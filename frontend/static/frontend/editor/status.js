// The save-state badge of the editor ("Unsaved changes", "All changes saved", errors).

export function setStatus(text, kind = "") {
  const node = document.getElementById("save-status");
  node.textContent = text;
  node.className = `save-status ${kind}`;
}
