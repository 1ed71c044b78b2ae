// A line of feedback under a form of the admin page ("ok" or "error").
import { $ } from "../lib/dom.js";

export function message(target, text, kind = "") {
  const node = $(target);
  node.textContent = text;
  node.className = kind;
}
