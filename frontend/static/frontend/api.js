// Thin fetch wrapper: session cookie + CSRF header, JSON in and out, errors as ApiError.

function csrfToken() {
  const meta = document.querySelector('meta[name="csrf-token"]');
  if (meta && meta.content) return meta.content;
  const match = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/);
  return match ? decodeURIComponent(match[1]) : "";
}

export class ApiError extends Error {
  constructor(status, body) {
    super((body && (body.detail || JSON.stringify(body))) || `HTTP ${status}`);
    this.status = status;
    this.body = body || {};
  }
}

export async function api(method, url, body, { form } = {}) {
  const options = { method, credentials: "same-origin", headers: { Accept: "application/json" } };
  if (method !== "GET") options.headers["X-CSRFToken"] = csrfToken();
  if (form) {
    options.body = form;
  } else if (body !== undefined) {
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  const response = await fetch(url, options);
  const raw = await response.text();
  let data = null;
  if (raw) {
    try {
      data = JSON.parse(raw);
    } catch {
      data = { detail: raw.slice(0, 500) };
    }
  }
  if (!response.ok) throw new ApiError(response.status, data);
  return data;
}

// Every item of a paginated (limit/offset) list.
export async function listAll(url) {
  const items = [];
  let next = url;
  while (next) {
    const page = await api("GET", next);
    items.push(...page.results);
    next = page.next;
  }
  return items;
}

export function config() {
  const node = document.getElementById("page-config");
  return node ? JSON.parse(node.textContent) : {};
}

export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (key === "dataset") Object.assign(node.dataset, value);
    else node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

export function fmt(value, digits = 3) {
  return value === null || value === undefined || Number.isNaN(value) ? "n/a" : Number(value).toFixed(digits);
}

// The server (Python, like TAB files) counts a text's characters by code point; the
// page (JavaScript) by UTF-16 unit. Every emoji or other character outside the Basic
// Multilingual Plane would shift all later offsets by one, so offsets are converted
// where spans enter the page (toView) and leave it (toServer).
export function offsetMapper(text) {
  if (!/[\uD800-\uDFFF]/.test(text)) return { toView: (o) => o, toServer: (o) => o };
  const viewOf = [];
  const serverOf = new Int32Array(text.length + 1);
  let unit = 0;
  let point = 0;
  for (const ch of text) {
    viewOf.push(unit);
    for (let i = 0; i < ch.length; i++) serverOf[unit + i] = point;
    unit += ch.length;
    point += 1;
  }
  viewOf.push(unit);
  serverOf[unit] = point;
  return { toView: (o) => viewOf[o] ?? o, toServer: (o) => serverOf[o] };
}

// Converts the start/end of every span of a workspace payload to page offsets, in place.
export function spansToView(doc, mapper) {
  for (const set of doc.sets) {
    for (const span of set.spans) {
      span.start = mapper.toView(span.start);
      span.end = mapper.toView(span.end);
    }
  }
}

export function spanToView(span, mapper) {
  return span ? { ...span, start: mapper.toView(span.start), end: mapper.toView(span.end) } : span;
}

export function offsetsToServer(fields, mapper) {
  const out = { ...fields };
  if ("start" in out) out.start = mapper.toServer(out.start);
  if ("end" in out) out.end = mapper.toServer(out.end);
  return out;
}
