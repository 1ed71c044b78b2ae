// Project agreement: pooled figures, pairs, matrix, against gold, and per document.
import { api, config } from "./lib/api.js";
import { el, fmt } from "./lib/dom.js";
import { renderAgreement } from "./agreement_view.js";

const cfg = config();

// Only submitted annotator sets count unless the reviewer asks for the others too.
async function main() {
  const query = document.getElementById("show-in-progress").checked ? "?in_progress=true" : "";
  const summary = await api("GET", `/api/projects/${cfg.project_id}/agreement/${query}`);
  renderAgreement(document.getElementById("agreement"), summary);
  const rows = summary.documents.map((d) =>
    el("tr", { dataset: { document: d.id } },
      el("td", {}, el("a", { href: `/documents/${d.id}/review/` }, d.external_id)),
      el("td", {}, d.status),
      el("td", { class: "num" }, d.annotators.length),
      el("td", { class: "num" }, fmt(d.kappa_character)),
      el("td", { class: "num" }, fmt(d.kappa_span)),
      el("td", { class: "num" }, fmt(d.alpha_character)),
      el("td", { class: "num" }, fmt(d.alpha_span)),
      el("td", { class: "num" }, fmt(d.f1_overlap)),
      el("td", {}, d.has_gold ? "yes" : ""),
    ),
  );
  document.getElementById("documents").replaceChildren(
    el("table", { class: "grid" },
      el("tr", {}, ["Document", "Status", "Annotators", "κ char", "κ span", "α char", "α span", "F1 overlap", "Gold"].map((h, i) => el("th", { class: i > 1 && i < 8 ? "num" : "" }, h))),
      rows,
    ),
  );
  document.body.dataset.ready = "1";
}

document.getElementById("show-in-progress").addEventListener("change", () => {
  document.body.dataset.ready = "";
  main().catch(showError);
});

function showError(error) {
  document.getElementById("agreement").textContent = `Could not load: ${error.message}`;
}

main().catch(showError);
