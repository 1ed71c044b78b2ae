// The project's re-identification curve on the admin page: for each masking method (no
// masking, NER mask-all, k-anonymity, the risk solver, greedy de-identification at
// several K) the share of documents an ensemble of attackers re-identifies against the
// share of words masked, from the newest finished `reid_curve` job
// (GET /api/projects/<id>/reid/curve/, 404 until one finished). The button queues that
// job through the job API. #reid-curve's data-state: "loading", "drawn", "empty", "error".
import { api } from "../lib/api.js";
import { $, el, fmt } from "../lib/dom.js";
import { message } from "./message.js";

export const REID_CURVE_JOB = "reid_curve";
const NS = "http://www.w3.org/2000/svg";
const PALETTE = ["#2f5bd3", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#17becf", "#8c564b", "#bcbd22"];
let shownJob = null;

function svg(tag, attrs = {}, text) {
  const node = document.createElementNS(NS, tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
  if (text !== undefined) node.textContent = text;
  return node;
}

const percent = (v) => `${Math.round(100 * v)}%`;

// One labelled dot per point on [0, 1] x [0, yMax]; a colour per method (family of points).
export function scatterChart({ points, xLabel, yLabel, width = 560, height = 300 }) {
  const left = 48;
  const bottom = 36;
  const top = 24;
  const right = 24;
  const yMax = Math.max(0.1, Math.ceil(Math.max(...points.map((p) => p.y)) * 10) / 10);
  const x = (v) => left + Math.max(0, Math.min(1, v)) * (width - left - right);
  const y = (v) => top + (1 - Math.max(0, Math.min(yMax, v)) / yMax) * (height - top - bottom);
  const root = svg("svg", { class: "chart scatter", viewBox: `0 0 ${width} ${height}`, width: "100%", role: "img", style: `max-width: ${width}px`, "aria-label": `${yLabel} against ${xLabel}` });
  for (const tick of [0, yMax / 2, yMax]) {
    root.append(svg("line", { x1: left, x2: width - right, y1: y(tick), y2: y(tick), stroke: "#ddd" }), svg("text", { x: 2, y: y(tick) + 4 }, percent(tick)));
  }
  for (const tick of [0, 0.25, 0.5, 0.75, 1]) root.append(svg("text", { x: x(tick), y: height - bottom + 14, "text-anchor": "middle" }, percent(tick)));
  root.append(svg("text", { x: left + (width - left - right) / 2 - 50, y: height - 4 }, xLabel), svg("text", { x: 2, y: 12, fill: "#666" }, yLabel));
  const methods = [...new Set(points.map((p) => p.method))];
  for (const p of points) {
    const colour = PALETTE[methods.indexOf(p.method) % PALETTE.length];
    const dot = svg("circle", { class: "point", cx: x(p.x), cy: y(p.y), r: 4.5, fill: colour, "data-method": p.method });
    dot.append(svg("title", {}, `${p.label}: ${percent(p.y)} re-identified, ${percent(p.x)} of words masked`));
    // Labels go left of points on the right half, so that they stay inside the chart.
    const leftward = p.x > 0.6;
    root.append(dot, svg("text", { x: x(p.x) + (leftward ? -6 : 6), y: y(p.y) - 6, "font-size": "10", fill: colour, "text-anchor": leftward ? "end" : "start" }, p.label));
  }
  return root;
}

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
