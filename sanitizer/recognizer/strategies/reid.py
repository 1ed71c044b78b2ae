"""``reid``: mask until the person is outside the top K of every re-identification model.

Seed 004's greedy de-identification (:func:`sanitizer.reid.greedy.deidentify`) against an
ensemble over a knowledge base's profiles. Candidates are the document's words and the
recognizer's entity spans (all occurrences together). The person to protect is the
document's ``target`` (or ``meta.target`` / ``meta.person_id``).

Options (``sanitize_documents(..., options=...)``):

* ``kb``: the knowledge base (JSONL profiles), required;
* ``model``: a dense re-identification model directory (``train_reid``), optional;
* ``models``: comma list of model names (default ``bm25``, plus ``dense`` with ``model``);
* ``k``: stop once every model ranks the person below ``k`` (default 10);
* ``start``: ``"none"`` or ``"risk"``, first mask with the ``risk`` strategy (seed 001's
  risk measures + CP-SAT) and add only what the ensemble still needs; ``risk_options``
  (a mapping) are that strategy's settings;
* ``max_steps``: bound on the greedy steps (default: none);
* ``prune``: afterwards drop the steps the result does not need (default true).

Documents whose person is not in the knowledge base (or that name none) are masked with
``mask-all`` and their explain record says so.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sanitizer.recognizer.registry import masking_strategy
from sanitizer.reid.ensemble import load_ensemble, model_names
from sanitizer.reid.greedy import deidentify
from sanitizer.reid.profiles import target_of
from sanitizer.types import EntitySpan

DEFAULT_K = 10
STARTS = ("none", "risk")
NEEDS_KB = (
    "reid needs a knowledge base (kb) with the documents' people, and the documents; "
    "call it through sanitize_documents with options={'kb': 'KB.jsonl', ...}"
)


def _disjoint(text: str, spans: Sequence[EntitySpan]) -> list[EntitySpan]:
    """Sorted, disjoint spans: overlapping ones are fused, keeping the first one's label."""
    out: list[EntitySpan] = []
    for span in sorted(spans, key=lambda s: (s.start, -s.end)):
        if out and span.start < out[-1].end:
            prev = out[-1]
            if span.end > prev.end:
                out[-1] = EntitySpan(
                    prev.start,
                    span.end,
                    prev.label,
                    text[prev.start : span.end],
                    prev.source,
                    prev.confidence,
                    prev.identifier_type,
                    prev.entity_id,
                    dict(prev.attrs),
                )
            continue
        out.append(span)
    return out


class ReidDocumentMasker:
    """Greedy de-identification of whole documents; also returns the explain record."""

    def __init__(self, documents: Sequence[Mapping[str, Any]], options: Mapping[str, Any]) -> None:
        kb = options.get("kb")
        if not kb:
            raise ValueError(NEEDS_KB)
        self.k = int(options.get("k") or DEFAULT_K)
        if self.k < 1:
            raise ValueError(f"k must be ≥ 1, got {self.k}")
        self.start = str(options.get("start") or "none")
        if self.start not in STARTS:
            raise ValueError(f"start must be one of {', '.join(STARTS)}, got {self.start!r}")
        max_steps = options.get("max_steps")
        self.max_steps = int(max_steps) if max_steps is not None else None
        # Pruning (drop steps the end result does not need) is on unless asked otherwise.
        self.prune = bool(options.get("prune", True))
        model_dir = options.get("model")
        names = model_names(options.get("models"), str(model_dir) if model_dir else None)
        profiles, self.models = load_ensemble(str(kb), names, str(model_dir) if model_dir else None)
        self.profile_ids = {p.id for p in profiles}
        self.risk = None
        if self.start == "risk":
            from sanitizer.recognizer.strategies.risk import RiskDocumentMasker

            self.risk = RiskDocumentMasker(documents, dict(options.get("risk_options") or {}))

    def mask(
        self, document: Mapping[str, Any], spans: Sequence[EntitySpan]
    ) -> tuple[list[EntitySpan], dict[str, Any]]:
        """``(masked spans, explain record)`` of one document."""
        text = str(document["text"])
        target = target_of(document)
        if target is None or target not in self.profile_ids:
            why = (
                "the document names no target person"
                if target is None
                else f"target {target!r} is not in the knowledge base"
            )
            return _disjoint(text, spans), {
                "target": target,
                "strategy": "mask-all",
                "reason": f"{why}: masked every detected entity (mask-all) instead",
            }
        initial: list[EntitySpan] = []
        record: dict[str, Any] = {"target": target, "strategy": "reid", "k": self.k}
        if self.risk is not None:
            initial, risk_record = self.risk.mask(document, spans)
            record["start"] = {"strategy": "risk", "spans": len(initial), "explain": risk_record}
        result = deidentify(
            text,
            target,
            self.models,
            k=self.k,
            entities=[(s.start, s.end) for s in spans],
            initial_masks=[(s.start, s.end) for s in initial],
            max_steps=self.max_steps,
            prune=self.prune,
        )
        by_offsets = {(s.start, s.end): s for s in spans}
        reasons = {
            tuple(sp): f"reid: masking {step.text!r} moved the ranks to {step.ranks}"
            for step in result.steps
            for sp in step.spans
        }
        added: list[EntitySpan] = []
        for s, e in result.added:
            known = by_offsets.get((s, e))
            attrs = {"reasons": [reasons.get((s, e), "reid")]}
            if known is not None:
                added.append(
                    EntitySpan(
                        s,
                        e,
                        known.label,
                        known.text,
                        "reid",
                        known.confidence,
                        known.identifier_type,
                        known.entity_id,
                        attrs,
                    )
                )
            else:
                added.append(EntitySpan(s, e, "MISC", text[s:e], "reid", attrs=attrs))
        record.update(
            {
                "models": {m.name: m.version for m in self.models},
                "ranks_before": result.ranks_before,
                "ranks_after": result.ranks_after,
                "reached": result.reached,
                "share_masked": result.share_masked,
                "steps": [step.to_json() for step in result.steps],
            }
        )
        return _disjoint(text, [*initial, *added]), record


class ReidStrategy:
    """The registered ``reid`` strategy (see the module docstring)."""

    def __call__(self, spans: Sequence[EntitySpan]) -> list[EntitySpan]:
        """Spans alone say nothing about who the document is about."""
        raise ValueError(NEEDS_KB)

    def document_masker(
        self, documents: Sequence[Mapping[str, Any]], options: Mapping[str, Any]
    ) -> ReidDocumentMasker:
        """A masker for this collection of documents with these settings."""
        return ReidDocumentMasker(documents, options)


reid = masking_strategy("reid")(ReidStrategy())
