// Model versions on the admin page: metrics, a chart, and activation with the
// candidate's evaluation next to the active model's (a warning when it is worse, and a
// confirmation to go ahead). The built-in recognizer is always a choice.
import { api, listAll } from "../lib/api.js";
import { message } from "./message.js";
import { $, el, fmt } from "../lib/dom.js";
import { barChart } from "../charts.js";

const BUILTIN = "built-in recognizer";

function figures(model) {
  const entries = Object.entries(model.metrics || {});
  return entries.length ? entries.map(([k, v]) => `${k} ${fmt(v)}`).join(" · ") : "not evaluated";
}

const say = (text, kind) => message("#model-message", text, kind);

export async function loadModels(pid) {
  const versions = await listAll(`/api/model-versions/?project=${pid}`);
  const numericKeys = [...new Set(versions.flatMap((v) => Object.entries(v.metrics || {}).filter(([, x]) => typeof x === "number").map(([k]) => k)))].sort();
  // The recognizer a project uses: its own active model, else the built-in one.
  const activeRecognizer = versions.find((v) => v.is_active && v.kind === "recognizer" && v.project === pid);
  const builtinRow = el("tr", { dataset: { model: "builtin" } },
    el("td", {}, BUILTIN),
    el("td", {}, "recognizer"),
    el("td", {}, ""),
    el("td", { class: "muted" }, "rules and spaCy, shipped with the app"),
    el("td", {}, activeRecognizer
      ? el("button", { class: "small secondary use-builtin", onclick: () => useBuiltin(pid, activeRecognizer) }, "use built-in")
      : el("strong", { class: "ok" }, "active")),
  );
  $("#models").replaceChildren(
    el("table", { class: "grid" },
      el("tr", {}, el("th", {}, "Model"), el("th", {}, "Kind"), el("th", {}, "Created"), el("th", {}, "Metrics"), el("th", {}, "Active")),
      builtinRow,
      versions.map((v) =>
        el("tr", { dataset: { model: v.id } },
          el("td", {}, v.label, v.training_summary?.activation ? el("div", { class: "warning small-note" }, v.training_summary.activation) : "",
            v.trained_on_erased_data_at ? el("div", { class: "warning small-note erased-data" }, `trained on data erased ${new Date(v.trained_on_erased_data_at).toLocaleDateString()}`) : ""),
          el("td", {}, v.kind),
          el("td", {}, new Date(v.created_at).toLocaleString()),
          el("td", { class: "muted" }, numericKeys.filter((k) => k in v.metrics).map((k) => `${k} ${fmt(v.metrics[k])}`).join(" · ")),
          el("td", {}, v.is_active
            ? el("span", {}, el("strong", { class: "ok" }, "active"), " ", el("button", { class: "small secondary deactivate", onclick: () => useBuiltin(pid, v) }, "deactivate"))
            : el("button", { class: "small activate", onclick: () => compare(pid, v.id) }, "activate…")),
        ),
      ),
    ),
    versions.length ? "" : el("p", { class: "muted" }, "No trained models yet."),
  );
  const chartKeys = numericKeys.filter((k) => versions.every((v) => typeof v.metrics[k] !== "number" || (v.metrics[k] >= 0 && v.metrics[k] <= 1))).slice(0, 6);
  $("#model-chart").replaceChildren(
    versions.length && chartKeys.length
      ? barChart({ title: "Evaluation metrics per model version", rows: versions.map((v) => ({ label: v.label, values: chartKeys.map((k) => v.metrics[k] ?? null) })), series: chartKeys })
      : "",
  );
}

// Show the candidate next to the model it would replace before anything changes.
async function compare(pid, id) {
  say("");
  const c = await api("GET", `/api/model-versions/${id}/comparison/`);
  // Worse, or nothing to compare with: the server wants an explicit confirmation.
  const warn = c.worse || c.needs_confirm;
  const side = (title, model) =>
    el("div", { class: "card compare-side" }, el("h3", {}, title), el("p", {}, el("strong", {}, model.label)), el("p", { class: "muted" }, figures(model)));
  $("#model-compare").replaceChildren(
    el("div", { class: `model-compare ${warn ? "worse" : ""}`, dataset: { worse: c.worse ? "1" : "0", model: id } },
      el("div", { class: "row" }, side("Candidate", c.candidate), side(c.active.builtin ? "In use (built-in)" : "In use", c.active)),
      el("p", { class: warn ? "warning" : "muted" }, warn ? `Warning: ${c.message}` : c.message),
      el("div", { class: "row" },
        el("button", { class: warn ? "danger confirm-activate" : "confirm-activate", onclick: () => activate(pid, id, warn) }, warn ? "Activate anyway" : "Activate"),
        el("button", { class: "secondary", onclick: () => $("#model-compare").replaceChildren() }, "Cancel"),
      ),
    ),
  );
}

async function activate(pid, id, confirm) {
  try {
    await api("POST", `/api/model-versions/${id}/activate/`, { confirm });
    $("#model-compare").replaceChildren();
    say("Activated.", "ok");
  } catch (error) {
    say(error.message, "error");
  }
  await loadModels(pid);
}

async function useBuiltin(pid, model) {
  try {
    await api("POST", `/api/model-versions/${model.id}/deactivate/`);
    say(`${model.label} deactivated: pre-annotation uses the ${BUILTIN}.`, "ok");
  } catch (error) {
    say(error.message, "error");
  }
  await loadModels(pid);
}
