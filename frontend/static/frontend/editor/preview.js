// The masked preview: the text as it would be released from the annotator's own spans.
// The server's release function computes it (POST /api/documents/<id>/release/), the
// one implementation the exports use too, in the style chosen in #preview-style (stars,
// mask, type, numbered: sanitizer.formats.release). The answer says where each
// placeholder landed, so the page highlights them without re-implementing the release.
// It is fetched when the preview opens, when the style changes and, while it is shown,
// again after edits pause (debounced), so a keystroke never waits for the server.
// #preview's data-state: "loading", "ready" or "error"; data-style: the style shown.

import { api } from "../lib/api.js";
import { $, debounce, el } from "../lib/dom.js";
import { offsetMapper, offsetsToServer } from "../lib/offsets.js";

const REFRESH_DELAY_MS = 300;
const STYLE_KEY = "sanitizer.previewStyle";

// The released text as text nodes with one highlighted element per placeholder; the
// placeholders' code point offsets are mapped to the page's UTF-16 ones first.
function releasedFragment(text, placeholders, sourceText, sourceOffsets) {
  const mapper = offsetMapper(text);
  const fragment = document.createDocumentFragment();
  let cursor = 0;
  for (const p of placeholders) {
    const start = mapper.toView(p.start);
    const end = mapper.toView(p.end);
    fragment.append(text.slice(cursor, start));
    const original = sourceText.slice(sourceOffsets.toView(p.source_start), sourceOffsets.toView(p.source_end));
    fragment.append(
      el(
        "span",
        {
          class: `ph seg t-${p.entity_type} i-DIRECT L-own s-first s-last`,
          dataset: { type: p.entity_type, number: p.number ?? "" },
          title: `${p.entity_type}: ${original}`,
        },
        text.slice(start, end),
      ),
    );
    cursor = end;
  }
  fragment.append(text.slice(cursor));
  return fragment;
}

export class MaskedPreview {
  // node: the preview element; textNode: the annotated text it stands in for; bar: the
  // style chooser shown with the preview; offsets: the document's page/server mapper;
  // text: the document's text (by default the rendered text's, which is the same).
  constructor({ node, textNode, button, store, documentId, offsets, text = textNode.textContent, bar = $("#preview-bar"), styleSelect = $("#preview-style") }) {
    Object.assign(this, { node, textNode, button, store, documentId, offsets, text, bar, styleSelect });
    this.request = 0;
    this.scheduled = debounce(() => this.refresh(), REFRESH_DELAY_MS);
    store.addEventListener("span", () => {
      if (!this.shown) return;
      this.node.dataset.state = "loading";
      this.scheduled();
    });
    if (styleSelect) {
      const saved = localStorage.getItem(STYLE_KEY);
      if (saved && [...styleSelect.options].some((o) => o.value === saved)) styleSelect.value = saved;
      else if ([...styleSelect.options].some((o) => o.value === "type")) styleSelect.value = "type";
      styleSelect.addEventListener("change", () => {
        localStorage.setItem(STYLE_KEY, styleSelect.value);
        if (this.shown) this.refresh();
      });
    }
  }

  get shown() {
    return !this.node.hidden;
  }

  get style() {
    return this.styleSelect ? this.styleSelect.value : "type";
  }

  toggle() {
    const showing = this.shown;
    if (showing) {
      this.scheduled.cancel();
      this.request++; // drop answers still on their way
    } else {
      this.node.textContent = "Preparing the masked preview…";
      this.refresh();
    }
    this.node.hidden = showing;
    if (this.bar) this.bar.hidden = showing;
    this.textNode.hidden = !showing;
    this.button.textContent = showing ? "Masked preview (v)" : "Back to annotation (v)";
  }

  async refresh() {
    const request = ++this.request;
    const style = this.style;
    this.node.dataset.state = "loading";
    const spans = this.store.own().map((s) =>
      offsetsToServer(
        { start: s.start, end: s.end, entity_type: s.entity_type, identifier_type: s.identifier_type, entity_id: s.entity_id || "" },
        this.offsets,
      ),
    );
    let content;
    let state = "ready";
    try {
      const released = await api("POST", `/api/documents/${this.documentId}/release/`, { style, spans });
      content = releasedFragment(released.text, released.placeholders, this.text, this.offsets);
    } catch (error) {
      content = `Could not compute the masked preview: ${error.message}`;
      state = "error";
    }
    // An older answer arriving after a newer request is dropped.
    if (request !== this.request) return;
    this.node.replaceChildren(content);
    this.node.dataset.style = style;
    this.node.dataset.state = state;
  }
}
