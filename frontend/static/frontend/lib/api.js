// Thin fetch wrapper: session cookie + CSRF header, JSON in and out, errors as ApiError.

// The cookie first: logging in again (say, after the session ended) rotates the token,
// and the page's meta tag still holds the old one.
function csrfToken() {
  const match = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/);
  if (match) return decodeURIComponent(match[1]);
  const meta = document.querySelector('meta[name="csrf-token"]');
  return meta ? meta.content : "";
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
