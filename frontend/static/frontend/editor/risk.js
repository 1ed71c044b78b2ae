// Explicit privacy risk in the editor: why a masking-solver suggestion is there (its
// reasons), and the privacy/utility dial that re-solves the document on the server and
// draws the masks it would suggest.
//
// The dial's masks are an overlay (the CSS Custom Highlight API over the text nodes),
// not spans: nothing is written, and the annotator's spans, the store and the sync are
// untouched. Moving a control re-solves after a short pause; an answer older than the
// latest request is dropped.

import { api } from "../lib/api.js";
import { debounce, el } from "../lib/dom.js";

const HIGHLIGHT = "risk-mask";
const SOLVE_PAUSE_MS = 150;
const LISTED_MASKS = 40;

// One line per reason of a risk-based suggestion ("LM: log p = −6.1 < −4"); the
// measures write their reasons for people, so they are shown as they come.
export function reasonLines(reasons) {
  if (!Array.isArray(reasons)) return [];
  return reasons.map((r) => r.text || `${r.measure}: ${Number(r.score).toFixed(2)}`);
}

export function spanReasons(span) {
  return reasonLines((span.attrs || {}).reasons);
}

function percent(share) {
  return `${(100 * share).toFixed(1)}%`;
}

export class RiskDial {
  // view: the editor's DocView (for DOM positions); offsets: page <-> server offsets;
  // risk: the page config's {measures, settings}.
  constructor(node, { documentId, view, store, offsets, risk }) {
    this.node = node;
    this.documentId = documentId;
    this.view = view;
    this.offsets = offsets;
    this.masks = [];
    this.latest = 0;
    this.solve = debounce(() => this.#solve(), SOLVE_PAUSE_MS);
    this.highlight = typeof Highlight === "function" && CSS.highlights ? new Highlight() : null;
    if (this.highlight) CSS.highlights.set(HIGHLIGHT, this.highlight);
    this.#render(risk);
    // A structural edit re-renders blocks of text: the overlay's ranges follow it.
    store.addEventListener("span", ({ detail }) => {
      if (detail.structural) this.#draw();
    });
  }

  #render({ measures, settings }) {
    const s = settings;
    const number = (id, value, attrs) =>
      el("input", { id, type: "number", value, style: "width:4.5em", oninput: () => this.solve(), ...attrs });
    this.threshold = el("input", {
      id: "risk-threshold",
      type: "range",
      min: 0,
      max: 20,
      step: 0.5,
      value: s.threshold,
      oninput: () => {
        this.thresholdOut.textContent = this.threshold.value;
        this.solve();
      },
    });
    this.thresholdOut = el("output", { id: "risk-threshold-value" }, s.threshold);
    this.k = number("risk-k", s.k, { min: 1 });
    this.arity = number("risk-arity", s.max_arity, { min: 1, max: 4 });
    this.measures = measures.map((name) =>
      el("input", { type: "checkbox", class: "risk-measure", value: name, checked: s.measures.includes(name), onchange: () => this.solve() }),
    );
    this.stats = el("p", { id: "risk-stats", class: "risk-stats muted" }, "Open to see the masks the solver suggests.");
    this.list = el("ol", { id: "risk-masks", class: "risk-masks" });
    this.show = el("input", { type: "checkbox", id: "risk-show", checked: true, onchange: () => this.#draw() });
    const details = el(
      "details",
      { id: "risk-dial", class: "risk-dial" },
      el("summary", {}, "Privacy/utility dial"),
      el("label", {}, "Threshold (nats) ", this.threshold, " ", this.thresholdOut),
      el("div", { class: "row" }, el("label", {}, "k ", this.k), el("label", {}, "max arity ", this.arity)),
      el("div", { class: "row" }, this.measures.map((box) => el("label", { class: "inline-check" }, box, ` ${box.value}`))),
      el("label", { class: "inline-check" }, this.show, " draw suggested masks"),
      this.stats,
      this.list,
    );
    details.addEventListener("toggle", () => {
      if (details.open && !this.latest) this.#solve();
    });
    this.node.replaceChildren(details);
    this.node.hidden = false;
  }

  settings() {
    return {
      threshold: Number(this.threshold.value),
      k: Number(this.k.value),
      max_arity: Number(this.arity.value),
      measures: this.measures.filter((box) => box.checked).map((box) => box.value),
    };
  }

  async #solve() {
    this.solve.cancel();
    const ticket = ++this.latest;
    this.stats.dataset.state = "solving";
    let answer;
    try {
      answer = await api("POST", `/api/documents/${this.documentId}/risk/solve/`, this.settings());
    } catch (error) {
      if (ticket !== this.latest) return;
      this.masks = [];
      this.#draw();
      this.list.replaceChildren();
      this.stats.className = "risk-stats error";
      this.stats.textContent = error.status === 409 ? error.message : `Could not solve: ${error.message}`;
      this.stats.dataset.state = error.status === 409 ? "no-assessment" : "error";
      return;
    }
    if (ticket !== this.latest) return; // a later request is on its way
    this.masks = answer.masks.map((m) => ({ ...m, start: this.offsets.toView(m.start), end: this.offsets.toView(m.end) }));
    this.#draw();
    this.#describe(answer);
  }

  #describe(answer) {
    const { stats } = this;
    stats.className = "risk-stats";
    stats.textContent = `${percent(answer.share_masked)} of the text masked · ${answer.masks.length} masks · ${answer.risky} risky combinations · solved in ${answer.solve_ms.toFixed(answer.solve_ms < 10 ? 1 : 0)} ms`;
    Object.assign(stats.dataset, { state: "solved", share: answer.share_masked, risky: answer.risky, masks: answer.masks.length });
    const text = this.view.text;
    this.list.replaceChildren(
      ...this.masks.slice(0, LISTED_MASKS).map((m) =>
        el("li", {}, el("strong", {}, text.slice(m.start, m.end)), m.label ? ` ${m.label}` : "", reasonLines(m.reasons).map((line) => el("div", { class: "explain" }, line))),
      ),
      this.masks.length > LISTED_MASKS ? el("li", { class: "muted" }, `… and ${this.masks.length - LISTED_MASKS} more`) : "",
    );
  }

  #draw() {
    if (!this.highlight) return;
    this.highlight.clear();
    if (!this.show.checked) return;
    for (const mask of this.masks) {
      const range = document.createRange();
      range.setStart(...this.view.positionOf(mask.start));
      range.setEnd(...this.view.positionOf(mask.end));
      this.highlight.add(range);
    }
  }
}
