// Autosave: the store's edits are queued per span and written to the API after a short
// pause, each carrying the version it read. Every answer is checked, and "All changes
// saved" shows only when the server confirmed every change:
//   - 409 (changed elsewhere, or a span already on those offsets) and 404 on an update
//     (deleted elsewhere) put the span in conflict: both versions are kept until the
//     annotator resolves it, field by field (resolve);
//   - another 4xx marks the span "unsaved" (refused) until it is edited again;
//   - an ended session (401, or DRF's 403 "credentials were not provided") keeps every
//     edit queued, offers a login link and saves once the annotator is back;
//   - network trouble and 5xx are retried.
//
// Events (CustomEvent detail): "conflicts" {} when the set of conflicts changed;
// "set" {status} when the annotator's set was created or changed status.

import { api, ApiError } from "../lib/api.js";
import { offsetsToServer, spanToView } from "../lib/offsets.js";
import { EDITABLE, snapshot } from "./store.js";

const SAVE_DELAY_MS = 600;
const RETRY_MS = 3000;
const AUTH_RETRY_MS = 3000;
export const LOGIN_URL = "/accounts/login/";

// What a conflict is resolved by: one choice per group of fields.
export const CONFLICT_FIELDS = [
  { name: "type", label: "Type", fields: ["entity_type"] },
  { name: "decision", label: "Decision", fields: ["identifier_type"] },
  { name: "extent", label: "Extent", fields: ["start", "end"] },
  { name: "entity", label: "Entity", fields: ["entity_id"] },
  { name: "confidential", label: "Confidential", fields: ["confidential_status"] },
  { name: "note", label: "Note", fields: ["note"] },
];

// Strongest first, as sanitizer.types.IDENTIFIER_TYPES: a resolution never picks the
// weaker decision unless the annotator chooses it.
const DECISIONS = ["DIRECT", "QUASI", "NO_MASK"];
export function decisionRank(decision) {
  const at = DECISIONS.indexOf(decision);
  return at < 0 ? 0 : DECISIONS.length - at;
}

export function groupDiffers(group, a, b) {
  return group.fields.some((field) => (a[field] ?? "") !== (b[field] ?? ""));
}

// A refusal because the session ended (or its CSRF token with it), not because of the edit.
export function isAuthError(error) {
  if (!(error instanceof ApiError)) return false;
  if (error.status === 401) return true;
  if (error.status !== 403) return false;
  return /credentials were not provided|not authenticated|CSRF/i.test(String(error.body?.detail || ""));
}

function pick(span, fields) {
  const out = {};
  for (const field of fields) out[field] = span[field];
  return out;
}

function newEntry() {
  // fields: changed since the server's version; base: their values in that version.
  return { fields: new Set(), create: false, remove: false, base: {} };
}

export class AutoSave extends EventTarget {
  #dirty = new Map(); // own key -> entry (newEntry)
  #conflicts = new Map(); // key -> the server's version (null when deleted there)
  #failed = new Map(); // key -> {entry, message}: refused by the server
  // Deletions need the id/version the span had on the server when it left the page.
  #deleted = new Map(); // key -> {id, version}
  #saving = false;
  #timer = null;
  #authExpired = false;
  #restored = false; // restored from the back-forward cache with work unresolved

  // mySet: the annotator's set {id, status, editable} or null until the first save
  // creates it; status(text, kind, link) shows the save state.
  constructor({ store, documentId, offsets, mySet, status }) {
    super();
    this.store = store;
    this.documentId = documentId;
    this.offsets = offsets;
    this.mySet = mySet;
    this.status = status;
    store.addEventListener("span", (event) => this.#onSpan(event.detail));
    // Back from logging in (in another tab): save at once.
    window.addEventListener("focus", () => {
      if (this.#authExpired) this.flush();
    });
  }

  get conflicts() {
    return this.#conflicts;
  }

  get authExpired() {
    return this.#authExpired;
  }

  hasPending() {
    return this.#dirty.size > 0 || this.#conflicts.size > 0 || this.#failed.size > 0;
  }

  // Work a reload would lose: edits queued, in conflict or refused, or a save in flight.
  busy() {
    return this.hasPending() || this.#saving;
  }

  // The page came back from history while work was unresolved and was kept: the status
  // line says so until the page is loaded again.
  markRestored() {
    this.#restored = true;
    this.#report();
  }

  #onSpan({ key, span, removed, fields, before, origin }) {
    if (origin !== "edit") return;
    if (!span) {
      if (removed.layer === "own" && removed.id) this.#deleted.set(key, { id: removed.id, version: removed.version });
      this.#markDirty(key, { remove: true });
    } else if (!fields) {
      const entry = this.#dirty.get(key);
      const gone = this.#deleted.get(key);
      if (entry && entry.remove && gone) {
        // Re-created before its deletion was saved: the server row is still there.
        entry.remove = false;
        this.store.setServerState(span, gone);
        this.#deleted.delete(key);
        this.#markDirty(key, { fields: EDITABLE });
      } else {
        if (entry) entry.remove = false;
        this.#markDirty(key, { create: true });
      }
    } else {
      this.#markDirty(key, { fields, before });
    }
  }

  #markDirty(key, patch) {
    const entry = this.#dirty.get(key) || newEntry();
    const failed = this.#failed.get(key);
    if (failed) {
      // Edited again after a refusal: try the refused change with the new one.
      this.#failed.delete(key);
      this.#merge(entry, failed.entry);
      this.store.setSaveState(key, null);
    }
    if (patch.create) entry.create = true;
    if (patch.remove) entry.remove = true;
    for (const field of patch.fields || []) {
      if (patch.before && !(field in entry.base)) entry.base[field] = patch.before[field];
      entry.fields.add(field);
    }
    this.#dirty.set(key, entry);
    this.schedule();
  }

  #merge(into, from) {
    into.create ||= from.create;
    into.remove ||= from.remove;
    for (const field of from.fields) into.fields.add(field);
    into.base = { ...into.base, ...from.base };
  }

  // Puts an entry back after a failed save, with any edit made while it was in flight.
  #requeue(key, entry) {
    const newer = this.#dirty.get(key);
    if (newer) this.#merge(entry, newer);
    this.#dirty.set(key, entry);
  }

  #emit(type, detail = {}) {
    this.dispatchEvent(new CustomEvent(type, { detail }));
  }

  // The status line from the state of every queued change.
  #report() {
    const [text, kind, link] = this.#state();
    if (!this.#restored) this.status(text, kind, link);
    else if (kind === "ok") this.status(`${text} · This page was restored from history and may be out of date: reload it to see the latest.`, "dirty");
    else this.status(`${text} · Restored from history: the page may be out of date; your unsaved work is shown.`, kind, link);
  }

  #state() {
    if (this.#authExpired) {
      const count = this.#dirty.size + this.#failed.size;
      return [`Your session has ended; ${count} unsaved change(s) are kept until you log in again.`, "error", { href: LOGIN_URL, label: "Log in (new tab)" }];
    }
    if (this.#conflicts.size) return ["Conflict: choose a version", "error"];
    if (this.#failed.size) {
      const [first] = this.#failed.values();
      return [`Not saved (${this.#failed.size} span(s), marked in the text): ${first.message}`, "error"];
    }
    if (this.#dirty.size) return this.#saving ? ["Saving…", "saving"] : ["Unsaved changes", "dirty"];
    return ["All changes saved", "ok"];
  }

  async ensureMySet() {
    if (this.mySet) return this.mySet;
    const data = await api("POST", `/api/documents/${this.documentId}/annotation-sets/mine/`);
    this.mySet = { id: data.id, status: data.status, editable: data.editable };
    this.store.setEditable(data.editable !== false);
    this.#emit("set", { status: data.status });
    return this.mySet;
  }

  schedule() {
    this.#report();
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => this.flush(), SAVE_DELAY_MS);
  }

  async #saveOne(key, entry) {
    const span = this.store.get(key);
    if (entry.remove) {
      if (span || !entry.serverId) return;
      try {
        await api("DELETE", `/api/spans/${entry.serverId}/delete/?version=${entry.version}`);
      } catch (error) {
        if (error.status !== 404) throw error; // already gone: what was asked
      }
      return;
    }
    if (!span) return;
    if (span.id === null) {
      const created = await api("POST", `/api/annotation-sets/${this.mySet.id}/spans/create/`, {
        ...offsetsToServer(pick(span, EDITABLE), this.offsets),
        attrs: span.attrs || {},
      });
      this.store.setServerState(span, created);
      return;
    }
    if (!entry.fields.size) return;
    const updated = await api("PATCH", `/api/spans/${span.id}/update/`, {
      version: span.version,
      ...offsetsToServer(pick(span, entry.fields), this.offsets),
    });
    this.store.setServerState(span, { id: span.id, version: updated.version });
  }

  // A refused save: a conflict (kept for resolve), a refusal (marked "unsaved"), or
  // anything else, thrown (the session ended, the network failed: retried).
  #refused(key, entry, error) {
    const span = this.store.get(key);
    const conflict = error instanceof ApiError && (error.status === 409 || (error.status === 404 && !entry.remove));
    if (conflict) {
      const current = error.status === 409 ? error.body.current || null : null;
      if (span && span.id === null && current) {
        // Created where a span already is (say, accepted in another tab): that span is
        // the one to update, with every field of ours counting as changed.
        this.store.setServerState(span, { id: current.id, version: current.version });
        entry.create = false;
        entry.base = {};
        for (const field of EDITABLE) entry.fields.add(field);
      }
      this.#requeue(key, entry);
      this.#conflicts.set(key, spanToView(current, this.offsets));
      this.store.setSaveState(key, "conflict");
      this.#emit("conflicts");
    } else if (error instanceof ApiError && error.status >= 400 && error.status < 500 && !isAuthError(error)) {
      this.#failed.set(key, { entry, message: error.message });
      this.store.setSaveState(key, "unsaved");
    } else {
      this.#requeue(key, entry);
      throw error;
    }
  }

  async flush() {
    clearTimeout(this.#timer);
    this.#timer = null;
    if (this.#saving) {
      this.#timer = setTimeout(() => this.flush(), SAVE_DELAY_MS);
      return;
    }
    if (!this.#dirty.size) {
      this.#report();
      return;
    }
    this.#saving = true;
    if (!this.#authExpired) this.status("Saving…", "saving");
    try {
      await this.ensureMySet();
      for (const [key, entry] of [...this.#dirty.entries()]) {
        if (this.#conflicts.has(key)) continue;
        if (entry.remove && !this.store.get(key)) {
          const gone = this.#deleted.get(key);
          entry.serverId = gone?.id;
          entry.version = gone?.version;
        }
        this.#dirty.delete(key);
        try {
          await this.#saveOne(key, entry);
          if (entry.remove) this.#deleted.delete(key);
          this.store.setSaveState(key, null);
        } catch (error) {
          this.#refused(key, entry, error);
        }
      }
      this.#authExpired = false;
    } catch (error) {
      if (isAuthError(error)) {
        this.#authExpired = true;
        this.#timer = setTimeout(() => this.flush(), AUTH_RETRY_MS);
      } else if (error instanceof ApiError && error.status >= 400 && error.status < 500) {
        // The set itself was refused (say, not this user's to annotate): retrying
        // cannot help; the edits stay queued and the page says why.
        this.status(`Not saved: ${error.message}`, "error");
        return;
      } else {
        this.status(`Saving failed, retrying: ${error.message}`, "error");
        this.#timer = setTimeout(() => this.flush(), RETRY_MS);
        return;
      }
    } finally {
      this.#saving = false;
    }
    this.#report();
    const waiting = [...this.#dirty.keys()].some((key) => !this.#conflicts.has(key));
    if (waiting && !this.#timer) this.schedule();
  }

  // The choice per field group that resolving with "Keep mine" makes: the annotator's
  // value where they changed the field, the server's elsewhere, and for the decision
  // never the weaker of the two.
  defaultPicks(key) {
    const mine = this.store.get(key);
    const theirs = this.#conflicts.get(key);
    const entry = this.#dirty.get(key);
    const picks = {};
    if (!mine || !theirs) return picks;
    const changed = new Set(
      entry ? [...entry.fields].filter((field) => !(field in entry.base) || entry.base[field] !== mine[field]) : [],
    );
    for (const group of CONFLICT_FIELDS) {
      if (!groupDiffers(group, mine, theirs)) continue;
      picks[group.name] = group.fields.some((field) => changed.has(field)) ? "mine" : "theirs";
    }
    if (picks.decision) {
      picks.decision = decisionRank(mine.identifier_type) > decisionRank(theirs.identifier_type) ? "mine" : "theirs";
    }
    return picks;
  }

  // choice "theirs": take the server's version; "mine": save the local one over it,
  // field group by field group as ``picks`` says ({type: "mine"|"theirs", ...};
  // default defaultPicks). A span deleted on one side is kept or dropped whole.
  resolve(key, choice, picks = null) {
    const theirs = this.#conflicts.get(key);
    const mine = this.store.get(key);
    const chosen = choice === "mine" && mine && theirs ? picks || this.defaultPicks(key) : null;
    this.#conflicts.delete(key);
    if (choice !== "mine") {
      this.#dirty.delete(key);
      this.store.replace(key, theirs);
    } else if (chosen) {
      const values = snapshot(theirs);
      for (const group of CONFLICT_FIELDS) {
        if (chosen[group.name] === "mine") for (const field of group.fields) values[field] = mine[field];
      }
      const differing = EDITABLE.filter((field) => values[field] !== theirs[field]);
      this.#dirty.delete(key);
      this.store.replace(key, { ...values, id: theirs.id, version: theirs.version });
      if (differing.length) {
        const entry = newEntry();
        for (const field of differing) entry.fields.add(field);
        entry.base = pick(theirs, differing);
        this.#dirty.set(key, entry);
      }
    } else if (mine && !theirs) {
      // Deleted there, kept here: create it again.
      this.store.setServerState(mine, { id: null, version: 1 });
      const entry = this.#dirty.get(key) || newEntry();
      entry.create = true;
      this.#dirty.set(key, entry);
    } else if (!mine && theirs) {
      this.#deleted.set(key, { id: theirs.id, version: theirs.version });
    }
    this.store.setSaveState(key, null);
    this.#emit("conflicts");
    this.schedule();
  }

  async recordRejection(spanId, rejected) {
    await this.ensureMySet();
    const result = await api("POST", `/api/annotation-sets/${this.mySet.id}/rejections/`, {
      span_ids: [spanId],
      rejected,
    });
    this.store.setRejected(result.rejected_suggestions);
  }

  async submit() {
    await this.flush();
    if (this.hasPending()) {
      this.status("Resolve the unsaved changes before submitting", "error");
      return;
    }
    try {
      await this.ensureMySet();
      const data = await api("POST", `/api/annotation-sets/${this.mySet.id}/submit/`);
      this.mySet.status = data.status;
      this.#emit("set", { status: data.status });
      this.status("Submitted", "ok");
    } catch (error) {
      this.status(`Not submitted: ${error.message}`, "error");
    }
  }
}

// A page restored from the back-forward cache shows what the server held when it was
// left: save what is queued, then load the page again from the server, but only when
// nothing is left unresolved (a reload would drop edits in conflict, refused or still
// queued): otherwise the page stays, with its work, and the status line says it may be
// out of date.
export function reloadWhenRestored(sync) {
  window.addEventListener("pageshow", async (event) => {
    if (!event.persisted) return;
    document.body.dataset.ready = "0";
    sync.status("Reloading…", "saving");
    await sync.flush();
    if (!sync.busy()) {
      window.location.reload();
      return;
    }
    sync.markRestored();
    document.body.dataset.ready = "1";
  });
}
