"""Reads: the target's rank under given masks, the greedy suggestion, the rank per version.

Nothing here writes: every answer is computed from the document's text, the masks given
(or stored in its annotation sets) and the cached ensemble (:mod:`reid.loading`).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import numpy as np
from django.core.exceptions import ValidationError

from annotation.models import AnnotationSet, Document, SetKind, SetSource, Span
from annotation.selectors import annotation_sets_for_user
from reid.selectors.targets import ReidContext, reid_context
from sanitizer.reid.base import rank_of
from sanitizer.reid.greedy import deidentify
from sanitizer.reid.words import share_masked

Mask = tuple[int, int]
# A recognizer entity: (start, end, entity_type).
LabelledSpan = tuple[int, int, str]

# The decision that leaves a span's text in the published document.
NO_MASK = "NO_MASK"
# Machine runs whose spans are recognizer entities: the greedy search's entity candidates.
ENTITY_SOURCES = (SetSource.PREANNOTATION, SetSource.MODEL)
MAX_LINKS = 5
# The suggestion runs inside a web request: the greedy search stops after this many steps
# (each masks a word or an entity everywhere) and answers "reached": false if still short.
SUGGEST_MAX_STEPS = 200


def checked_masks(text: str, masks: Sequence[Sequence[int]]) -> list[Mask]:
    """Masks as sorted ``(start, end)`` pairs inside the text (400 naming ``masks`` if not)."""
    out: list[Mask] = []
    n = len(text)
    for i, pair in enumerate(masks):
        start, end = int(pair[0]), int(pair[1])
        if not 0 <= start < end <= n:
            raise ValidationError(
                {"masks": f"mask #{i} [{start}, {end}] is not inside the text (0..{n})"},
                code="out_of_range",
            )
        out.append((start, end))
    return sorted(out)


def _top_of(row: np.ndarray, top: int) -> list[int]:
    """Columns of the ``top`` highest scores, best first (ties by column order)."""
    top = min(top, row.shape[0])
    part = np.argpartition(-row, top - 1)[:top] if top < row.shape[0] else np.arange(row.shape[0])
    return sorted(part.tolist(), key=lambda j: (-float(row[j]), j))


def _candidates(
    context: ReidContext, text: str, masks: list[Mask], rows: dict[str, np.ndarray], top: int
) -> list[dict[str, Any]]:
    """The ``top`` profiles by their best rank over the models, with the reasons of the
    model that ranked each one best."""
    best: dict[int, tuple[int, int, float]] = {}  # column -> (rank, model order, score)
    for order, model in enumerate(context.ensemble.models):
        row = rows[model.name]
        for j in _top_of(row, top):
            entry = (rank_of(row, j), order, float(row[j]))
            if j not in best or entry[:2] < best[j][:2]:
                best[j] = entry
    chosen = sorted(best.items(), key=lambda item: (item[1][0], item[1][1], item[0]))[:top]
    out = []
    for j, (rank, order, score) in chosen:
        model = context.ensemble.models[order]
        profile = context.ensemble.profiles[j]
        out.append(
            {
                "profile_id": profile.id,
                "name": profile.name,
                "score": score,
                "rank": rank,
                "model": model.name,
                "is_target": j == context.target_index,
                "links": model.links(text, masks, j, limit=MAX_LINKS),
            }
        )
    return out


def document_rank(
    *, document: Document, masks: Sequence[Sequence[int]], k: int, top: int
) -> dict[str, Any]:
    """The target's rank under ``masks`` for every model (the ensemble's is the best of
    them: the attacker picks the model that finds the person) and the top candidates."""
    started = time.perf_counter()
    context = reid_context(document=document)
    text = document.text
    spans = checked_masks(text, masks)
    rows = {m.name: m.scores([text], [spans])[0] for m in context.ensemble.models}
    ranks = {name: rank_of(row, context.target_index) for name, row in rows.items()}
    rank = min(ranks.values())
    return {
        "rank": rank,
        "ranks": ranks,
        "n_candidates": len(context.ensemble.profiles),
        "reidentified": rank == 1,
        "safe": rank > k,
        "k": k,
        "share_masked": share_masked(text, spans),
        "top": _candidates(context, text, spans, rows, top),
        "target": {"profile_id": context.target.profile_id, "name": context.target_name},
        # Models of the ensemble not ranking yet (their profile embeddings are not stored).
        "pending": list(context.ensemble.pending),
        "elapsed_ms": (time.perf_counter() - started) * 1000,
    }


def entity_spans(*, document: Document) -> list[LabelledSpan]:
    """The recognizer's entities in the document's current machine runs, with labels:
    sorted distinct ``(start, end, entity_type)`` (a stretch two runs labelled differently
    comes once per label)."""
    rows = Span.objects.filter(
        annotation_set__document=document,
        annotation_set__kind=SetKind.MACHINE,
        annotation_set__source__in=ENTITY_SOURCES,
        annotation_set__superseded_at__isnull=True,
    ).values_list("start", "end", "entity_type")
    return sorted(set(rows))


def entity_offsets(entities: Sequence[LabelledSpan]) -> list[Mask]:
    """The entities' sorted distinct ``(start, end)``: the greedy search's entity candidates."""
    return sorted({(start, end) for start, end, _label in entities})


def document_suggest(
    *, document: Document, masks: Sequence[Sequence[int]], k: int
) -> dict[str, Any]:
    """What the greedy search would add to ``masks`` to put the person outside every
    model's top ``k``; each added span says how its step moved the ensemble's rank."""
    context = reid_context(document=document)
    text = document.text
    spans = checked_masks(text, masks)
    result = deidentify(
        text,
        context.target.profile_id,
        context.ensemble.models,
        k=k,
        entities=entity_offsets(entity_spans(document=document)),
        initial_masks=spans,
        max_steps=SUGGEST_MAX_STEPS,
    )
    out: list[dict[str, Any]] = []
    before = min(result.ranks_before.values())
    for step in result.steps:
        after = min(step.ranks.values())
        reason = f"reid: rank {before} → {after}"
        out.extend(
            {"start": s, "end": e, "text": text[s:e], "reason": reason}
            for s, e in sorted(step.spans)
        )
        before = after
    return {
        "spans": out,
        "ranks_before": result.ranks_before,
        "ranks_after": result.ranks_after,
        "reached": result.reached,
        "share_masked": result.share_masked,
        # Models left out of the search (no stored profile embeddings yet): "reached" is
        # about the models that searched.
        "pending": list(context.ensemble.pending),
    }


def _set_label(annotation_set: AnnotationSet) -> str:
    if annotation_set.kind == SetKind.HUMAN and annotation_set.annotator is not None:
        return str(annotation_set.annotator.get_username())
    return annotation_set.source_name or annotation_set.get_source_display()


def document_version_ranks(*, document: Document, user: Any, k: int) -> dict[str, Any]:
    """The rank each current annotator's set and machine run of the document leaves (the
    sets the user may see); a set's masks are its spans not decided NO_MASK."""
    context = reid_context(document=document)
    text = document.text
    sets = list(
        annotation_sets_for_user(user=user, document=document)
        .filter(kind__in=(SetKind.HUMAN, SetKind.MACHINE))
        .order_by("kind", "id")
    )
    masks_by_set: dict[int, list[Mask]] = {s.pk: [] for s in sets}
    for set_id, start, end in (
        Span.objects.filter(annotation_set__in=sets)
        .exclude(identifier_type=NO_MASK)
        .values_list("annotation_set_id", "start", "end")
    ):
        masks_by_set[set_id].append((start, end))
    all_masks = [sorted(masks_by_set[s.pk]) for s in sets]
    ranks_by_model: dict[str, list[int]] = {}
    if sets:
        for model in context.ensemble.models:
            # One batched call per model for every version of the document.
            rows = model.scores([text] * len(sets), all_masks)
            ranks_by_model[model.name] = [
                rank_of(rows[i], context.target_index) for i in range(len(sets))
            ]
    versions = []
    for i, annotation_set in enumerate(sets):
        ranks = {name: values[i] for name, values in ranks_by_model.items()}
        rank = min(ranks.values())
        versions.append(
            {
                "annotation_set": annotation_set.pk,
                "label": _set_label(annotation_set),
                "kind": annotation_set.kind,
                "rank": rank,
                "ranks": ranks,
                "safe": rank > k,
                "share_masked": share_masked(text, all_masks[i]),
            }
        )
    return {"versions": versions, "k": k}
