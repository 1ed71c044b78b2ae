// The document view shared by the editor and the review page: loading a document's
// workspace, and rendering a long text with hundreds of spans.
//
// The text is rendered once as a flat run of text nodes and <span class="seg"> elements
// (one per stretch of text covered by the same spans), grouped in inline "blocks" cut at
// newlines or whitespace outside every span. A keystroke that changes a span's labels
// only rewrites the class of that span's segments (index: span key -> elements); adding,
// removing or resizing a span re-renders the one or two blocks it touches.
//
// A segment's classes: t-<entity type> (colour), i-<identifier type> (line style) and
// L-<layer> (own, human, gold, machine, or dis for disagreement regions) of the
// innermost span covering it; app.css draws them.

import { api } from "../lib/api.js";
import { offsetMapper, spansToView } from "../lib/offsets.js";

const BLOCK_CHARS = 1500;

// A document with every set the user may see, spans in page offsets; ``offsets`` maps
// offsets between page and server (see lib/offsets.js).
export async function loadWorkspace(documentId) {
  const doc = await api("GET", `/api/documents/${documentId}/workspace/`);
  const offsets = offsetMapper(doc.text);
  spansToView(doc, offsets);
  return { doc, offsets };
}

export function escapeHtml(text) {
  return text.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);
}

// The shortest (innermost) of spans covering the same stretch of text.
export function innermost(spans) {
  return spans.reduce((a, b) => (b.end - b.start < a.end - a.start ? b : a));
}

export function spanClasses(span) {
  const classes = [];
  if (span.entity_type) classes.push(`t-${span.entity_type}`);
  if (span.identifier_type) classes.push(`i-${span.identifier_type}`);
  classes.push(`L-${span.layer}`);
  return classes;
}

export class DocView {
  // classesFor(keys) -> class string for a segment covered by the spans ``keys``; by
  // default the innermost span's classes.
  constructor(container, text, { classesFor } = {}) {
    this.container = container;
    this.text = text;
    this.classesFor = classesFor || ((keys) => spanClasses(innermost(keys.map((k) => this.spans.get(k)))).join(" "));
    this.spans = new Map(); // key -> {start, end, ...}
    this.index = new Map(); // key -> [segment elements]
    this.blocks = []; // [{start, end, el}] sorted
  }

  setSpans(spans) {
    this.spans = new Map(spans.map((s) => [s.key, s]));
  }

  _cuts() {
    // inside[c] > 0 when a span starts before c and ends after it: no cut there.
    const n = this.text.length;
    const diff = new Int32Array(n + 2);
    for (const s of this.spans.values()) {
      diff[s.start + 1] += 1;
      diff[s.end] -= 1;
    }
    const cuts = [0];
    let depth = 0;
    let last = 0;
    for (let c = 1; c < n; c++) {
      depth += diff[c];
      if (depth > 0) continue;
      const prev = this.text.charCodeAt(c - 1);
      if (prev === 10 || (c - last >= BLOCK_CHARS && (prev === 32 || prev === 9))) {
        cuts.push(c);
        last = c;
      }
    }
    cuts.push(n);
    return cuts;
  }

  _spansIn(start, end) {
    const out = [];
    for (const s of this.spans.values()) if (s.start < end && s.end > start) out.push(s);
    return out;
  }

  _blockHtml(start, end, spans) {
    const points = new Set([start, end]);
    for (const s of spans) {
      points.add(Math.max(s.start, start));
      points.add(Math.min(s.end, end));
    }
    const bounds = [...points].sort((a, b) => a - b);
    const parts = [];
    for (let i = 0; i + 1 < bounds.length; i++) {
      const a = bounds[i];
      const b = bounds[i + 1];
      const piece = escapeHtml(this.text.slice(a, b));
      const covering = spans.filter((s) => s.start <= a && s.end >= b);
      if (!covering.length) {
        parts.push(piece);
        continue;
      }
      const keys = covering.map((s) => s.key);
      const edges = [];
      if (covering.some((s) => s.start === a)) edges.push("s-first");
      if (covering.some((s) => s.end === b)) edges.push("s-last");
      parts.push(
        `<span class="seg ${this.classesFor(keys)} ${edges.join(" ")}" data-k="${keys.join(" ")}">${piece}</span>`,
      );
    }
    return parts.join("");
  }

  _indexBlock(blockEl) {
    for (const seg of blockEl.querySelectorAll(".seg")) {
      for (const key of seg.dataset.k.split(" ")) {
        let list = this.index.get(key);
        if (!list) this.index.set(key, (list = []));
        list.push(seg);
      }
    }
  }

  render() {
    const cuts = this._cuts();
    const sorted = [...this.spans.values()].sort((a, b) => a.start - b.start);
    const html = [];
    let pointer = 0;
    for (let i = 0; i + 1 < cuts.length; i++) {
      const start = cuts[i];
      const end = cuts[i + 1];
      const inBlock = [];
      while (pointer < sorted.length && sorted[pointer].start < end) inBlock.push(sorted[pointer++]);
      html.push(
        `<span class="blk" data-s="${start}" data-e="${end}">${this._blockHtml(start, end, inBlock)}</span>`,
      );
    }
    this.container.innerHTML = html.join("");
    this.index = new Map();
    this.blocks = [];
    for (const blockEl of this.container.children) {
      this.blocks.push({ start: +blockEl.dataset.s, end: +blockEl.dataset.e, el: blockEl });
      this._indexBlock(blockEl);
    }
  }

  // Re-render the blocks overlapping [start, end) as one block (after a structural change).
  refreshRange(start, end) {
    let first = this.blocks.findIndex((b) => b.end > start);
    if (first < 0) first = this.blocks.length - 1;
    let last = first;
    while (last + 1 < this.blocks.length && this.blocks[last + 1].start < end) last++;
    const merged = { start: this.blocks[first].start, end: this.blocks[last].end };
    for (let i = first; i <= last; i++) {
      for (const seg of this.blocks[i].el.querySelectorAll(".seg")) {
        for (const key of seg.dataset.k.split(" ")) {
          const list = this.index.get(key);
          if (list) {
            const kept = list.filter((e) => e !== seg);
            if (kept.length) this.index.set(key, kept);
            else this.index.delete(key);
          }
        }
      }
    }
    const blockEl = document.createElement("span");
    blockEl.className = "blk";
    blockEl.dataset.s = merged.start;
    blockEl.dataset.e = merged.end;
    blockEl.innerHTML = this._blockHtml(merged.start, merged.end, this._spansIn(merged.start, merged.end));
    this.blocks[first].el.before(blockEl);
    for (let i = first; i <= last; i++) this.blocks[i].el.remove();
    this.blocks.splice(first, last - first + 1, { ...merged, el: blockEl });
    this._indexBlock(blockEl);
  }

  // Structural change of one span (added, removed or moved): old and new extents.
  spanChanged(key, oldExtent, newSpan) {
    if (newSpan) this.spans.set(key, newSpan);
    else this.spans.delete(key);
    const starts = [oldExtent?.[0], newSpan?.start].filter((v) => v !== undefined);
    const ends = [oldExtent?.[1], newSpan?.end].filter((v) => v !== undefined);
    this.refreshRange(Math.min(...starts), Math.max(...ends));
  }

  // Label change only: rewrite the classes of the span's own segments.
  restyle(key) {
    for (const seg of this.index.get(key) || []) {
      const keys = seg.dataset.k.split(" ");
      const edges = [];
      if (seg.classList.contains("s-first")) edges.push("s-first");
      if (seg.classList.contains("s-last")) edges.push("s-last");
      if (seg.classList.contains("sel")) edges.push("sel");
      seg.className = `seg ${this.classesFor(keys)} ${edges.join(" ")}`;
    }
  }

  elements(key) {
    return this.index.get(key) || [];
  }

  // Character offset of a DOM position inside the container.
  offsetOf(node, offset) {
    const blockEl = (node.nodeType === 1 ? node : node.parentElement)?.closest(".blk");
    if (!blockEl || !this.container.contains(blockEl)) {
      // A position between blocks: the container itself.
      if (node === this.container) {
        const child = this.container.children[offset];
        return child ? +child.dataset.s : this.text.length;
      }
      return null;
    }
    const range = document.createRange();
    range.setStart(blockEl, 0);
    range.setEnd(node, offset);
    return +blockEl.dataset.s + range.toString().length;
  }

  // DOM position of a character offset (for tests and scrolling).
  positionOf(offset) {
    const block = this.blocks.find((b) => b.start <= offset && offset < b.end) || this.blocks.at(-1);
    const walker = document.createTreeWalker(block.el, NodeFilter.SHOW_TEXT);
    let remaining = offset - block.start;
    let node;
    while ((node = walker.nextNode())) {
      if (remaining <= node.data.length) return [node, remaining];
      remaining -= node.data.length;
    }
    return [block.el, block.el.childNodes.length];
  }
}
