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

// The page's configuration, written by frontend/views.py with json_script: ids, role,
// and the vocabularies and registry choices, so that no page keeps its own copy.
export function config() {
  const node = document.getElementById("page-config");
  return node ? JSON.parse(node.textContent) : {};
}
