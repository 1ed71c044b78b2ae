// Document rendering for long texts with hundreds of spans.
//
// The text is rendered once as a flat run of text nodes and <span class="seg"> elements
// (one per stretch of text covered by the same spans), grouped in inline "blocks" cut at
// newlines or whitespace outside every span. A keystroke that changes a span's labels
// only rewrites the class of that span's segments (index: span key -> elements); adding,
// removing or resizing a span re-renders the one or two blocks it touches.

export const ENTITY_TYPES = ["PERSON", "CODE", "LOC", "ORG", "DEM", "DATETIME", "QUANTITY", "MISC"];
export const IDENTIFIER_TYPES = ["DIRECT", "QUASI", "NO_MASK"];
const BLOCK_CHARS = 1500;

export function escapeHtml(text) {
  return text.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);
}

// Token boundaries: runs of letters/digits, or single other non-space characters.
export function tokenize(text) {
  const starts = [];
  const ends = [];
  const re = /[\p{L}\p{N}]+|[^\s\p{L}\p{N}]/gu;
  let m;
  while ((m = re.exec(text)) !== null) {
    starts.push(m.index);
    ends.push(m.index + m[0].length);
  }
  return { starts: Int32Array.from(starts), ends: Int32Array.from(ends) };
}

function lowerBound(array, value) {
  let lo = 0;
  let hi = array.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (array[mid] < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

// Snap [start, end) outwards to whole tokens; null if it holds no token.
export function snapToTokens(tokens, start, end) {
  const first = lowerBound(tokens.ends, start + 1); // first token ending after start
  let last = lowerBound(tokens.starts, end) - 1; // last token starting before end
  if (first >= tokens.starts.length || last < first) return null;
  return [tokens.starts[first], tokens.ends[last]];
}

// Move one edge of a span by one token: edge "start"|"end", direction -1|+1.
export function stepEdge(tokens, span, edge, direction) {
  const { starts, ends } = tokens;
  if (edge === "end") {
    const i = lowerBound(ends, span.end); // token ending at span.end
    const j = i + direction;
    if (j < 0 || j >= ends.length || ends[j] <= span.start) return null;
    return [span.start, ends[j]];
  }
  const i = lowerBound(starts, span.start);
  const j = i - direction; // direction +1 = extend = move start left
  if (j < 0 || j >= starts.length || starts[j] >= span.end) return null;
  return [starts[j], span.end];
}

// The text as released: masked regions (DIRECT/QUASI) replaced by [TYPE]; overlapping
// regions merge and take the type of their first span (as sanitizer.formats.tab.release_text).
export function releaseText(text, spans) {
  const masked = spans
    .filter((s) => s.identifier_type === "DIRECT" || s.identifier_type === "QUASI")
    .map((s) => [s.start, s.end, s.entity_type])
    .sort((a, b) => a[0] - b[0] || a[1] - b[1] || (a[2] < b[2] ? -1 : a[2] > b[2] ? 1 : 0));
  const pieces = [];
  let cursor = 0;
  let regionEnd = -1;
  for (const [start, end, type] of masked) {
    if (start < regionEnd) {
      regionEnd = Math.max(regionEnd, end);
      cursor = regionEnd;
      continue;
    }
    pieces.push(text.slice(cursor, start), `[${type}]`);
    regionEnd = end;
    cursor = end;
  }
  pieces.push(text.slice(cursor));
  return pieces.join("");
}

export class DocView {
  // classesFor(keys, doc) -> class string for a segment covered by the spans ``keys``.
  constructor(container, text, { classesFor }) {
    this.container = container;
    this.text = text;
    this.classesFor = classesFor;
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
