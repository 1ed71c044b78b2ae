// Re-identification on the review page: for every version of the document (each
// annotator's set and each machine run) the rank its masks leave the person to protect
// at among the knowledge base's candidates, per model, and the share of words masked
// (GET /api/documents/<id>/reid/versions/). #reid-versions's data-state: "loading",
// "ready", "unavailable" (no person or knowledge base) or "error".

import { api } from "../lib/api.js";
import { el } from "../lib/dom.js";

const NUMBER = new Intl.NumberFormat("en-US");

function percent(share) {
  return `${(100 * share).toFixed(1)}%`;
}

export class ReidVersions {
  constructor(node, { documentId }) {
    this.node = node;
    this.documentId = documentId;
    this.request = 0;
    this.k = el("input", { id: "reid-review-k", type: "number", min: 1, style: "width:4.5em", onchange: () => this.load() });
    this.person = el("span", { id: "reid-review-person", class: "muted" });
    this.body = el("div", { id: "reid-versions", class: "reid-versions" });
    node.replaceChildren(
      el("div", { class: "toolbar" }, el("label", {}, "K ", this.k), el("button", { type: "button", class: "small secondary", onclick: () => this.load() }, "recompute"), this.person),
      this.body,
    );
  }

  async start() {
    try {
      const info = await api("GET", `/api/documents/${this.documentId}/reid/`);
      this.k.value = info.k;
      if (!info.target) {
        this.#unavailable(info.knowledge_bases.length ? "No person chosen for this document yet: the annotators choose one in the editor." : "No knowledge base in this project: nothing to re-identify against.");
        return;
      }
      this.person.textContent = `Person: ${info.target.name || info.target.profile_id} (${info.target.profile_id})`;
    } catch (error) {
      this.#error(error);
      return;
    }
    await this.load();
  }

  async load() {
    const request = ++this.request;
    const k = Math.max(1, Math.round(Number(this.k.value)) || 10);
    this.body.dataset.state = "loading";
    let answer;
    try {
      answer = await api("GET", `/api/documents/${this.documentId}/reid/versions/?k=${k}`);
    } catch (error) {
      if (request === this.request) this.#error(error);
      return;
    }
    if (request !== this.request) return; // a newer K was asked for
    this.#table(answer.versions, k);
  }

  #table(versions, k) {
    const models = [...new Set(versions.flatMap((v) => Object.keys(v.ranks || {})))].sort();
    if (!versions.length) {
      this.body.replaceChildren(el("p", { class: "muted" }, "No version of this document yet."));
      this.body.dataset.state = "ready";
      return;
    }
    this.body.replaceChildren(
      el(
        "table",
        { class: "grid" },
        el("tr", {}, el("th", {}, "Version"), el("th", {}, "Kind"), el("th", { class: "num" }, "Rank"), models.map((m) => el("th", { class: "num" }, m)), el("th", { class: "num" }, "Words masked"), el("th", {}, `Safe at K = ${k}`)),
        versions.map((v) => {
          const safe = v.rank > k; // the best rank of any model
          return el(
            "tr",
            { dataset: { set: v.annotation_set, rank: v.rank, kind: v.kind } },
            el("td", {}, v.label),
            el("td", {}, v.kind),
            el("td", { class: v.rank === 1 ? "num reid-rank-cell reidentified" : "num reid-rank-cell" }, NUMBER.format(v.rank), v.rank === 1 ? " re-identified" : ""),
            models.map((m) => el("td", { class: "num", dataset: { model: m } }, v.ranks?.[m] === undefined ? "n/a" : NUMBER.format(v.ranks[m]))),
            el("td", { class: "num" }, percent(v.share_masked)),
            el("td", { class: safe ? "ok" : "error" }, safe ? "yes" : "no"),
          );
        }),
      ),
      el("p", { class: "muted small-note" }, "Rank: the best any model gives the person (1 = re-identified); safe when every model ranks them below K."),
    );
    this.body.dataset.state = "ready";
  }

  #unavailable(text) {
    this.body.replaceChildren(el("p", { class: "muted" }, text));
    this.body.dataset.state = "unavailable";
  }

  #error(error) {
    if (error.status === 409) {
      this.#unavailable(error.message);
      return;
    }
    this.body.replaceChildren(el("p", { class: "error" }, `Could not compute the ranks: ${error.message}`));
    this.body.dataset.state = "error";
  }
}
