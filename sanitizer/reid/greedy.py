"""Greedy de-identification (seed 004, Algorithm 1), over an ensemble of models.

Each step masks the candidate that lowers the true person's probability the most per word it
masks (seed 004 masks single words, where the two agree; with multi-word entities among the
candidates, the per-word rule keeps "University of X" from being chosen where "X" does), and the
search stops as soon as the person is outside the top ``k`` of *every* model. With several
models, a candidate's value is the **sum of the drops in log p(target)** of the models that
still rank the target within the top ``k`` (a model already fooled has no say: its further
drops buy no privacy).

Candidates, each masked with all its occurrences at once:

* words: every case-insensitive occurrence of a word, stopwords skipped (seed 004 §6: they
  are rarely identifiers, and skipping them speeds the search), words already masked skipped;
* entities: the given spans (the recognizer's), with every occurrence of the same surface text.

Scoring is batched: a model's ``candidate_drops`` when it has one (exact for BM25), else a
single ``scores`` call over every candidate variant of the document. A model that already
ranks the target below ``k`` is not re-ranked at every step, only before the search stops
(and rejoins it if the target is back in its top ``k``). Each step records the ranks
computed after it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from sanitizer.intervals import merge_intervals
from sanitizer.reid.base import ReidModel, Span, rank_of, target_log_prob
from sanitizer.reid.words import is_stopword, masked_flags, share_masked, word_spans

SCORE_BATCH = 256
"""Candidate variants per ``scores`` call for models without ``candidate_drops``."""


@dataclass(frozen=True)
class Candidate:
    """Something to mask: a word or an entity, with all its occurrences."""

    text: str
    kind: str  # "word" | "entity"
    spans: tuple[Span, ...]
    words: frozenset[int]  # indices of the words it masks


@dataclass
class DeidStep:
    """One step of the search: what was masked and the ranks it left."""

    text: str
    kind: str
    spans: list[Span]
    drop: float
    ranks: dict[str, int]

    def to_json(self) -> dict[str, Any]:
        """Plain data for explain records and APIs."""
        return {
            "text": self.text,
            "kind": self.kind,
            "spans": [list(s) for s in self.spans],
            "drop": self.drop,
            "ranks": dict(self.ranks),
        }


@dataclass
class DeidResult:
    """The masks found and how the target's ranks moved (rank 1 = re-identified)."""

    masks: list[Span]
    steps: list[DeidStep] = field(default_factory=list)
    ranks_before: dict[str, int] = field(default_factory=dict)
    ranks_after: dict[str, int] = field(default_factory=dict)
    share_masked: float = 0.0
    reached: bool = False

    @property
    def added(self) -> list[Span]:
        """The spans the search masked beyond ``initial_masks``, sorted: every step's spans
        (after pruning, the kept steps' only)."""
        return sorted(sp for step in self.steps for sp in step.spans)

    def to_json(self) -> dict[str, Any]:
        """Plain data (masks as ``[start, end]`` lists)."""
        return {
            "masks": [list(s) for s in self.masks],
            "added": [list(s) for s in self.added],
            "steps": [s.to_json() for s in self.steps],
            "ranks_before": dict(self.ranks_before),
            "ranks_after": dict(self.ranks_after),
            "share_masked": self.share_masked,
            "reached": self.reached,
        }


def _words_of(starts: np.ndarray, ends: np.ndarray, spans: Sequence[Span]) -> frozenset[int]:
    out: set[int] = set()
    for s, e in spans:
        lo = int(np.searchsorted(ends, s, side="right"))
        hi = int(np.searchsorted(starts, e, side="left"))
        out.update(range(lo, hi))
    return frozenset(out)


def candidates(text: str, entities: Sequence[Span] = ()) -> list[Candidate]:
    """Entity candidates (all occurrences of each surface text), then word candidates.

    Two candidates masking the same words are one (the entity is kept). Stopwords are
    no word candidates; an entity may contain them ("University of Braga").
    """
    spans = word_spans(text)
    starts = np.fromiter((s for s, _ in spans), dtype=np.int64, count=len(spans))
    ends = np.fromiter((e for _, e in spans), dtype=np.int64, count=len(spans))
    out: list[Candidate] = []
    seen: set[frozenset[int]] = set()
    by_surface: dict[str, set[Span]] = {}
    for s, e in entities:
        surface = text[s:e].strip()
        if surface:
            by_surface.setdefault(surface.lower(), set()).add((int(s), int(e)))
    for key, given in by_surface.items():
        pattern = re.compile(r"(?<!\w)" + re.escape(key) + r"(?!\w)", re.IGNORECASE)
        occurrences = sorted(given | {m.span() for m in pattern.finditer(text)})
        words = _words_of(starts, ends, occurrences)
        if words and words not in seen:
            seen.add(words)
            first = occurrences[0]
            out.append(Candidate(text[first[0] : first[1]], "entity", tuple(occurrences), words))
    by_word: dict[str, list[int]] = {}
    for i, (s, e) in enumerate(spans):
        word = text[s:e]
        if not is_stopword(word):
            by_word.setdefault(word.lower(), []).append(i)
    for indices in by_word.values():
        words = frozenset(indices)
        if words not in seen:
            seen.add(words)
            s, e = spans[indices[0]]
            out.append(Candidate(text[s:e], "word", tuple(spans[i] for i in indices), words))
    return out


def _target_index(model: ReidModel, target: str) -> int:
    try:
        return model.profile_ids.index(target)
    except ValueError:
        raise ValueError(f"target {target!r} is not a profile of model {model.name!r}") from None


def _drops(
    model: ReidModel,
    text: str,
    masks: Sequence[Span],
    target_index: int,
    variants: Sequence[Sequence[Span]],
) -> np.ndarray:
    """Decrease of log p(target) for each variant, batched."""
    fast = getattr(model, "candidate_drops", None)
    if fast is not None:
        return np.asarray(fast(text, masks, target_index, variants), dtype=np.float64)
    now = target_log_prob(model.scores([text], [masks]), target_index)[0]
    out = np.empty(len(variants), dtype=np.float64)
    for lo in range(0, len(variants), SCORE_BATCH):
        chunk = variants[lo : lo + SCORE_BATCH]
        rows = model.scores([text] * len(chunk), [[*masks, *v] for v in chunk])
        out[lo : lo + len(chunk)] = now - target_log_prob(rows, target_index)
    return out


def ranks(
    models: Sequence[ReidModel], text: str, masks: Sequence[Span], target: str
) -> dict[str, int]:
    """``{model name: rank of the target}`` under ``masks``."""
    return {
        m.name: rank_of(m.scores([text], [list(masks)])[0], _target_index(m, target))
        for m in models
    }


def deidentify(
    text: str,
    target: str,
    models: Sequence[ReidModel],
    *,
    k: int = 10,
    entities: Sequence[Span] = (),
    initial_masks: Sequence[Span] = (),
    max_steps: int | None = None,
    prune: bool = False,
) -> DeidResult:
    """Mask until ``target`` ranks below ``k`` under every model (Algorithm 1).

    ``initial_masks`` (e.g. the risk strategy's) are kept and only what the ensemble still
    needs is added. ``reached`` is false when the candidates or ``max_steps`` ran out first.
    """
    if not models:
        raise ValueError("greedy de-identification needs at least one model")
    indices = {m.name: _target_index(m, target) for m in models}
    masks: list[Span] = merge_intervals(initial_masks)
    spans = word_spans(text)
    masked = np.asarray(masked_flags(spans, masks), dtype=bool)
    pool = candidates(text, entities)
    current = ranks(models, text, masks, target)
    result = DeidResult(masks=masks, ranks_before=dict(current))
    stale: list[ReidModel] = []  # models not re-ranked since the last mask
    while any(r <= k for r in current.values()):
        if max_steps is not None and len(result.steps) >= max_steps:
            break
        pool = [c for c in pool if not masked[list(c.words)].all()]
        if not pool:
            break
        active = [m for m in models if current[m.name] <= k]
        variants = [c.spans for c in pool]
        total = np.zeros(len(pool), dtype=np.float64)
        for m in active:
            total += _drops(m, text, masks, indices[m.name], variants)
        # Drop per newly masked word (the weighted set-cover rule): an entity of four words
        # must buy four times the drop of one of its words to be preferred to it.
        fresh = np.fromiter(
            (max(1, int((~masked[list(c.words)]).sum())) for c in pool),
            dtype=np.float64,
            count=len(pool),
        )
        best = int(np.argmax(np.where(total > 0, total / fresh, total)))
        chosen = pool.pop(best)
        new = [s for s in chosen.spans if not masked[list(_words_in(spans, s))].all()]
        masked[list(chosen.words)] = True
        masks = merge_intervals([*masks, *new])
        # Models already out of the top k are only re-ranked before stopping (a forward pass
        # of the dense model costs as much as the rest of the step); one found back inside
        # the top k rejoins the search, so the stopping rule holds exactly.
        stepped = ranks(active, text, masks, target)
        stale = [m for m in models if m not in active]
        if stale and all(r > k for r in stepped.values()):
            stepped.update(ranks(stale, text, masks, target))
            stale = []
        current.update(stepped)
        result.steps.append(DeidStep(chosen.text, chosen.kind, new, float(total[best]), stepped))
    if stale:
        current.update(ranks(stale, text, masks, target))
    if prune and all(r > k for r in current.values()):
        masks, current = _prune(text, target, models, k, initial_masks, result.steps, current)
    result.masks = masks
    result.ranks_after = dict(current)
    result.share_masked = share_masked(text, masks)
    result.reached = all(r > k for r in current.values())
    return result


def _words_in(spans: Sequence[Span], span: Span) -> list[int]:
    return [i for i, (s, e) in enumerate(spans) if s < span[1] and span[0] < e]


def _prune(
    text: str,
    target: str,
    models: Sequence[ReidModel],
    k: int,
    initial_masks: Sequence[Span],
    steps: list[DeidStep],
    current: dict[str, int],
) -> tuple[list[Span], dict[str, int]]:
    """Undo steps the end result does not need, least useful first (side effect: ``steps``).

    A step taken early, when every candidate barely moved a saturated probability, can be
    redundant once later masks are in; it is dropped only if every model still ranks the
    target below ``k`` without it, so the stopping guarantee is kept.
    """
    for step in sorted(steps, key=lambda s: s.drop):
        others = [sp for other in steps if other is not step for sp in other.spans]
        trial = merge_intervals([*initial_masks, *others])
        tried = ranks(models, text, trial, target)
        if all(r > k for r in tried.values()):
            steps.remove(step)
            current = tried
    kept = merge_intervals([*initial_masks, *(sp for step in steps for sp in step.spans)])
    return kept, current
