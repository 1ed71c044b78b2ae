// The project's re-identification curve on the admin page: for each masking method (no
// masking, NER mask-all, k-anonymity, the risk solver, greedy de-identification at
// several K) the share of documents an ensemble of attackers re-identifies against the
// share of words masked, from the newest finished `reid_curve` job
// (GET /api/projects/<id>/reid/curve/, 404 until one finished). The button queues that
// job through the job API. #reid-curve's data-state: "loading", "drawn", "empty", "error".
import { api } from "../lib/api.js";
import { $, el, fmt } from "../lib/dom.js";
import { message } from "./message.js";
import { scatterChart } from "../charts.js";

export const REID_CURVE_JOB = "reid_curve";
let shownJob = null;

function pointsTable(points) {
  const models = [...new Set(points.flatMap((p) => Object.keys(p.per_model || {})))].sort();
  return el(
    "table",
    { class: "grid reid-curve-table" },
    el("tr", {}, el("th", {}, "Method"), el("th", { class: "num" }, "Re-identified"), el("th", { class: "num" }, "Words masked"), el("th", { class: "num" }, "Information loss"), models.map((m) => el("th", { class: "num" }, m))),
    points.map((p) =>
      el(
        "tr",
        { dataset: { method: p.method } },
        el("td", {}, p.label),
        el("td", { class: "num" }, `${(100 * p.rate).toFixed(1)}%`),
        el("td", { class: "num" }, `${(100 * p.share_masked).toFixed(1)}%`),
        el("td", { class: "num" }, fmt(p.info_loss, 3)),
        models.map((m) => el("td", { class: "num" }, typeof p.per_model?.[m] === "number" ? `${(100 * p.per_model[m]).toFixed(1)}%` : "n/a")),
      ),
    ),
  );
}

export async function loadReidCurve(pid) {
  const node = $("#reid-curve");
  node.dataset.state = "loading";
  let answer;
  try {
    answer = await api("GET", `/api/projects/${pid}/reid/curve/`);
  } catch (error) {
    if (error.status === 404) {
      node.replaceChildren(el("p", { class: "muted" }, "No curve yet: compute it (a background job)."));
      node.dataset.state = "empty";
    } else {
      node.replaceChildren(el("p", { class: "error" }, `Could not draw the curve: ${error.message}`));
      node.dataset.state = "error";
    }
    return;
  }
  shownJob = answer.job;
  const points = answer.points.map((p) => ({ x: p.share_masked, y: p.rate, label: p.label || p.method, method: p.method }));
  node.replaceChildren(
    el("p", { class: "muted" }, `Share of documents re-identified (any model ranks the person first) against the share of words masked, one point per method; job #${answer.job}, ${new Date(answer.created_at).toLocaleString()}.`),
    points.length ? scatterChart({ points, xLabel: "share of words masked", yLabel: "re-identified" }) : el("p", { class: "muted" }, "The job found no document to evaluate."),
    pointsTable(answer.points),
  );
  node.dataset.state = "drawn";
  node.dataset.job = answer.job;
}

// Redraws once a curve job newer than the one shown has finished (the job list polls).
export function reidCurveAfterJobs(pid, jobs) {
  const done = jobs.find((j) => j.kind === REID_CURVE_JOB && j.status === "succeeded");
  if (done && done.id !== shownJob) {
    shownJob = done.id;
    loadReidCurve(pid);
  }
}

export function setUpReid(pid, { onJob }) {
  $("#start-reid-curve").addEventListener("click", async () => {
    try {
      const job = await api("POST", `/api/projects/${pid}/jobs/create/`, { kind: REID_CURVE_JOB, params: {} });
      message("#reid-message", `Re-identification curve queued (job #${job.id}); see Jobs above.`, "ok");
    } catch (error) {
      message("#reid-message", error.body?.params ? JSON.stringify(error.body.params) : error.message, "error");
    }
    onJob();
  });
}
