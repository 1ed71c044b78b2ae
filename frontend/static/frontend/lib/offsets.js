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
