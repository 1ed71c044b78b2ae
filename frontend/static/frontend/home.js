// Queue shortcuts: "n" opens the next document the annotator has not finished.
const UNFINISHED = new Set(["new", "in_progress"]);

function nextUnfinished() {
  for (const row of document.querySelectorAll("section.project tr[data-document-id]")) {
    if (UNFINISHED.has(row.dataset.status)) return row.querySelector("a.open-annotate");
  }
  return null;
}

document.addEventListener("keydown", (event) => {
  if (event.target instanceof Element && event.target.closest("input, textarea, select")) return;
  if (event.key === "n" && !event.ctrlKey && !event.metaKey && !event.altKey) {
    const link = nextUnfinished();
    if (link) window.location.assign(link.href);
  }
});
