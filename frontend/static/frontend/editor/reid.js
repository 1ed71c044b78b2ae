// Re-identification in the editor: the rank of the person to protect among every
// candidate of the knowledge base under the annotator's current masks (every own span
// decided DIRECT or QUASI, saved or not), the top candidates and what links each of them
// to the text, and "mask until rank > K" (the server's greedy de-identification) whose
// spans the annotator accepts as QUASI decisions (saved and undoable like any edit).
//
// The rank follows every decision: the store's change events ask the server again, at
// most one request at a time; an answer for masks that are no longer the page's is
// dropped and the newest masks are asked for at once. #reid-rank's data-state says
// "updating", "ready" or "error" (an error clears the rank: it is never left stale);
// data-signature names the masks and K the shown rank is for (reidSignature).

import { api } from "../lib/api.js";
import { el } from "../lib/dom.js";
import { overlaps } from "./store.js";

const MASKING = new Set(["DIRECT", "QUASI"]);
const HIGHLIGHT = "reid-suggest";
const TOP = 5;
const NUMBER = new Intl.NumberFormat("en-US");

// The annotator's masks in server offsets, sorted and without repeats.
export function currentMasks(store, offsets) {
  const seen = new Set();
  const masks = [];
  for (const span of store.own()) {
    if (!MASKING.has(span.identifier_type)) continue;
    const mask = [offsets.toServer(span.start), offsets.toServer(span.end)];
    const key = `${mask[0]}:${mask[1]}`;
    if (seen.has(key)) continue;
    seen.add(key);
    masks.push(mask);
  }
  return masks.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
}

// A short name of (masks, K): the benchmark and the tests wait for the rank of theirs.
export function reidSignature(masks, k) {
  const text = `${k}|${masks.map((m) => m.join("-")).join(",")}`;
  let hash = 5381;
  for (let i = 0; i < text.length; i++) hash = ((hash * 33) ^ text.charCodeAt(i)) >>> 0;
  return `${masks.length}.${hash.toString(36)}`;
}

export function rankLine(answer) {
  const of = `rank ${NUMBER.format(answer.rank)} of ${NUMBER.format(answer.n_candidates)}`;
  return answer.reidentified ? `${of} — re-identified` : of;
}

function percent(share) {
  return `${(100 * share).toFixed(1)}%`;
}

export class ReidPanel extends EventTarget {
  // view: the editor's DocView (positions for the suggestions' overlay); offsets: page
  // <-> server offsets; entityTypes: the vocabulary's type names.
  constructor(node, { documentId, store, view, offsets, entityTypes }) {
    super();
    Object.assign(this, { node, documentId, store, view, offsets, entityTypes });
    this.info = null;
    this.inflight = false;
    this.generation = 0; // bumped when the person changes: older answers are dropped
    this.shown = null; // the signature of the rank on screen
    this.suggested = []; // [{start, end, text, reason}] in page offsets, not yet accepted
    this.highlight = typeof Highlight === "function" && CSS.highlights ? new Highlight() : null;
    if (this.highlight) CSS.highlights.set(HIGHLIGHT, this.highlight);
    store.addEventListener("span", ({ detail }) => {
      if (detail.origin === "state") return; // a save state, not a decision
      if (detail.structural) this.#draw();
      this.refresh();
    });
  }

  async load() {
    this.node.hidden = false;
    this.node.replaceChildren(el("h3", {}, "Re-identification"), el("p", { class: "muted" }, "Loading…"));
    try {
      this.info = await api("GET", `/api/documents/${this.documentId}/reid/`);
    } catch (error) {
      this.node.replaceChildren(el("h3", {}, "Re-identification"), el("p", { id: "reid-error", class: "error" }, `Could not load: ${error.message}`));
      this.node.dataset.state = "error";
      return;
    }
    this.#render();
  }

  // --- layout ----------------------------------------------------------------------------

  #render() {
    const { info } = this;
    const heading = el("h3", {}, "Re-identification");
    if (!info.target && !info.knowledge_bases.length) {
      this.node.replaceChildren(
        heading,
        el("p", { id: "reid-hint", class: "muted" }, "No knowledge base in this project: an admin uploads one on the project page to see how easily this person is re-identified."),
      );
      this.node.dataset.state = "unavailable";
      return;
    }
    this.k = el("input", { id: "reid-k", type: "number", min: 1, value: info.k, style: "width:4.5em", oninput: () => this.#kChanged() });
    this.rank = el("div", { id: "reid-rank", class: "reid-rank", "aria-live": "polite", dataset: { state: "idle" } });
    this.top = el("ol", { id: "reid-top", class: "reid-top" });
    this.suggestButton = el("button", { id: "reid-suggest", type: "button", class: "secondary", onclick: () => this.suggest() }, "Mask until rank > K");
    this.suggestions = el("div", { id: "reid-suggestions", class: "reid-suggestions" });
    if (!info.target) {
      this.node.replaceChildren(heading, el("p", { class: "muted" }, "Whom does this document describe? Choose the person's profile to see their rank."), this.#targetForm(true));
      this.node.dataset.state = "no-target";
      this.#quickChoices();
      return;
    }
    const t = info.target;
    const models = info.models.map((m) => `${m.name} ${m.version}`).join(", ");
    this.node.replaceChildren(
      heading,
      el("p", { id: "reid-target", class: "muted", dataset: { profile: t.profile_id } }, "Person: ", el("strong", {}, t.name || t.profile_id), ` (${t.profile_id}${t.source === "ui" ? ", chosen here" : ""})`),
      this.rank,
      el("div", { class: "row reid-tools" }, el("label", {}, "K ", this.k), this.suggestButton),
      this.suggestions,
      el("h4", {}, `Top ${TOP} candidates`),
      this.top,
      models ? el("p", { class: "muted small-note" }, `Models: ${models}`) : "",
      el("details", { class: "reid-change" }, el("summary", {}, "Another person…"), this.#targetForm(false)),
    );
    this.node.dataset.state = "target";
    this.refresh();
  }

  #targetForm(withChoices) {
    const kbs = this.info.knowledge_bases;
    const current = this.info.target?.knowledge_base;
    const profile = el("input", { id: "reid-profile", required: true, placeholder: "profile id", value: this.info.target?.profile_id || "" });
    const kb = el("select", { id: "reid-kb" }, kbs.map((b) => el("option", { value: b.id, selected: b.id === current }, b.name)));
    this.targetMessage = el("p", { id: "reid-target-message" });
    this.choices = withChoices ? el("div", { id: "reid-choices", class: "reid-choices" }) : null;
    return el(
      "form",
      { id: "reid-target-form", class: "reid-target-form", onsubmit: (e) => { e.preventDefault(); this.setTarget(profile.value.trim(), Number(kb.value)); } },
      el("label", {}, "Profile id ", profile),
      kbs.length > 1 ? el("label", {}, "Knowledge base ", kb) : "",
      el("button", { type: "submit" }, "Set the person"),
      this.choices,
      this.targetMessage,
    );
  }

  // Quick choices: the candidates the unmasked text points to (when the server offers them).
  async #quickChoices() {
    let top = [];
    try {
      top = (await api("POST", `/api/documents/${this.documentId}/reid/rank/`, { masks: [], k: this.info.k, top: TOP })).top || [];
    } catch (error) {
      top = error.body?.top || [];
    }
    if (!top.length || !this.choices) return;
    const kb = this.info.knowledge_bases[0]?.id;
    this.choices.replaceChildren(
      el("span", { class: "muted" }, "The text points to: "),
      top.map((c) => el("button", { type: "button", class: "small secondary reid-choice", dataset: { profile: c.profile_id }, onclick: () => this.setTarget(c.profile_id, Number(document.getElementById("reid-kb")?.value) || kb) }, `${c.name} (${c.profile_id})`)),
    );
  }

  async setTarget(profileId, knowledgeBase) {
    if (!profileId) return;
    try {
      this.info = await api("PUT", `/api/documents/${this.documentId}/reid/target/`, { profile_id: profileId, knowledge_base: knowledgeBase });
    } catch (error) {
      this.targetMessage.className = "error";
      this.targetMessage.textContent = error.body?.profile_id || error.body?.knowledge_base || error.message;
      return;
    }
    this.shown = null;
    this.generation += 1;
    this.#clearSuggestions();
    this.#render();
  }

  #kChanged() {
    this.#clearSuggestions();
    this.refresh();
  }

  kValue() {
    const k = Math.round(Number(this.k?.value));
    return Number.isFinite(k) && k >= 1 ? k : this.info?.k || 10;
  }

  signature() {
    return reidSignature(currentMasks(this.store, this.offsets), this.kValue());
  }

  // --- the rank ------------------------------------------------------------------------

  // Asks for the rank of the page's masks unless it is shown or on its way; one request
  // at a time, and the answer for masks changed meanwhile is dropped for a fresh request.
  async refresh() {
    if (!this.info?.target) return;
    const masks = currentMasks(this.store, this.offsets);
    const k = this.kValue();
    const signature = reidSignature(masks, k);
    if (this.inflight) {
      this.#updating();
      return;
    }
    if (signature === this.shown && this.rank.dataset.state === "ready") return;
    this.#updating();
    this.inflight = true;
    const generation = this.generation;
    let answer = null;
    let failure = null;
    try {
      answer = await api("POST", `/api/documents/${this.documentId}/reid/rank/`, { masks, k, top: TOP });
    } catch (error) {
      failure = error;
    }
    this.inflight = false;
    if (generation !== this.generation || this.signature() !== signature) {
      this.refresh(); // stale: the newest masks win
      return;
    }
    if (failure) this.#failed(failure, signature);
    else this.#show(answer, signature);
  }

  #updating() {
    this.rank.dataset.state = "updating";
    this.rank.setAttribute("aria-busy", "true");
    if (!this.rank.querySelector(".reid-updating")) this.rank.append(el("span", { class: "reid-updating muted" }, " updating…"));
  }

  #failed(error, signature) {
    this.shown = null;
    const text = error.status === 409 ? error.message : `Could not compute the rank: ${error.message}`;
    this.rank.replaceChildren(el("p", { class: "error" }, text), el("button", { type: "button", class: "small secondary", onclick: () => this.refresh() }, "Try again"));
    this.rank.className = "reid-rank";
    this.rank.removeAttribute("aria-busy");
    this.rank.removeAttribute("data-rank");
    Object.assign(this.rank.dataset, { state: "error", signature });
    this.top.replaceChildren();
  }

  #show(answer, signature) {
    this.shown = signature;
    const models = Object.entries(answer.ranks || {});
    const status = answer.reidentified ? "reidentified" : answer.safe ? "safe" : "exposed";
    this.rank.className = `reid-rank ${status}`;
    this.rank.replaceChildren(
      el("strong", { class: "reid-rank-line" }, rankLine(answer)),
      el("div", { class: "reid-models" }, models.map(([name, rank], i) => el("span", { class: "reid-model", dataset: { model: name, rank } }, i ? " · " : "", `${name}: ${NUMBER.format(rank)}`))),
      el(
        "div",
        { class: "muted" },
        `${percent(answer.share_masked)} of the words masked · `,
        answer.safe ? `safe: every model ranks the person below ${answer.k}` : `not safe: a model ranks the person within the top ${answer.k}`,
      ),
      // A model whose profile vectors are not computed yet is left out; say so, never hide it.
      (answer.pending || []).length
        ? el("div", { class: "muted reid-pending" }, `not yet included (profiles still being prepared): ${answer.pending.join(", ")}`)
        : null,
    );
    this.rank.removeAttribute("aria-busy");
    Object.assign(this.rank.dataset, {
      state: "ready",
      signature,
      rank: answer.rank,
      n: answer.n_candidates,
      safe: answer.safe ? "1" : "0",
      reidentified: answer.reidentified ? "1" : "0",
      ms: answer.elapsed_ms,
    });
    this.top.replaceChildren(
      ...answer.top.map((c) =>
        el(
          "li",
          { class: c.is_target ? "reid-candidate is-target" : "reid-candidate", dataset: { profile: c.profile_id, rank: c.rank } },
          el("strong", {}, c.name),
          ` ${c.profile_id}`,
          c.is_target ? el("span", { class: "badge reid-target-badge" }, "the person") : "",
          el("span", { class: "muted" }, ` · score ${Number(c.score).toFixed(2)}`),
          c.links.length ? el("ul", { class: "reid-links" }, c.links.map((link) => el("li", {}, link))) : el("div", { class: "muted small-note" }, "nothing in the unmasked text links to this profile"),
        ),
      ),
    );
    this.dispatchEvent(new CustomEvent("rank", { detail: { signature, answer } }));
  }

  // --- mask until rank > K ----------------------------------------------------------------

  async suggest() {
    const k = this.kValue();
    this.suggestButton.disabled = true;
    this.suggestions.dataset.state = "loading";
    this.suggestions.replaceChildren(el("p", { class: "muted" }, `Searching for the masks that push the person below rank ${k}…`));
    let answer;
    try {
      answer = await api("POST", `/api/documents/${this.documentId}/reid/suggest/`, { masks: currentMasks(this.store, this.offsets), k });
    } catch (error) {
      this.suggestions.replaceChildren(el("p", { class: "error" }, `Could not suggest masks: ${error.message}`));
      this.suggestions.dataset.state = "error";
      return;
    } finally {
      this.suggestButton.disabled = false;
    }
    this.suggested = answer.spans.map((s) => ({ ...s, start: this.offsets.toView(s.start), end: this.offsets.toView(s.end) }));
    this.outcome = answer;
    this.#listSuggestions();
    this.#draw();
  }

  #listSuggestions() {
    const { outcome } = this;
    const after = Object.entries(outcome.ranks_after || {}).map(([name, rank]) => `${name} ${rank}`).join(", ");
    const summary = !this.suggested.length
      ? outcome.reached
        ? "Nothing more to mask: the person is already below rank K."
        : "No mask found that helps."
      : `${this.suggested.length} span(s) to mask${after ? `; ranks after: ${after}` : ""}${outcome.reached ? "" : " (still within the top K even so)"}`;
    const editable = this.store.canEdit();
    this.suggestions.replaceChildren(
      el("p", { class: outcome.reached ? "muted" : "warning" }, summary),
      this.suggested.length && editable
        ? el("div", { class: "row" },
            el("button", { type: "button", id: "reid-accept-all", class: "small", onclick: () => this.acceptAll() }, "Accept all as QUASI"),
            el("button", { type: "button", class: "small secondary", onclick: () => this.#clearSuggestions() }, "Dismiss"))
        : "",
      el(
        "ol",
        { class: "reid-suggested" },
        this.suggested.map((s, i) =>
          el(
            "li",
            { dataset: { start: s.start, end: s.end } },
            el("strong", {}, s.text),
            s.reason ? el("div", { class: "explain" }, s.reason) : "",
            editable ? el("button", { type: "button", class: "small secondary reid-accept", onclick: () => this.accept(i) }, "Accept") : "",
          ),
        ),
      ),
    );
    this.suggestions.dataset.state = "ready";
    this.suggestions.dataset.count = this.suggested.length;
  }

  // A suggested span becomes the annotator's QUASI decision carrying its reason (the
  // panel's "Why masked"); an own span on the same text only takes the decision.
  #adopt(s) {
    const reasons = s.reason ? [{ measure: "reid", text: s.reason }] : [];
    const existing = this.store.ownAt(s.start, s.end);
    if (existing) {
      if (!MASKING.has(existing.identifier_type)) this.store.change(existing.key, { identifier_type: "QUASI" });
      return;
    }
    const hint = this.store.all().find((span) => overlaps(span, s));
    const entityType = hint?.entity_type || (this.entityTypes.includes("MISC") ? "MISC" : undefined);
    this.store.create({ start: s.start, end: s.end, entity_type: entityType, identifier_type: "QUASI", attrs: { reasons, reid: true } });
  }

  accept(index) {
    const [s] = this.suggested.splice(index, 1);
    if (s) this.#adopt(s);
    this.#afterAccept();
  }

  acceptAll() {
    const all = this.suggested;
    this.suggested = [];
    for (const s of all) this.#adopt(s);
    this.#afterAccept();
  }

  #afterAccept() {
    if (this.suggested.length) this.#listSuggestions();
    else this.#clearSuggestions();
    this.#draw();
  }

  #clearSuggestions() {
    this.suggested = [];
    this.outcome = null;
    if (this.suggestions) {
      this.suggestions.replaceChildren();
      delete this.suggestions.dataset.state;
    }
    this.#draw();
  }

  #draw() {
    if (!this.highlight) return;
    this.highlight.clear();
    for (const s of this.suggested) {
      const range = document.createRange();
      range.setStart(...this.view.positionOf(s.start));
      range.setEnd(...this.view.positionOf(s.end));
      this.highlight.add(range);
    }
  }
}
