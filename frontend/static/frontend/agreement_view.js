// Agreement tables and charts shared by the review page (one document) and the
// project agreement page; input: the summary from annotation.agreement_selectors.
import { el, fmt } from "./lib/dom.js";
import { barChart, dotChart, heatTable } from "./charts.js";

const MATRIX_MEASURES = {
  kappa_character: "Cohen's kappa, character level",
  kappa_span: "Cohen's kappa, span level",
  f1_exact: "Span F1, exact match",
  f1_overlap: "Span F1, overlap match",
};

// A long username cut in the middle, so both names of a pair fit on a chart row.
function short(name) {
  return name.length > 11 ? `${name.slice(0, 4)}…${name.slice(-6)}` : name;
}

export function renderAgreement(container, summary) {
  container.replaceChildren();
  const c = summary.coefficients;
  container.append(
    el("p", { class: "muted" }, `Identifier type (DIRECT / QUASI / NO_MASK / none); ${summary.n_multi_annotated} of ${summary.n_documents} document(s) with two or more annotators; ${summary.n_gold} with gold.`),
  );
  if (c) {
    container.append(
      el("table", { class: "grid coefficients" },
        el("tr", {}, el("th", {}, "Level"), el("th", { class: "num" }, "Kappa"), el("th", { class: "num" }, "Alpha")),
        el("tr", { dataset: { level: "span" } }, el("td", {}, "Span"), el("td", { class: "num kappa" }, fmt(c.kappa_span)), el("td", { class: "num alpha" }, fmt(c.alpha_span))),
        el("tr", { dataset: { level: "character" } }, el("td", {}, "Character"), el("td", { class: "num kappa" }, fmt(c.kappa_character)), el("td", { class: "num alpha" }, fmt(c.alpha_character))),
      ),
      el("p", { class: "muted" }, `Kappa: Cohen's for a pair, Light's mean over pairs for more annotators. Span F1 pooled over pairs: exact ${fmt(c.f1_exact)}, overlap ${fmt(c.f1_overlap)}.`),
    );
  } else {
    container.append(el("p", {}, "Fewer than two annotators: no inter-annotator agreement."));
  }
  if (summary.pairs.length) {
    container.append(
      el("h3", {}, "Annotator pairs"),
      el("div", { class: "scroll-box" }, el("table", { class: "grid pairs" },
        el("tr", {}, ["Pair", "κ char", "κ span", "F1 exact", "F1 overlap", "docs"].map((h, i) => el("th", { class: i ? "num" : "" }, h))),
        summary.pairs.map((p) => el("tr", {}, el("td", {}, `${p.a} × ${p.b}`), el("td", { class: "num" }, fmt(p.kappa_character)), el("td", { class: "num" }, fmt(p.kappa_span)), el("td", { class: "num" }, fmt(p.f1_exact)), el("td", { class: "num" }, fmt(p.f1_overlap)), el("td", { class: "num" }, p.n_documents))),
      )),
      // One row per pair (dots), so 36 pairs stay short; the matrix below shows the same.
      dotChart({
        title: "Agreement per annotator pair",
        rows: summary.pairs.map((p) => ({ label: `${short(p.a)} × ${short(p.b)}`, title: `${p.a} × ${p.b}`, values: [p.kappa_character, p.kappa_span, p.f1_exact, p.f1_overlap] })),
        series: ["κ character", "κ span", "F1 exact", "F1 overlap"],
        min: Math.min(0, ...summary.pairs.flatMap((p) => [p.kappa_character ?? 0, p.kappa_span ?? 0])),
      }),
    );
    const select = el("select", { class: "matrix-measure" }, Object.entries(MATRIX_MEASURES).map(([k, v]) => el("option", { value: k }, v)));
    const holder = el("div", { class: "matrix" });
    const draw = () => holder.replaceChildren(heatTable(summary.matrix.names, summary.matrix[select.value]));
    select.addEventListener("change", draw);
    container.append(el("h3", {}, "Annotator × annotator"), select, holder);
    draw();
  }
  if (summary.against_gold.length) {
    container.append(
      el("h3", {}, "Against gold (machine runs and annotators)"),
      el("table", { class: "grid against-gold" },
        el("tr", {}, ["Set", "κ char", "κ span", "α char", "α span", "F1 exact", "F1 overlap", "P overlap", "R overlap"].map((h, i) => el("th", { class: i ? "num" : "" }, h))),
        summary.against_gold.map((r) => el("tr", { dataset: { name: r.b } }, el("td", {}, r.b), ...["kappa_character", "kappa_span", "alpha_character", "alpha_span", "f1_exact", "f1_overlap", "precision_overlap", "recall_overlap"].map((k) => el("td", { class: "num" }, fmt(r[k]))))),
      ),
      barChart({
        title: "Against gold",
        rows: summary.against_gold.map((r) => ({ label: r.b, values: [r.kappa_character, r.f1_exact, r.f1_overlap] })),
        series: ["κ character", "F1 exact", "F1 overlap"],
        min: Math.min(0, ...summary.against_gold.map((r) => r.kappa_character ?? 0)),
      }),
    );
  }
}
