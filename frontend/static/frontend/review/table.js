// The review table, one row per region: each set's version with an "adopt" button, and
// the gold version with its decision and a remove button. Drawn as HTML strings and
// wired by delegation; the rows come in chunks as the table is scrolled, since laying
// out a thousand regions times ten versions at once took most of a second.

import { fmt } from "../lib/dom.js";
import { escapeHtml } from "../views/document.js";
import { spanReasons } from "../editor/risk.js";

// A masking-solver suggestion carries its reasons: listed under the chip.
function chip(span, text) {
  const title = `${text.slice(span.start, span.end)} · ${span.start}–${span.end}${span.confidence != null ? ` · confidence ${fmt(span.confidence, 2)}` : ""}${span.note ? ` · ${span.note}` : ""}`;
  const reasons = spanReasons(span).map((line) => `<div class="chip-reason">${escapeHtml(line)}</div>`).join("");
  return `<span class="chip i-${span.identifier_type}" title="${escapeHtml(title)}">${span.entity_type} · ${span.identifier_type}</span>${reasons}`;
}

function goldCell(spans, identifierTypes, text) {
  const rows = spans.map((span) => {
    const options = identifierTypes
      .map((t) => `<option value="${t}"${t === span.identifier_type ? " selected" : ""}>${t}</option>`)
      .join("");
    return `<div class="gold-span" data-span="${span.id}"><a href="#" class="gold-pick" title="Select in the text (keys edit it)">${escapeHtml(text.slice(span.start, span.end).slice(0, 40))}</a> <span class="chip-type">${span.entity_type}</span> <select class="gold-decision" data-span="${span.id}" aria-label="decision">${options}</select> <button class="small secondary gold-remove" title="Remove from gold">×</button></div>`;
  });
  return `<td class="cell-gold">${rows.join("")}</td>`;
}

const FIRST_ROWS = 100;
const MORE_ROWS = 200;

// handlers: {focus(unit), adopt(unit, setId), decide(spanId, value), remove(spanId), pick(spanId)}
export class UnitTable {
  constructor(container, handlers) {
    this.container = container;
    this.units = [];
    this.pending = []; // row strings not drawn yet
    this.more = new IntersectionObserver((entries) => {
      if (entries.some((e) => e.isIntersecting)) this.#drawMore(MORE_ROWS);
    }, { root: container, rootMargin: "400px" });
    container.addEventListener("click", (event) => this.#onClick(event, handlers));
    container.addEventListener("change", (event) => {
      const select = event.target.closest("select.gold-decision");
      if (select) handlers.decide(+select.dataset.span, select.value);
    });
  }

  // columns: the shown sets but gold; gold: the gold set or null.
  render({ units, columns, gold, text, identifierTypes, onlyDisagreements }) {
    this.units = units;
    const head = `<tr><th>Text</th>${columns.map((s) => `<th class="col-${s.kind}">${escapeHtml(s.name)}${s.kind === "human" && s.status === "in_progress" ? " <small class=\"muted\">(in progress)</small>" : ""}</th>`).join("")}<th>gold</th></tr>`;
    const row = (unit, index) => {
      const classes = [unit.disagree ? "disagree" : "agree", unit.unresolved ? "unresolved" : ""].join(" ");
      const cells = columns.map((set) => {
        const spans = unit.bySet.get(set.id);
        const body = spans.length ? spans.map((s) => chip(s, text)).join("") : `<span class="muted">—</span>`;
        return `<td class="cell-${set.kind}" data-set="${escapeHtml(set.name)}" data-set-id="${set.id}">${body}<button class="small secondary adopt" title="Adopt ${escapeHtml(set.name)}'s version into gold">adopt</button></td>`;
      });
      const goldSpans = gold ? unit.bySet.get(gold.id) || [] : [];
      return `<tr class="${classes}" data-unit="${index}" data-start="${unit.start}" data-end="${unit.end}"><td class="unit-text"><a href="#" class="unit-link">${escapeHtml(text.slice(unit.start, unit.end).slice(0, 60))}</a></td>${cells.join("")}${goldCell(goldSpans, identifierTypes, text)}</tr>`;
    };
    // Drawn when they come into view: a row is built from the unit as it is then.
    const rows = [];
    units.forEach((unit, index) => {
      if (!onlyDisagreements || unit.disagree) rows.push(() => row(unit, index));
    });
    this.more.disconnect();
    this.container.innerHTML = `<table class="grid">${head}</table>`;
    const count = rows.length;
    this.pending = rows;
    this.#drawMore(FIRST_ROWS);
    return count;
  }

  #drawMore(count) {
    const table = this.container.firstElementChild;
    table.querySelector("tr.more")?.remove();
    const rows = this.pending.splice(0, count).map((row) => row());
    if (this.pending.length) rows.push(`<tr class="more"><td class="muted">${this.pending.length} more regions…</td></tr>`);
    table.insertAdjacentHTML("beforeend", rows.join(""));
    const sentinel = table.querySelector("tr.more");
    if (sentinel) this.more.observe(sentinel);
  }

  markCurrent(index) {
    for (const row of this.container.querySelectorAll("tr.current")) row.classList.remove("current");
    this.container.querySelector(`tr[data-unit="${index}"]`)?.classList.add("current");
  }

  #onClick(event, handlers) {
    const target = event.target;
    const row = target.closest("tr[data-unit]");
    if (!row) return;
    const unit = this.units[+row.dataset.unit];
    if (target.closest("a.unit-link")) {
      event.preventDefault();
      handlers.focus(unit, +row.dataset.unit);
    } else if (target.closest("button.adopt")) {
      handlers.adopt(unit, +target.closest("td").dataset.setId);
    } else if (target.closest("button.gold-remove")) {
      handlers.remove(+target.closest(".gold-span").dataset.span);
    } else if (target.closest("a.gold-pick")) {
      event.preventDefault();
      handlers.pick(+target.closest(".gold-span").dataset.span);
    }
  }
}
