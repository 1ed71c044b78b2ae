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
