// The masked preview: the text as it would be released from the annotator's own spans.
// The server's release function computes it (POST /api/documents/<id>/release/), the
// one implementation the exports use too. It is fetched when the preview opens and,
// while it is shown, again after edits pause (debounced), so a keystroke never waits
// for the server. #preview's data-state: "loading", "ready" or "error".

import { api } from "../lib/api.js";
import { debounce } from "../lib/dom.js";
import { offsetsToServer } from "../lib/offsets.js";

const REFRESH_DELAY_MS = 300;

export class MaskedPreview {
  // node: the preview element; textNode: the annotated text it stands in for.
  constructor({ node, textNode, button, store, documentId, offsets }) {
    Object.assign(this, { node, textNode, button, store, documentId, offsets });
    this.request = 0;
    this.scheduled = debounce(() => this.refresh(), REFRESH_DELAY_MS);
    store.addEventListener("span", () => {
      if (!this.shown) return;
      this.node.dataset.state = "loading";
      this.scheduled();
    });
  }

  get shown() {
    return !this.node.hidden;
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
    this.textNode.hidden = !showing;
    this.button.textContent = showing ? "Masked preview (v)" : "Back to annotation (v)";
  }

  async refresh() {
    const request = ++this.request;
    this.node.dataset.state = "loading";
    const spans = this.store.own().map((s) =>
      offsetsToServer({ start: s.start, end: s.end, entity_type: s.entity_type, identifier_type: s.identifier_type }, this.offsets),
    );
    let text;
    let state = "ready";
    try {
      text = (await api("POST", `/api/documents/${this.documentId}/release/`, { style: "type", spans })).text;
    } catch (error) {
      text = `Could not compute the masked preview: ${error.message}`;
      state = "error";
    }
    // An older answer arriving after a newer request is dropped.
    if (request !== this.request) return;
    this.node.textContent = text;
    this.node.dataset.state = state;
  }
}
