// Autosave: the store's edits are queued per span and written to the API after a short
// pause, each carrying the version it read. A 409 (someone else changed the span) puts
// the span in conflict: both versions are kept until the annotator chooses (resolve).
//
// Events (CustomEvent detail): "conflicts" {} when the set of conflicts changed;
// "set" {status} when the annotator's set was created or changed status.

import { api, ApiError } from "../lib/api.js";
import { offsetsToServer, spanToView } from "../lib/offsets.js";
import { EDITABLE } from "./store.js";

const SAVE_DELAY_MS = 600;
const RETRY_MS = 3000;

function pick(span, fields) {
  const out = {};
  for (const field of fields) out[field] = span[field];
  return out;
}

export class AutoSave extends EventTarget {
  #dirty = new Map(); // own key -> {fields: Set, create: bool, remove: bool}
  #conflicts = new Map(); // key -> the server's version (null when deleted there)
  // Deletions need the id/version the span had on the server when it left the page.
  #deleted = new Map(); // key -> {id, version}
  #saving = false;
  #timer = null;

  // mySet: the annotator's set {id, status, editable} or null until the first save
  // creates it; status(text, kind) shows the save state.
  constructor({ store, documentId, offsets, mySet, status }) {
    super();
    this.store = store;
    this.documentId = documentId;
    this.offsets = offsets;
    this.mySet = mySet;
    this.status = status;
    store.addEventListener("span", (event) => this.#onSpan(event.detail));
  }

  get conflicts() {
    return this.#conflicts;
  }

  hasPending() {
    return this.#dirty.size > 0 || this.#conflicts.size > 0;
  }

  #onSpan({ key, span, removed, fields, origin }) {
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
      this.#markDirty(key, { fields });
    }
  }

  #markDirty(key, patch) {
    const entry = this.#dirty.get(key) || { fields: new Set(), create: false, remove: false };
    if (patch.create) entry.create = true;
    if (patch.remove) entry.remove = true;
    for (const field of patch.fields || []) entry.fields.add(field);
    this.#dirty.set(key, entry);
    this.schedule();
  }

  #emit(type, detail = {}) {
    this.dispatchEvent(new CustomEvent(type, { detail }));
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
    this.status("Unsaved changes", "dirty");
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
        if (error.status !== 404) throw error;
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

  async flush() {
    clearTimeout(this.#timer);
    if (this.#saving) {
      this.#timer = setTimeout(() => this.flush(), SAVE_DELAY_MS);
      return;
    }
    if (!this.#dirty.size) {
      if (!this.#conflicts.size) this.status("All changes saved", "ok");
      return;
    }
    this.#saving = true;
    this.status("Saving…", "saving");
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
        } catch (error) {
          if (error instanceof ApiError && error.status === 409) {
            this.#dirty.set(key, entry);
            this.#conflicts.set(key, spanToView(error.body.current || null, this.offsets));
            this.#emit("conflicts");
          } else if (error instanceof ApiError && error.status >= 400 && error.status < 500) {
            this.status(`Not saved: ${error.message}`, "error");
          } else {
            this.#dirty.set(key, entry); // network trouble: keep it and retry
            throw error;
          }
        }
      }
      if (this.#conflicts.size) this.status("Conflict: choose a version", "error");
      else if (!this.#dirty.size) this.status("All changes saved", "ok");
    } catch (error) {
      this.status(`Saving failed, retrying: ${error.message}`, "error");
      this.#timer = setTimeout(() => this.flush(), RETRY_MS);
    } finally {
      this.#saving = false;
    }
    if (this.#dirty.size && !this.#conflicts.size && !this.#timer) this.schedule();
  }

  // choice "mine": save the local version over theirs; "theirs": take the server's.
  resolve(key, choice) {
    const theirs = this.#conflicts.get(key);
    this.#conflicts.delete(key);
    const mine = this.store.get(key);
    const entry = this.#dirty.get(key);
    if (choice === "mine") {
      if (mine && theirs) {
        this.store.setServerState(mine, { id: mine.id, version: theirs.version });
        for (const field of EDITABLE) if (mine[field] !== theirs[field]) entry.fields.add(field);
      } else if (mine && !theirs) {
        this.store.setServerState(mine, { id: null, version: mine.version }); // deleted there: create it again
      } else if (!mine && theirs) {
        this.#deleted.set(key, { id: theirs.id, version: theirs.version });
      }
    } else {
      this.#dirty.delete(key);
      this.store.replace(key, theirs);
    }
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
