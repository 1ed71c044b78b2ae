"""The privacy/utility curve: ensemble re-identification rate against words masked.

One :class:`~sanitizer.reid.evaluate.CurvePoint` per method, all measured by the same
evaluation ensemble (e.g. bm25 + dense + tfidf-char) on the documents whose person is in
the knowledge base:

* ``none``: no masking;
* ``spacy``: every entity of bare spaCy NER;
* ``mask-all``: every entity of the recognizer;
* ``kanon``: k-anonymity distant labels against the knowledge base (k = 2, 5, 10);
* ``risk``: the risk measures + CP-SAT strategy;
* ``greedy``: greedy de-identification against ``greedy_models`` at several K.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from sanitizer.recognizer.base import DEFAULT_SPACY_MODEL, load_spacy
from sanitizer.recognizer.masking import SupportsPredictBatch, sanitize_documents
from sanitizer.reid.base import ReidDocument, ReidModel, Span
from sanitizer.reid.evaluate import CurvePoint, evaluate_masks
from sanitizer.reid.greedy import deidentify
from sanitizer.reid.profiles import target_of
from sanitizer.types import EntitySpan

METHODS: tuple[str, ...] = ("none", "spacy", "mask-all", "kanon", "risk", "greedy")
GREEDY_KS: tuple[int, ...] = (1, 5, 10, 20)
KANON_KS: tuple[int, ...] = (2, 5, 10)

Progress = Callable[[str], None]
Masks = dict[str, list[Span]]


class CachedRecognizer:
    """Runs a recognizer once per text: mask-all, risk and greedy all read its spans."""

    def __init__(self, recognizer: SupportsPredictBatch) -> None:
        self.recognizer = recognizer
        self.cache: dict[str, list[EntitySpan]] = {}

    def predict_batch(self, texts: Sequence[str]) -> list[list[EntitySpan]]:
        """Spans for each text (computed for the texts not seen yet)."""
        todo = [t for t in dict.fromkeys(texts) if t not in self.cache]
        if todo:
            for text, spans in zip(todo, self.recognizer.predict_batch(todo), strict=True):
                self.cache[text] = list(spans)
        return [self.cache[t] for t in texts]


def _as_masks(raw: Mapping[str, Sequence[Sequence[int]]]) -> Masks:
    return {d: [(int(s), int(e)) for s, e in spans] for d, spans in raw.items()}


def spacy_masks(docs: Sequence[ReidDocument], model: str = DEFAULT_SPACY_MODEL) -> Masks:
    """Every entity of bare spaCy NER (as ``benchmarks/detection.py`` runs it)."""
    nlp = load_spacy(model)
    parsed = nlp.pipe([d.text for d in docs], batch_size=32, disable=["parser", "lemmatizer"])
    return {
        d.doc_id: [(e.start_char, e.end_char) for e in doc.ents]
        for d, doc in zip(docs, parsed, strict=True)
    }


def kanon_masks(
    raw_docs: Sequence[Mapping[str, Any]], kb_path: str, ks: Sequence[int]
) -> dict[int, Masks]:
    """Distant k-anonymity labels (``sanitizer.kanon``) for each k."""
    from sanitizer.kanon.labelling import label_documents, load_or_build

    index, gazetteer = load_or_build(kb_path=kb_path)
    docs = [{"doc_id": str(d["doc_id"]), "text": str(d["text"])} for d in raw_docs]
    out: dict[int, Masks] = {}
    for k in ks:
        masks, _explain = label_documents(docs, index, gazetteer, k=k)
        out[k] = _as_masks(masks)
    return out


def greedy_masks(
    docs: Sequence[ReidDocument],
    models: Sequence[ReidModel],
    k: int,
    entities: Mapping[str, Sequence[Span]],
) -> Masks:
    """Greedy de-identification of each document at ``k``, pruned as the strategy does."""
    return {
        d.doc_id: deidentify(
            d.text, d.target, models, k=k, entities=entities.get(d.doc_id, ()), prune=True
        ).masks
        for d in docs
    }


def reid_documents(
    raw_docs: Sequence[Mapping[str, Any]], profile_ids: Sequence[str]
) -> tuple[list[ReidDocument], list[Mapping[str, Any]]]:
    """The documents whose target is among ``profile_ids`` (as ReidDocuments, and raw)."""
    known = set(profile_ids)
    docs: list[ReidDocument] = []
    kept: list[Mapping[str, Any]] = []
    for i, raw in enumerate(raw_docs, 1):
        target = target_of(raw)
        if target in known:
            assert target is not None
            docs.append(ReidDocument(str(raw.get("doc_id", i)), str(raw["text"]), target))
            kept.append({**raw, "doc_id": str(raw.get("doc_id", i))})
    return docs, kept


def compute_curve(
    raw_docs: Sequence[Mapping[str, Any]],
    eval_models: Sequence[ReidModel],
    *,
    greedy_models: Sequence[ReidModel],
    kb_path: str | None = None,
    recognizer: SupportsPredictBatch | None = None,
    methods: Sequence[str] = METHODS,
    greedy_ks: Sequence[int] = GREEDY_KS,
    kanon_ks: Sequence[int] = KANON_KS,
    spacy_model: str = DEFAULT_SPACY_MODEL,
    risk_options: Mapping[str, Any] | None = None,
    progress: Progress | None = None,
) -> list[CurvePoint]:
    """The curve's points, in ``methods`` order (see the module docstring).

    Only documents whose target is a profile of the first evaluation model count.
    ``kanon`` needs ``kb_path``; ``mask-all``, ``risk`` and ``greedy`` (whose entity
    candidates are the recognizer's spans) build the default recognizer when none is given.
    """
    unknown = [m for m in methods if m not in METHODS]
    if unknown:
        raise ValueError(f"unknown curve methods {unknown} (known: {', '.join(METHODS)})")
    if "kanon" in methods and not kb_path:
        raise ValueError("the kanon method needs the knowledge base file (kb_path)")
    docs, kept = reid_documents(raw_docs, eval_models[0].profile_ids)
    say = progress or (lambda _m: None)
    cached: CachedRecognizer | None = None
    if any(m in methods for m in ("mask-all", "risk", "greedy")):
        if recognizer is None:
            from sanitizer.recognizer.pipeline import build_recognizer

            recognizer = build_recognizer()
        cached = CachedRecognizer(recognizer)
    points: list[CurvePoint] = []

    def add(method: str, label: str, masks: Masks, seconds: float) -> None:
        point = evaluate_masks(
            eval_models, docs, masks, method=method, label=label, seconds=seconds
        )
        points.append(point)
        say(f"{label}: rate {point.rate:.3f}, masked {point.share_masked:.3f} ({seconds:.1f}s)")

    for method in methods:
        t0 = time.perf_counter()
        if method == "none":
            add("none", "no masking", {}, 0.0)
        elif method == "spacy":
            masks = spacy_masks(docs, spacy_model)
            add("spacy", "spaCy NER mask-all", masks, time.perf_counter() - t0)
        elif method == "mask-all":
            assert cached is not None
            masks = _as_masks(sanitize_documents(kept, "mask-all", cached))
            add("mask-all", "recognizer mask-all", masks, time.perf_counter() - t0)
        elif method == "kanon":
            assert kb_path is not None
            by_k = kanon_masks(kept, kb_path, kanon_ks)
            share = (time.perf_counter() - t0) / max(1, len(kanon_ks))
            for k in kanon_ks:
                add("kanon", f"k-anonymity k={k}", by_k[k], share)
        elif method == "risk":
            assert cached is not None
            raw = sanitize_documents(kept, "risk", cached, options=dict(risk_options or {}))
            add("risk", "risk / CP-SAT", _as_masks(raw), time.perf_counter() - t0)
        elif method == "greedy":
            assert cached is not None
            found = cached.predict_batch([d.text for d in docs])
            entities = {
                d.doc_id: [(s.start, s.end) for s in spans]
                for d, spans in zip(docs, found, strict=True)
            }
            for k in greedy_ks:
                t0 = time.perf_counter()
                masks = greedy_masks(docs, greedy_models, k, entities)
                add("greedy", f"greedy K={k}", masks, time.perf_counter() - t0)
    return points


def format_table(points: Sequence[CurvePoint]) -> str:
    """A plain-text table: method, rate, share masked, information loss (percentages)."""
    lines = [f"{'method':<24} {'reid rate':>9} {'masked':>7} {'info loss':>9}  per model"]
    for p in points:
        per = " ".join(f"{n}={100 * r:.1f}" for n, r in p.per_model.items())
        lines.append(
            f"{p.label:<24} {100 * p.rate:>8.1f}% {100 * p.share_masked:>6.1f}% "
            f"{100 * p.info_loss:>8.1f}%  {per}"
        )
    return "\n".join(lines)
