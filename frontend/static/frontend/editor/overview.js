// The overview strip: a bar as long as the document with a mark wherever unreviewed
// suggestions are shown, so the annotator sees what is left and jumps there by click.
// Marks are pooled per pixel column of the bar (at most a few hundred elements, even for
// thousands of suggestions) and redrawn after a pause, never on each keystroke.

import { el } from "../lib/dom.js";

const COLUMNS = 400;

export class OverviewStrip {
  constructor(node, { store, filters, textLength }) {
    this.node = node;
    this.store = store;
    this.filters = filters;
    this.textLength = Math.max(1, textLength);
    this.timer = null;
    node.hidden = false;
    const later = () => this.schedule();
    store.addEventListener("span", (event) => {
      if (event.detail.structural) later();
    });
    store.addEventListener("rejected", later);
    filters.addEventListener("change", later);
    this.render();
  }

  schedule() {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.render(), 150);
  }

  // Unreviewed suggestions that are shown, grouped by the column their start falls in.
  columns() {
    const buckets = new Map();
    for (const s of this.filters.shownSuggestions()) {
      if (this.store.isReviewed(s)) continue;
      const column = Math.min(COLUMNS - 1, Math.floor((s.start / this.textLength) * COLUMNS));
      const bucket = buckets.get(column);
      if (bucket) bucket.push(s);
      else buckets.set(column, [s]);
    }
    return buckets;
  }

  render() {
    const buckets = this.columns();
    const marks = [...buckets].map(([column, spans]) =>
      el("span", {
        class: `ov-mark t-${spans[0].entity_type}`,
        style: `left: ${(100 * column) / COLUMNS}%`,
        title: `${spans.length} unreviewed: ${spans.slice(0, 3).map((s) => s.entity_type).join(", ")}${spans.length > 3 ? "…" : ""}`,
        dataset: { key: spans[0].key, count: spans.length },
        onclick: () => this.store.select(spans[0].key),
      }),
    );
    const total = [...buckets.values()].reduce((n, spans) => n + spans.length, 0);
    this.node.dataset.unreviewed = total;
    this.node.replaceChildren(el("span", { class: "ov-label muted" }, total ? `${total} unreviewed` : "all reviewed"), el("div", { class: "ov-bar" }, ...marks));
  }
}
