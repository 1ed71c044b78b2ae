// The project's privacy/utility curve on the admin page: the share of text the masking
// solver would mask at each threshold, over the documents with a risk assessment.
import { api } from "../lib/api.js";
import { $, el } from "../lib/dom.js";
import { lineChart } from "../charts.js";

// Thresholds in nats (an entity is risky when log p < −threshold).
export const CURVE_THRESHOLDS = [2, 4, 6, 8, 10, 12, 14, 16, 18, 20];

export async function loadRiskCurve(pid, { threshold }) {
  const node = $("#risk-curve");
  node.dataset.state = "loading";
  let answer;
  try {
    answer = await api("GET", `/api/projects/${pid}/risk/curve/?thresholds=${CURVE_THRESHOLDS.join(",")}`);
  } catch (error) {
    node.replaceChildren(el("p", { class: "error" }, `Could not draw the curve: ${error.message}`));
    node.dataset.state = "error";
    return;
  }
  if (!answer.documents || !answer.points.length) {
    node.replaceChildren(el("p", { class: "muted" }, "No risk assessment yet: run the risk job."));
    node.dataset.state = "empty";
    return;
  }
  const points = answer.points.map((p) => ({ x: p.threshold, y: p.share_masked }));
  const yMax = Math.max(0.1, Math.ceil(Math.max(...points.map((p) => p.y)) * 10) / 10);
  node.replaceChildren(
    el("p", { class: "muted" }, `Share of text masked against the threshold, over ${answer.documents} assessed document(s); the dashed line is the project's setting.`),
    lineChart({ points, xLabel: "threshold (nats)", yLabel: "share masked", yMax, yFormat: (v) => `${Math.round(100 * v)}%`, marker: threshold }),
  );
  node.dataset.state = "drawn";
}
