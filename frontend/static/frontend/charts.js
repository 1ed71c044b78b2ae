// Inline SVG charts drawn here (no library, nothing fetched at run time).
const NS = "http://www.w3.org/2000/svg";

function svg(tag, attrs = {}, text) {
  const node = document.createElementNS(NS, tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
  if (text !== undefined) node.textContent = text;
  return node;
}

const PALETTE = ["#2f5bd3", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#17becf", "#8c564b", "#bcbd22"];

// Grouped horizontal bars: rows [{label, values: [number|null]}], series names; domain [min, 1].
export function barChart({ rows, series, title = "", min = 0, max = 1, width = 560 }) {
  const labelWidth = 170;
  const barHeight = 14;
  const groupHeight = series.length * barHeight + 10;
  const height = 40 + rows.length * groupHeight + 18 * Math.ceil(series.length / 3);
  const plot = width - labelWidth - 50;
  const root = svg("svg", { class: "chart", width, height, viewBox: `0 0 ${width} ${height}`, role: "img" });
  if (title) root.append(svg("text", { x: 0, y: 14, "font-weight": "600" }, title));
  const x = (v) => labelWidth + ((Math.max(min, Math.min(max, v)) - min) / (max - min)) * plot;
  const top = 24;
  for (const tick of [min, (min + max) / 2, max]) {
    root.append(svg("line", { x1: x(tick), x2: x(tick), y1: top, y2: top + rows.length * groupHeight, stroke: "#ddd" }));
    root.append(svg("text", { x: x(tick) - 8, y: top + rows.length * groupHeight + 12 }, tick.toFixed(1)));
  }
  if (min < 0) root.append(svg("line", { x1: x(0), x2: x(0), y1: top, y2: top + rows.length * groupHeight, stroke: "#999" }));
  rows.forEach((row, i) => {
    const y0 = top + i * groupHeight;
    root.append(svg("text", { x: 0, y: y0 + groupHeight / 2 + 3 }, row.label.length > 26 ? `${row.label.slice(0, 25)}…` : row.label));
    row.values.forEach((value, j) => {
      const y = y0 + j * barHeight + 4;
      if (value === null || value === undefined) {
        root.append(svg("text", { x: labelWidth + 2, y: y + 10, fill: "#999" }, "n/a"));
        return;
      }
      const a = x(min < 0 ? 0 : min);
      const b = x(value);
      const rect = svg("rect", { x: Math.min(a, b), y, width: Math.max(1, Math.abs(b - a)), height: barHeight - 3, fill: PALETTE[j % PALETTE.length] });
      rect.append(svg("title", {}, `${row.label} — ${series[j]}: ${value.toFixed(3)}`));
      root.append(rect, svg("text", { x: Math.max(a, b) + 3, y: y + 10 }, value.toFixed(2)));
    });
  });
  const legendY = top + rows.length * groupHeight + 28;
  series.forEach((name, j) => {
    const lx = labelWidth + (j % 3) * 130;
    const ly = legendY + Math.floor(j / 3) * 16;
    root.append(svg("rect", { x: lx, y: ly - 9, width: 10, height: 10, fill: PALETTE[j % PALETTE.length] }), svg("text", { x: lx + 14, y: ly }, name));
  });
  return root;
}

// Annotator x annotator matrix as a table with cell colour by value.
export function heatTable(names, values, { digits = 2 } = {}) {
  const table = document.createElement("table");
  table.className = "grid heat";
  const head = table.insertRow();
  head.append(document.createElement("th"));
  for (const name of names) {
    const th = document.createElement("th");
    th.textContent = name;
    th.className = "num";
    head.append(th);
  }
  names.forEach((name, i) => {
    const tr = table.insertRow();
    const th = document.createElement("th");
    th.textContent = name;
    tr.append(th);
    names.forEach((_, j) => {
      const td = tr.insertCell();
      td.className = "num";
      const v = values[i][j];
      if (i === j) td.textContent = "—";
      else if (v === null || v === undefined) td.textContent = "n/a";
      else {
        td.textContent = v.toFixed(digits);
        const t = Math.max(0, Math.min(1, v));
        td.style.background = `hsl(${Math.round(t * 120)}, 65%, ${92 - t * 22}%)`;
      }
    });
  });
  return table;
}

// One compact row per item, every series a mark on the same axis: stays short with many
// items (36 annotator pairs: about 650 px where grouped bars took 2,450 px). rows
// [{label, values: [number|null]}], series names; domain [min, max]; width follows the
// container (viewBox). A row's optional ``title`` is its full name in the tooltips.
export function dotChart({ rows, series, title = "", min = 0, max = 1, width = 560, rowHeight = 16 }) {
  const labelWidth = 190;
  const top = title ? 24 : 6;
  const plotHeight = rows.length * rowHeight;
  const height = top + plotHeight + 18 + 18 * Math.ceil(series.length / 4);
  const plot = width - labelWidth - 16;
  const root = svg("svg", { class: "chart dots", viewBox: `0 0 ${width} ${height}`, width: "100%", role: "img", style: `max-width: ${width}px` });
  if (title) root.append(svg("text", { x: 0, y: 14, "font-weight": "600" }, title));
  const x = (v) => labelWidth + ((Math.max(min, Math.min(max, v)) - min) / (max - min)) * plot;
  const ticks = min < 0 ? [min, 0, max] : [min, (min + max) / 2, max];
  for (const tick of ticks) {
    root.append(svg("line", { x1: x(tick), x2: x(tick), y1: top, y2: top + plotHeight, stroke: tick === 0 && min < 0 ? "#999" : "#ddd" }));
    root.append(svg("text", { x: x(tick) - 8, y: top + plotHeight + 12 }, tick.toFixed(1)));
  }
  rows.forEach((row, i) => {
    const y = top + i * rowHeight + rowHeight / 2;
    if (i % 2) root.append(svg("rect", { x: 0, y: y - rowHeight / 2, width, height: rowHeight, fill: "#f6f7f9" }));
    root.append(svg("text", { x: 0, y: y + 4 }, row.label.length > 28 ? `${row.label.slice(0, 27)}…` : row.label));
    row.values.forEach((value, j) => {
      if (value === null || value === undefined) return;
      const mark = svg("circle", { cx: x(value), cy: y, r: 4.5, fill: PALETTE[j % PALETTE.length], "fill-opacity": 0.85 });
      mark.append(svg("title", {}, `${row.title || row.label} — ${series[j]}: ${value.toFixed(3)}`));
      root.append(mark);
    });
  });
  const legendY = top + plotHeight + 30;
  series.forEach((name, j) => {
    const lx = labelWidth + (j % 4) * 88;
    const ly = legendY + Math.floor(j / 4) * 16;
    root.append(svg("circle", { cx: lx + 5, cy: ly - 4, r: 4.5, fill: PALETTE[j % PALETTE.length] }), svg("text", { x: lx + 14, y: ly }, name));
  });
  return root;
}

// A line through points [{x, y}] (sorted by x) with a dot per point; y in [0, yMax].
// ``marker``: an x to draw as a dashed vertical line (e.g. the current setting).
export function lineChart({ points, xLabel = "", yLabel = "", yMax = 1, yFormat = (v) => v.toFixed(2), marker = null, width = 560, height = 240 }) {
  const left = 48;
  const bottom = 34;
  const top = 10;
  const right = 12;
  const root = svg("svg", { class: "chart line", viewBox: `0 0 ${width} ${height}`, width: "100%", role: "img", style: `max-width: ${width}px` });
  const xs = points.map((p) => p.x);
  const xMin = Math.min(...xs);
  const xMax = Math.max(...xs) === xMin ? xMin + 1 : Math.max(...xs);
  const x = (v) => left + ((v - xMin) / (xMax - xMin)) * (width - left - right);
  const y = (v) => top + (1 - Math.max(0, Math.min(yMax, v)) / yMax) * (height - top - bottom);
  for (const tick of [0, yMax / 2, yMax]) {
    root.append(svg("line", { x1: left, x2: width - right, y1: y(tick), y2: y(tick), stroke: "#ddd" }));
    root.append(svg("text", { x: 2, y: y(tick) + 4 }, yFormat(tick)));
  }
  for (const p of points) root.append(svg("text", { x: x(p.x) - 6, y: height - bottom + 14 }, String(p.x)));
  if (xLabel) root.append(svg("text", { x: left + (width - left - right) / 2 - 30, y: height - 4 }, xLabel));
  if (yLabel) root.append(svg("text", { x: left + 8, y: top + 22, fill: "#666" }, yLabel));
  if (marker !== null && marker >= xMin && marker <= xMax) {
    root.append(svg("line", { class: "marker", x1: x(marker), x2: x(marker), y1: top, y2: height - bottom, stroke: "#999", "stroke-dasharray": "4 3" }));
  }
  root.append(svg("polyline", { points: points.map((p) => `${x(p.x)},${y(p.y)}`).join(" "), fill: "none", stroke: PALETTE[0], "stroke-width": 2 }));
  for (const p of points) {
    const dot = svg("circle", { class: "point", cx: x(p.x), cy: y(p.y), r: 3.5, fill: PALETTE[0] });
    dot.append(svg("title", {}, `${p.x}: ${yFormat(p.y)}`));
    root.append(dot);
  }
  return root;
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
