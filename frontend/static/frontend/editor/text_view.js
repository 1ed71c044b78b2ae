// The editor's text: the shared document view drawn from the store and kept in step
// with its events (a label change restyles the span's segments, a structural change
// re-renders the blocks it touches); selecting text creates a span, clicking selects.

import { $ } from "../lib/dom.js";
import { DocView, innermost, spanClasses } from "../views/document.js";
import { overlaps } from "./store.js";

export class EditorTextView {
  // onSelectText(start, end): the annotator selected the text [start, end); true when
  // it held a span's worth of text.
  constructor(container, text, { store, onSelectText }) {
    this.store = store;
    this.onSelectText = onSelectText;
    this.justCreated = false;
    // Which suggestions the filters bar shows (annotate.js sets it); counts say the rest.
    this.isShown = () => true;
    this.view = new DocView(container, text, { classesFor: (keys) => this.classesFor(keys) });
    this.view.setSpans(store.all());
    this.view.render();
    store.addEventListener("span", (event) => this.#onSpan(event.detail));
    store.addEventListener("select", (event) => this.#onSelect(event.detail));
    store.addEventListener("rejected", (event) => {
      this.restyle(event.detail.key);
      this.updateCounts();
    });
    container.addEventListener("mouseup", () => this.#onMouseUp());
    container.addEventListener("click", (event) => this.#onClick(event));
  }

  get container() {
    return this.view.container;
  }

  classesFor(keys) {
    // The own span wins over suggestions; among equals the shortest (innermost) wins.
    const store = this.store;
    const spans = keys.map((k) => store.get(k)).filter(Boolean);
    const own = spans.filter((s) => s.layer === "own");
    const top = innermost(own.length ? own : spans);
    const classes = spanClasses(top);
    if (own.length && spans.length > own.length) classes.push("has-sugg");
    if (top.layer === "machine") {
      if (store.isRejected(top)) classes.push("rejected");
      else if (!store.isReviewed(top)) classes.push("unreviewed");
    }
    if (own.length > 1 || (spans.length > 1 && !own.length)) classes.push("stacked");
    if (top.saveState) classes.push(`save-${top.saveState}`); // not saved: sync.js
    return classes.join(" ");
  }

  restyle(key) {
    this.view.restyle(key);
    // Suggestions under an own span change their "reviewed" look with it.
    const span = this.store.get(key);
    if (span && span.layer === "own") {
      for (const s of this.store.suggestions()) if (overlaps(s, span)) this.view.restyle(s.key);
    }
    this.#markSelected();
  }

  updateCounts() {
    const own = this.store.own();
    const unreviewed = this.store.suggestions().filter((s) => !this.store.isReviewed(s));
    const shown = unreviewed.filter((s) => this.isShown(s)).length;
    const hidden = unreviewed.length - shown;
    $("#counts").textContent = `${own.length} spans · ${shown} unreviewed suggestions${hidden ? ` (${hidden} more hidden by the filters)` : ""}`;
  }

  #markSelected() {
    const selected = this.store.selected;
    if (selected) for (const seg of this.view.elements(selected)) seg.classList.add("sel");
  }

  #onSpan({ key, span, oldExtent, structural }) {
    if (!structural) {
      this.restyle(key);
      return;
    }
    this.view.spanChanged(key, oldExtent, span);
    this.#markSelected();
    this.updateCounts();
  }

  #onSelect({ key, old, scroll }) {
    if (old && old !== key) for (const seg of this.view.elements(old)) seg.classList.remove("sel");
    if (!key) return;
    const segs = this.view.elements(key);
    for (const seg of segs) seg.classList.add("sel");
    if (scroll && segs.length) segs[0].scrollIntoView({ block: "nearest" });
  }

  #onMouseUp() {
    const selection = window.getSelection();
    if (!selection || selection.isCollapsed || !selection.rangeCount) return;
    const range = selection.getRangeAt(0);
    if (!this.container.contains(range.commonAncestorContainer)) return;
    const a = this.view.offsetOf(range.startContainer, range.startOffset);
    const b = this.view.offsetOf(range.endContainer, range.endOffset);
    if (a === null || b === null || a === b) return;
    selection.removeAllRanges();
    if (!this.onSelectText(Math.min(a, b), Math.max(a, b))) return;
    // The click that ends the drag must not select another span.
    this.justCreated = true;
    setTimeout(() => {
      this.justCreated = false;
    }, 0);
  }

  #onClick(event) {
    if (this.justCreated) {
      this.justCreated = false;
      return;
    }
    const seg = event.target.closest(".seg");
    if (!seg || !seg.isConnected || !window.getSelection().isCollapsed) return;
    const keys = seg.dataset.k.split(" ");
    // Repeated clicks cycle through stacked spans; own spans come first.
    const rank = (key) => (this.store.get(key).layer === "own" ? -1 : 1);
    keys.sort((x, y) => rank(x) - rank(y));
    const at = keys.indexOf(this.store.selected);
    this.store.select(keys[(at + 1) % keys.length], { scroll: false });
  }
}
