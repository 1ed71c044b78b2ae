// The review table's rows: the regions of a document where any shown set has a span
// (overlap components of all their spans), each with every set's version of it.

export function spanKey(s) {
  return `${s.start}:${s.end}:${s.entity_type}:${s.identifier_type}`;
}

// Annotator sets that count: handed in (submitted, or reviewed after publication);
// with ``inProgress`` the sets still being worked on too. Machine runs and gold always.
export function shownSets(sets, inProgress) {
  return sets.filter((s) => s.kind !== "human" || inProgress || s.status !== "in_progress");
}

// units: [{start, end, bySet: Map(set id -> spans), disagree}] in text order; a unit
// disagrees when the shown annotator sets hold different spans there.
export function computeUnits(sets) {
  const all = [];
  for (const set of sets) for (const span of set.spans) all.push({ span, setId: set.id });
  all.sort((a, b) => a.span.start - b.span.start || a.span.end - b.span.end);
  const units = [];
  for (const { span, setId } of all) {
    const last = units.at(-1);
    if (last && span.start < last.end) {
      last.end = Math.max(last.end, span.end);
      last.items.push([setId, span]);
    } else units.push({ start: span.start, end: span.end, items: [[setId, span]] });
  }
  const humans = sets.filter((s) => s.kind === "human");
  for (const unit of units) {
    unit.bySet = new Map(sets.map((s) => [s.id, []]));
    for (const [setId, span] of unit.items) unit.bySet.get(setId).push(span);
    delete unit.items;
    const versions = new Set(humans.map((h) => unit.bySet.get(h.id).map(spanKey).sort().join("|")));
    unit.disagree = versions.size > 1;
  }
  return units;
}

// Marks each unit holding an undecided region (server's list, page offsets).
export function markUnresolved(units, regions) {
  let r = 0;
  const sorted = [...regions].sort((a, b) => a.start - b.start);
  for (const unit of units) {
    while (r < sorted.length && sorted[r].end <= unit.start) r++;
    unit.unresolved = r < sorted.length && sorted[r].start < unit.end;
  }
}
