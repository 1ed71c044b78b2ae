// The side panel (the selected span's fields and actions) and the tooltip over spans.

import { $, el } from "../lib/dom.js";
import { spanReasons } from "./risk.js";

function describe(span) {
  const parts = [`${span.entity_type} · ${span.identifier_type}`];
  parts.push(span.layer === "own" ? "your decision" : `suggestion from ${span.source}`);
  if (span.confidence !== null && span.confidence !== undefined) parts.push(`confidence ${(+span.confidence).toFixed(2)}`);
  return parts.join(" — ");
}

// Why distant labelling masked a span: the combination of terms and how many persons
// share it; for the masking solver, the reasons of the combinations it broke.
function explanation(span) {
  const attrs = span.attrs || {};
  const reasons = spanReasons(span);
  if (reasons.length) return reasons.join(" · ");
  if (Array.isArray(attrs.combination)) {
    const unit = attrs.count === 1 ? "person" : "persons";
    return `${attrs.combination.join(" + ")} → ${attrs.count} ${unit}`;
  }
  return "";
}

export class SpanPanel {
  // vocabulary: {entityTypes, identifierTypes} (names, from the page config) and
  // entityDecisionKeys (e.g. "Shift+D / Q / X").
  constructor(node, { store, actions, text, vocabulary }) {
    this.node = node;
    this.store = store;
    this.actions = actions;
    this.text = text;
    this.vocabulary = vocabulary;
    store.addEventListener("select", () => this.render());
    store.addEventListener("rejected", () => this.render());
    store.addEventListener("span", ({ detail }) => {
      if (!detail.span || detail.origin === "server" || detail.key === store.selected) this.render();
    });
  }

  #select(id, span, field, options, disabled) {
    return el(
      "select",
      { id, disabled, onchange: (e) => this.store.change(span.key, { [field]: e.target.value }) },
      options.map((t) => el("option", { value: t, selected: t === span[field] }, t)),
    );
  }

  render() {
    const { store, actions } = this;
    const panel = this.node;
    const span = store.get(store.selected);
    panel.replaceChildren();
    if (!span) {
      panel.append(el("p", { class: "muted" }, "Select a span (click it, or j / k), or select text to create one."));
      return;
    }
    const own = span.layer === "own";
    const readOnly = !own || !store.canEdit();
    panel.append(
      el("h3", {}, own ? "Your span" : "Machine suggestion"),
      el("blockquote", { class: "span-text" }, this.text.slice(span.start, span.end)),
      el("p", { class: "muted" }, `${span.start}–${span.end} · ${describe(span)}`),
    );
    const reasons = spanReasons(span);
    const why = explanation(span);
    if (reasons.length) panel.append(el("div", { class: "explain reasons" }, el("strong", {}, "Why masked:"), el("ul", {}, reasons.map((line) => el("li", {}, line)))));
    else if (why) panel.append(el("p", { class: "explain" }, el("strong", {}, "Why masked: "), why));
    const { entityTypes, identifierTypes } = this.vocabulary;
    panel.append(
      el("label", {}, "Type ", this.#select("panel-type", span, "entity_type", entityTypes, readOnly)),
      el("label", {}, "Decision ", this.#select("panel-decision", span, "identifier_type", identifierTypes, readOnly)),
    );
    if (own) {
      const entities = [...new Set(store.own().map((s) => s.entity_id).filter(Boolean))].sort();
      const entityInput = el("input", {
        id: "panel-entity",
        list: "entity-ids",
        value: span.entity_id || "",
        disabled: readOnly,
        placeholder: "entity id (co-reference)",
        onchange: (e) => store.change(span.key, { entity_id: e.target.value.trim() }),
      });
      const mentions = span.entity_id ? store.own().filter((s) => s.entity_id === span.entity_id).length : 0;
      panel.append(
        el("label", {}, "Entity ", entityInput),
        el("datalist", { id: "entity-ids" }, entities.map((id) => el("option", { value: id }))),
        el("p", { class: "muted" }, span.entity_id ? `${mentions} mention(s); ${this.vocabulary.entityDecisionKeys} decides for all of them` : "g: link to the previously selected span's entity"),
        el(
          "label",
          {},
          "Note ",
          el("textarea", {
            id: "panel-note",
            rows: 2,
            disabled: readOnly,
            onchange: (e) => store.change(span.key, { note: e.target.value }),
          }, span.note || ""),
        ),
      );
      if (!readOnly) panel.append(el("button", { class: "danger", onclick: () => store.remove(span.key) }, "Delete (Del)"));
    } else if (store.canEdit()) {
      panel.append(
        el("div", { class: "row" },
          el("button", { onclick: () => actions.accept(span.key) }, "Accept (a)"),
          el("button", { class: "secondary", onclick: () => actions.reject(span.key) }, store.isRejected(span) ? "Un-reject (r)" : "Reject (r)"),
        ),
      );
    }
  }
}

export function setupTooltip(container, store) {
  const tip = $("#tooltip");
  container.addEventListener("mouseover", (event) => {
    const seg = event.target.closest(".seg");
    if (!seg) return;
    const lines = seg.dataset.k
      .split(" ")
      .map((k) => store.get(k))
      .filter(Boolean)
      .map((s) => {
        const why = explanation(s);
        return el("div", { class: "tip-line" }, describe(s), why ? el("div", { class: "explain" }, `Why: ${why}`) : null, s.note ? el("div", { class: "muted" }, `Note: ${s.note}`) : null);
      });
    tip.replaceChildren(...lines);
    const rect = seg.getBoundingClientRect();
    tip.style.left = `${Math.max(4, rect.left + window.scrollX)}px`;
    tip.style.top = `${rect.bottom + window.scrollY + 4}px`;
    tip.hidden = false;
  });
  container.addEventListener("mouseout", (event) => {
    if (!event.relatedTarget || !event.relatedTarget.closest?.(".seg")) tip.hidden = true;
  });
}
