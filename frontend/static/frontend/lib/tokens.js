// Token boundaries of a text, for snapping selections and moving span edges.

// Runs of letters/digits, or single other non-space characters.
export function tokenize(text) {
  const starts = [];
  const ends = [];
  const re = /[\p{L}\p{N}]+|[^\s\p{L}\p{N}]/gu;
  let m;
  while ((m = re.exec(text)) !== null) {
    starts.push(m.index);
    ends.push(m.index + m[0].length);
  }
  return { starts: Int32Array.from(starts), ends: Int32Array.from(ends) };
}

function lowerBound(array, value) {
  let lo = 0;
  let hi = array.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (array[mid] < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

// Snap [start, end) outwards to whole tokens; null if it holds no token.
export function snapToTokens(tokens, start, end) {
  const first = lowerBound(tokens.ends, start + 1); // first token ending after start
  const last = lowerBound(tokens.starts, end) - 1; // last token starting before end
  if (first >= tokens.starts.length || last < first) return null;
  return [tokens.starts[first], tokens.ends[last]];
}

// Move one edge of a span by one token: edge "start"|"end", direction -1|+1.
export function stepEdge(tokens, span, edge, direction) {
  const { starts, ends } = tokens;
  if (edge === "end") {
    const i = lowerBound(ends, span.end); // token ending at span.end
    const j = i + direction;
    if (j < 0 || j >= ends.length || ends[j] <= span.start) return null;
    return [span.start, ends[j]];
  }
  const i = lowerBound(starts, span.start);
  const j = i - direction; // direction +1 = extend = move start left
  if (j < 0 || j >= starts.length || starts[j] >= span.end) return null;
  return [starts[j], span.end];
}
